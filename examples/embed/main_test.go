package main

import (
	"bytes"
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
