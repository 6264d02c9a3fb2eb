package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangSession is a chunk that leaves one session whose GPU never retires.
const hangSession = `resident.fault("gpu.run", "hang"); s = startup{}; s:submit_gpu(); s:submit_npu(); s:start()`

// checkResultFiles fails the test unless the trace and the stats were
// written, are valid JSON, and the stats say the session was quarantined.
func checkResultFiles(t *testing.T, trace, stats string) {
	t.Helper()
	var tf struct{ TraceEvents []map[string]any }
	if data, err := os.ReadFile(trace); err != nil || json.Unmarshal(data, &tf) != nil || len(tf.TraceEvents) == 0 {
		t.Errorf("trace not written or not valid: %v, %d events", err, len(tf.TraceEvents))
	}
	var st []struct {
		ID    uint64
		State string
	}
	data, err := os.ReadFile(stats)
	if err != nil || json.Unmarshal(data, &st) != nil {
		t.Fatalf("stats not written or not valid: %v\n%s", err, data)
	}
	if len(st) != 1 || st[0].State != "quarantined" {
		t.Errorf("stats %+v: want the one session, quarantined", st)
	}
}

func TestCtrlDWithHungSessionSaysWhatItJoins(t *testing.T) {
	// Ctrl-D with a hung session: the command says at once which session it
	// joins and for how long; Ctrl-C then quarantines it at once, says so
	// with the time it had waited, the trace and stats are still written,
	// and the exit status says the run was interrupted.
	dir := t.TempDir()
	trace, stats := filepath.Join(dir, "trace.json"), filepath.Join(dir, "stats.json")
	tm := startTerminal(t, filepath.Join(dir, "history"), "--trace", trace, "--stats", stats)
	tm.expect("> ")
	tm.run(hangSession, "hung")
	eof := time.Now()
	tm.send("\x04")
	tm.expect("residentlua: closing session 1: joining for up to 10s each (Ctrl-C quarantines now)")
	said := time.Since(eof)
	interrupted := time.Now()
	tm.send("\x03")
	tm.expect("resident: closed session 1 at exit: quarantined (the close was interrupted after ")
	tm.expect(", before a participant retired)")
	if code := tm.exit(); code != exitInterrupted {
		t.Errorf("exit status %d after Ctrl-C ended the joins at exit, want %d", code, exitInterrupted)
	}
	if strings.Contains(tm.output(), "did not retire within") {
		t.Errorf("the reason names the timeout, not the time waited:\n%s", tm.output())
	}
	t.Logf("the joining line came %v after Ctrl-D; the command exited %v after Ctrl-C", said, time.Since(interrupted))
	// The close timeout is 10 s: an exit well before it means Ctrl-C ended the join.
	if waited := time.Since(interrupted); waited > 5*time.Second {
		t.Errorf("the command exited %v after Ctrl-C; the join was not ended", waited)
	}
	checkResultFiles(t, trace, stats)
}

func TestSIGTERMClosesSessionsAndWritesFiles(t *testing.T) {
	// SIGTERM in the middle of a long wait: the wait stops, the session is
	// quarantined at once, the files are written, and the exit status is
	// 143 as for a process killed by SIGTERM.
	dir := t.TempDir()
	trace, stats := filepath.Join(dir, "trace.json"), filepath.Join(dir, "stats.json")
	cmd := exec.Command(binary, "--trace", trace, "--stats", stats, "-e", hangSession+`; print("waiting"); io.stdout:flush(); s:wait(600)`)
	cmd.Env = append(os.Environ(), "HOME="+dir, noExitSleep)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, _ := out.Read(buf); !strings.Contains(string(buf[:n]), "waiting") {
		t.Fatalf("stdout %q", buf[:n])
	}
	time.Sleep(50 * time.Millisecond) // let the wait begin
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(expectTimeout):
		cmd.Process.Kill()
		t.Fatalf("no exit after SIGTERM; stderr:\n%s", stderr.String())
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitTerminated {
		t.Errorf("exit %v, want status %d; stderr:\n%s", err, exitTerminated, stderr.String())
	}
	contains(t, "stderr", stderr.String(), "interrupted", "residentlua: terminated: closing session 1 without joining",
		"resident: closed session 1 at exit: quarantined (closed without joining, interrupted before the join began)")
	if strings.Contains(stderr.String(), "did not retire within") {
		t.Errorf("after SIGTERM, a reason that names a timeout it never waited:\n%s", stderr.String())
	}
	checkResultFiles(t, trace, stats)
}

func TestCtrlCDuringCloseAtTheREPL(t *testing.T) {
	// Ctrl-C during s:close(600) on a hung device: the close ends at once
	// with an interrupted error that says the session is quarantined and
	// how long the close had waited (not the 10 minutes it was given), and
	// the prompt comes back.
	tm := startTerminal(t, filepath.Join(t.TempDir(), "history"))
	tm.prompt()
	tm.run(hangSession, "hung")
	tm.send("s:close(600)\r")
	tm.expect("s:close(600)")
	time.Sleep(300 * time.Millisecond) // let the close begin to join
	tm.send("\x03")
	tm.expect("stdin:1: close on session 1 interrupted; it is quarantined (the close was interrupted after ")
	tm.expect("before a participant retired): reset its devices to release it")
	tm.prompt()
	tm.run(`print(resident.quarantined()[1].label)`, "label")
	if out := tm.output(); strings.Contains(out, "10m0s") {
		t.Errorf("a reason names the close's timeout, not the time it waited:\n%s", out)
	}
	tm.send("\x04")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit status %d after Ctrl-D", code)
	}
}

func TestSessionsUntilRefused(t *testing.T) {
	// A script that opens sessions until the fabric refuses one ends with a
	// Lua error and exit status 1, not a crash, and still closes what it
	// opened (each session reported; ids count up with no gaps).
	r := runCmd(t, "", "", "--mode", "sim", "-e", `resident.fabric{budget = "64KiB"}; while true do startup{} end`)
	r.wantCode(t, 1)
	contains(t, "stderr", r.stderr, "residentlua: budget: ", "resident: closed session 1 at exit: retired", "resident: closed session 2 at exit: retired")
}
