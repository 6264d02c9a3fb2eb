package lua51_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/residentlua/residentlua/lua51"
)

// diffSeeds is the range of generator seeds TestDifferential runs; CI runs
// the default, and a longer hunt passes a larger range:
//
//	go test ./lua51 -run TestDifferential -timeout 2h -args -lua51.seeds=0:100000
var diffSeeds = flag.String("lua51.seeds", "", "generator seeds `FROM:TO` (TO excluded) that TestDifferential runs through lua51 and lua5.1")

// diffAll makes TestDifferential count every differing seed, for a
// figure of how far from lua5.1 the interpreter is.
var diffAll = flag.Bool("lua51.all", false, "TestDifferential runs every seed of -lua51.seeds and counts those that differ, instead of stopping at the first")

// diffBudget bounds the instructions of one generated program here: they
// all end within a few thousand, so a program past it is one that a
// miscompilation made loop.
const diffBudget = 1_000_000

// TestDifferential runs programs of genProgram through lua51 and through
// the reference interpreter, lua5.1 (Lua 5.1.5's lua.c), and fails on the
// first seed whose standard output, exit status or first line of an
// uncaught error differ, showing the program cut down to the lines that
// still make the difference, and both outputs.
func TestDifferential(t *testing.T) {
	if *diffSeeds == "" {
		t.Skip("the generated programs do not all run as in Lua 5.1 yet; pass -lua51.seeds=FROM:TO")
	}
	ref, err := exec.LookPath("lua5.1")
	if err != nil {
		t.Fatalf("the reference interpreter is not installed: lua5.1 is not on PATH (Debian: apt-get install lua5.1; .ci/run installs it)")
	}
	from, to, err := parseSeeds(*diffSeeds)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	seeds := make(chan uint64)
	var mu sync.Mutex
	first := uint64(to) // the smallest differing seed found
	var differing []uint64
	var wg sync.WaitGroup
	for w := range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wdir := filepath.Join(dir, strconv.Itoa(w))
			if err := os.Mkdir(wdir, 0o755); err != nil {
				t.Error(err)
				return
			}
			for seed := range seeds {
				src := genProgram(seed)
				want, got := runBoth(t, ref, wdir, src)
				if want == got {
					continue
				}
				mu.Lock()
				differing = append(differing, seed)
				if !*diffAll {
					first = min(first, seed)
				}
				mu.Unlock()
			}
		}()
	}
	for seed := uint64(from); seed < uint64(to); seed++ {
		mu.Lock()
		stop := first < uint64(to)
		mu.Unlock()
		if stop {
			break
		}
		seeds <- seed
	}
	close(seeds)
	wg.Wait()
	if *diffAll && len(differing) > 0 {
		slices.Sort(differing)
		t.Errorf("%d of %d programs differ from lua5.1; the first seeds: %v", len(differing), to-from, differing[:min(len(differing), 20)])
		first = differing[0]
	}
	if first == uint64(to) {
		return
	}
	wdir := filepath.Join(dir, "0")
	want, got := runBoth(t, ref, wdir, genProgram(first))
	class := difference(want, got)
	src := minimizeProgram(genProgram(first), func(src string) bool {
		want, got := runBoth(t, ref, wdir, src)
		return difference(want, got) == class
	})
	want, got = runBoth(t, ref, wdir, src)
	t.Fatalf("seed %d prints what lua5.1 does not; the program, cut down:\n%s\n%s", first, src,
		lineDiff("lua5.1", "lua51", want, got))
}

// parseSeeds reads FROM:TO.
func parseSeeds(s string) (from, to int, err error) {
	a, b, ok := strings.Cut(s, ":")
	if ok {
		from, err = strconv.Atoi(a)
		if err == nil {
			to, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || from < 0 || to < from {
		return 0, 0, fmt.Errorf("-lua51.seeds=%q: want FROM:TO, two numbers with 0 <= FROM <= TO, such as 0:10000", s)
	}
	return from, to, nil
}

// runBoth runs src as dir/prog.lua through lua5.1 (ref) and through lua51,
// and returns what each printed, as regen.sh records it; both are "" when
// lua5.1 does not end within refTimeout (a line removed while minimizing
// can make a loop endless).
func runBoth(t *testing.T, ref, dir, src string) (want, got string) {
	path := filepath.Join(dir, "prog.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want, ok := runReference(t, ref, dir)
	if !ok {
		return "", ""
	}
	return want, runHere(src)
}

// refTimeout bounds one run of lua5.1: a generated program ends within
// milliseconds.
const refTimeout = 10 * time.Second

// runReference runs prog.lua in dir with lua5.1; ok is false when it ran
// past refTimeout.
func runReference(t *testing.T, ref, dir string) (report string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), refTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, ref, "prog.lua")
	cmd.Args[0] = "lua5.1" // the program name lua.c puts before a message
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	status := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if ctx.Err() != nil {
			return "", false
		}
		if !errors.As(err, &exit) {
			t.Fatalf("lua5.1 prog.lua: %v", err)
		}
		status = exit.ExitCode()
	}
	message, _, _ := strings.Cut(stderr.String(), "\n")
	message = strings.TrimPrefix(message, "lua5.1: ")
	return reportOf(stdout.String(), message, status), true
}

// runHere runs src in a fresh lua51 state as lua.c would run prog.lua.
func runHere(src string) string {
	var stdout strings.Builder
	L := lua51.NewState(lua51.Options{Stdout: &stdout})
	defer L.Close()
	fn, err := lua51.Load(L, strings.NewReader(src), "@prog.lua")
	if err == nil {
		L.Push(fn)
		err = lua51.PCallBudget(L, 0, 0, diffBudget)
	}
	if err == nil {
		return reportOf(stdout.String(), "", 0)
	}
	message, _ := lua51.UncaughtMessage(err)
	message, _, _ = strings.Cut(message, "\n")
	return reportOf(stdout.String(), message, 1)
}

// difference says how two reports differ, so that minimizing keeps to
// the same kind: "" (they do not), "budget" (lua51 ran past diffBudget),
// "stdout" (in what the programs print), or "error" (in the error or the
// exit status).
func difference(want, got string) string {
	switch {
	case want == got:
		return ""
	case strings.Contains(got, "instruction budget exhausted"):
		return "budget"
	case stdoutOf(want) != stdoutOf(got):
		return "stdout"
	}
	return "error"
}

// stdoutOf is the standard output part of a report.
func stdoutOf(report string) string {
	return report[:strings.LastIndex(report, "error: ")]
}

// reportOf is what one interpreter did with a program.
func reportOf(stdout, message string, status int) string {
	return fmt.Sprintf("%serror: %s\nexit: %d\n", stdout, message, status)
}

// minimizeProgram removes lines from src while differs still holds,
// trying ever smaller runs of lines (delta debugging).
func minimizeProgram(src string, differs func(string) bool) string {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	join := func(ls []string) string { return strings.Join(ls, "\n") + "\n" }
	for size := len(lines) / 2; size >= 1; size /= 2 {
		for start := 0; start+size <= len(lines); {
			candidate := append(append([]string(nil), lines[:start]...), lines[start+size:]...)
			if differs(join(candidate)) {
				lines = candidate
				continue
			}
			start += size
		}
	}
	return join(lines)
}
