package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestEmbedExample builds the example with the go command and runs it: its
// output is fixed by the simulated fabric's seed.
func TestEmbedExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	gocmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	bin := filepath.Join(t.TempDir(), "embed")
	build := exec.Command(gocmd, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running the example: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	const want = `lua: session 1 (retired, aql, rounds=16, credits=4, slot_bytes=256), retired: true
go: the session ended retired after 16 rounds
go: session 1: closed, 4096 bytes verified, verification ok: true
go: caught busy error from start: both resident participants must be accepted before RUN
go: session 2 was still open; closing it: retired
`
	if got := stdout.String(); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
	if got := stderr.String(); got != "resident: closed session 2 at exit: retired\n" {
		t.Errorf("stderr: %q", got)
	}
}

// TestEmbedInProcess runs the same program in the test's process, so the race
// detector sees it too.
func TestEmbedInProcess(t *testing.T) {
	if err := run(); err != nil {
		t.Fatal(err)
	}
}

// TestEmbedFromAnotherModule builds a program in a module of its own that
// embeds the project through its published path, as `go get` would resolve
// it once published (a replace points the path at this checkout), and runs
// it: the third way people use residentlua needs no copy of its code.
func TestEmbedFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	goMod := "module example.com/tool\n\ngo 1.26.0\n\nrequire github.com/residentlua/residentlua v0.0.0\n\n" +
		"replace github.com/residentlua/residentlua => " + root + "\n"
	mainGo := `package main

import (
	"fmt"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
)

func main() {
	L := lua51.NewState(lua51.Options{})
	defer L.Close()
	m, err := luaapi.Open(L, luaapi.Options{Config: devices.Config{Mode: devices.Simulated, Seed: 1}})
	if err != nil {
		panic(err)
	}
	defer m.Close()
	err = lua51.DoString(L, "local r = require 'resident'; local s = r.startup{}; s:submit_gpu(); s:submit_npu(); s:start(); assert(s:wait(1)); print(s:close(), 0.1 + 0.2)")
	fmt.Println(err)
}
`
	sum, err := os.ReadFile(filepath.Join(root, "go.sum")) // the same dependencies, so the same sums
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"go.mod": goMod, "main.go": mainGo, "go.sum": string(sum)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gocmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	bin := filepath.Join(dir, "tool")
	build := exec.Command(gocmd, "build", "-mod=mod", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off") // the module cache holds every dependency already
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of a module that embeds residentlua: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil || string(out) != "retired\t0.3\n<nil>\n" {
		t.Errorf("the embedding program: %v\n%s", err, out)
	}
}
