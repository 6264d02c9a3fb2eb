package trace_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/residentlua/residentlua/trace"
)

// compileC builds the C program testdata/c/name.c, which includes the
// recorder's header, with the system's C compiler (the one the race
// detector needs): there is no skipping it, so a machine without one fails
// here, saying so.
func compileC(t *testing.T, name string, defines ...string) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Fatalf("no C compiler (%s): the recorder's tests compile residentlua_trace.h with it; install gcc (the race detector needs it too) or set CC", cc)
	}
	out := filepath.Join(t.TempDir(), name)
	args := []string{"-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread", "-Irecorder", "-o", out, filepath.Join("testdata", "c", name+".c")}
	for _, d := range defines {
		args = append(args, "-D"+d)
	}
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
	}
	return out
}

// Threads recording at once through the header lose no event, and the
// trace comes out in time order, each thread's events in its own order.
func TestCRecorderWritesEveryEventInTimeOrder(t *testing.T) {
	bin := compileC(t, "threads")
	path := filepath.Join(t.TempDir(), "threads.jsonl")
	const threads, events = 4, 20000 // past a ring's 4096 events: the rings fill and wait for the writer
	if b, err := exec.Command(bin, path, strconv.Itoa(threads), strconv.Itoa(events)).CombinedOutput(); err != nil {
		t.Fatalf("threads: %v\n%s", err, b)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := trace.NewDecoder("threads.jsonl", f)
	if err != nil {
		t.Fatal(err)
	}
	if h := dec.Header(); h.Recorder != `threads.c "test"` || h.Clock != "real" || len(h.Kinds) != 1 {
		t.Errorf("header %+v", h)
	}
	next := map[string]uint64{}
	var last uint64
	n := 0
	for {
		var e trace.Event
		err := dec.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if *e.Time < last {
			t.Fatalf("line %d: time %d after %d: the file is not in time order", dec.Line(), *e.Time, last)
		}
		last = *e.Time
		next[e.Actor]++
		if *e.Invocation != next[e.Actor] {
			t.Fatalf("line %d: %s's event %d, want %d: a thread's events out of order or lost", dec.Line(), e.Actor, *e.Invocation, next[e.Actor])
		}
	}
	if n != threads*events || len(next) != threads {
		t.Errorf("%d events of %d threads, want %d of %d", n, len(next), threads*events, threads)
	}
}
