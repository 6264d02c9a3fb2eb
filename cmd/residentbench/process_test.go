package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/residentlua/residentlua/internal/bench"
)

// buildCommand builds residentbench into a temporary directory.
func buildCommand(t *testing.T) string {
	t.Helper()
	binary := filepath.Join(t.TempDir(), "residentbench")
	build := exec.Command("go", "build", "-o", binary, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building residentbench: %v\n%s", err, out)
	}
	return binary
}

// exitCode is the exit status of a finished command.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

func TestMistakesRefusedBeforeTheRun(t *testing.T) {
	// A group that does not exist, or a result file the command must not
	// write, is refused before anything is measured, and the file it names
	// is left as it was.
	binary := buildCommand(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "sweep.lua")
	if err := os.WriteFile(script, []byte("print('a sweep')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-json", script}, "residentbench: -json " + script + ": the file exists and is a Lua script, not what -json writes (a JSON array); give another name, or -force to replace it"},
		{[]string{"-cpuprofile", script}, "residentbench: -cpuprofile " + script + ": the file exists and is a Lua script, not what -cpuprofile writes (a pprof profile)"},
		{[]string{"-json", dir}, "residentbench: -json " + dir + ": is a directory; give a file name"},
		{[]string{"-json", filepath.Join(dir, "t.json"), "-memprofile", filepath.Join(dir, "t.json")}, "is the same file as -json"},
		{[]string{"-only", "wait,speed"}, `residentbench: -only: invalid: bench: no group of figures is named "speed"; the groups are wait, lua,`},
		{[]string{"-gpu", "cuda", "-only", "", "-wait", "all"}, "residentbench: -wait all: -gpu cuda measures under one wait policy at a time; give spin, hybrid or block"},
		{[]string{"-gpu", "cuda"}, "residentbench: -only picks groups of the simulated GPU's table; -gpu cuda measures its table whole, so leave -only out"},
	} {
		cmd := exec.Command(binary, append([]string{"-short", "-only", "wait"}, c.args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if code := exitCode(t, cmd.Run()); code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: stderr %q, want %q", c.args, stderr.String(), c.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: something ran before the refusal: %q", c.args, stdout.String())
		}
	}
	if data, _ := os.ReadFile(script); string(data) != "print('a sweep')\n" {
		t.Errorf("the script became %q", data)
	}
}

func TestSignalKeepsTheRunsDone(t *testing.T) {
	// SIGTERM during a long -repeat ends it after the run in progress: the
	// table and -json hold the runs done, and the exit status says which
	// signal ended it.
	binary := buildCommand(t)
	out := filepath.Join(t.TempDir(), "table.json")
	cmd := exec.Command(binary, "-short", "-only", "wait", "-repeat", "100000", "-json", out)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	var said []string
	for lines.Scan() {
		said = append(said, lines.Text())
		if strings.HasPrefix(lines.Text(), "residentbench: run 1 of 100000 done") {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		said = append(said, lines.Text())
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("still running five minutes after SIGTERM; it said:\n%s", strings.Join(said, "\n"))
	}
	if code := exitCode(t, err); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d, want %d; it said:\n%s", code, 128+int(syscall.SIGTERM), strings.Join(said, "\n"))
	}
	if !strings.Contains(strings.Join(said, "\n"), "stopping after the run in progress") {
		t.Errorf("no word of stopping on stderr:\n%s", strings.Join(said, "\n"))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("-json was not written: %v", err)
	}
	var figures []bench.Figure
	if err := json.Unmarshal(data, &figures); err != nil || len(figures) == 0 {
		t.Fatalf("-json holds %d figures (%v):\n%s", len(figures), err, data)
	}
	runs := len(figures[0].Runs)
	if runs < 1 || runs >= 100000 {
		t.Errorf("-json holds %d runs of %q, want the runs done before the signal, and at most the one it let end besides", runs, figures[0].Name)
	}
	// The table is of the same runs: one run's table says nothing of runs
	// (the signal may come before the first run's end is checked).
	if !strings.Contains(stdout.String(), "exchange round trip") {
		t.Errorf("no table of the runs done:\n%s", stdout.String())
	}
	if median := fmt.Sprintf("median of %d runs", runs); runs > 1 && !strings.Contains(stdout.String(), median) {
		t.Errorf("the table does not say %q, as -json's %d runs do:\n%s", median, runs, stdout.String())
	}
}
