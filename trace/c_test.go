package trace_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// runSession runs testdata/c/session.c's runs of seed with bug (0: none)
// and validates the trace they record.
func runSession(t *testing.T, bin string, seed, runs, bug int) *trace.Report {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if b, err := exec.Command(bin, path, strconv.Itoa(seed), strconv.Itoa(runs), strconv.Itoa(bug)).CombinedOutput(); err != nil {
		t.Fatalf("session %d %d %d: %v\n%s", seed, runs, bug, err, b)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := trace.Validate(trace.Input{Name: "session.jsonl", R: f})
	if err != nil {
		t.Fatalf("bug %d: the trace is not one: %v", bug, err)
	}
	return r
}

// An implementation of the session in C, written from docs/protocol.md
// over two mock devices and recording through the header, validates clean
// over 1,000 runs with faults (rejected dispatches, failed releases, hung
// and failing programs); each of its seeded bugs is caught, naming the
// invariant it breaks.
func TestCImplementationIsValidated(t *testing.T) {
	bin := compileC(t, "session")
	r := runSession(t, bin, 1, 1000, 0)
	if !r.OK() || r.Sessions != 1000 {
		t.Fatalf("the correct implementation:\n%s", r)
	}
	if len(r.Checked) != 14 {
		t.Errorf("checked %v: a trace of every kind, with deadlines, judges all but 15", r.Checked)
	}
	bugs := []struct {
		bug       int
		rule      string
		invariant int
	}{
		{1, "no ABORT after a rejected submit", 3},
		{2, "a publication failure that does not poison", 9},
		{3, "the decision recorded after publishing", 12},
		{4, "the second join given the whole timeout", 11},
		{5, "memory of an unretired device released", 5},
		{6, "a quarantine without the NPU", 13},
	}
	for _, b := range bugs {
		t.Run(b.rule, func(t *testing.T) {
			r := runSession(t, bin, 2, 300, b.bug)
			if !slices.ContainsFunc(r.Violations, func(v trace.Violation) bool { return v.Invariant == b.invariant }) {
				t.Fatalf("%s: want invariant %d reported:\n%s", b.rule, b.invariant, r)
			}
			if ExitCode := trace.ExitCode(r, nil); ExitCode != 1 {
				t.Errorf("exit code %d, want 1", ExitCode)
			}
		})
	}
}

// An event longer than RLT_LINE_BYTES is dropped, not cut into a broken
// line: the events around it are written, and rlt_close says one was lost.
func TestCRecorderDropsAnOverlongEvent(t *testing.T) {
	bin := compileC(t, "drop")
	path := filepath.Join(t.TempDir(), "drop.jsonl")
	if b, err := exec.Command(bin, path).CombinedOutput(); err != nil {
		t.Fatalf("drop: %v\n%s", err, b)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := trace.Validate(trace.Input{Name: "drop.jsonl", R: bytes.NewReader(data)})
	if err != nil || r.Events != 2 {
		t.Fatalf("%v: %d events, want the 2 around the dropped one\n%s", err, r.Events, data)
	}
}
