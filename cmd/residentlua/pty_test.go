package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// terminal is the command running on a pseudo-terminal, as a person at a
// terminal would run it.
type terminal struct {
	t    *testing.T
	cmd  *exec.Cmd
	home string // $HOME of the command
	pty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer // everything the command wrote
	seen int          // how much of out expect has consumed
	done chan struct{}
	err  error // the command's exit, once done is closed
}

// expectTimeout bounds every wait for output: generous, for -race on a
// loaded machine, where a 3,000-trial campaign took longer than 30 s.
const expectTimeout = 2 * time.Minute

// startTerminal runs the command with args on a new pseudo-terminal, with
// its history in historyFile ($RESIDENTLUA_HISTORY; empty for the default
// in $HOME, a new temporary directory).
func startTerminal(t *testing.T, historyFile string, args ...string) *terminal {
	t.Helper()
	return startOnTerminal(t, historyFile, exec.Command(binary, args...))
}

// startOnTerminal runs cmd, which runs the command, as startTerminal does.
func startOnTerminal(t *testing.T, historyFile string, cmd *exec.Cmd) *terminal {
	t.Helper()
	home := t.TempDir()
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "TERM=xterm", "HOME="+home, "RESIDENTLUA_HISTORY="+historyFile, noExitSleep)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	tm := &terminal{t: t, cmd: cmd, home: home, pty: f, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				break
			}
		}
		tm.err = cmd.Wait()
		close(tm.done)
	}()
	t.Cleanup(func() {
		select {
		case <-tm.done:
		default:
			cmd.Process.Kill()
			<-tm.done
		}
		f.Close()
	})
	return tm
}

// send types s.
func (tm *terminal) send(s string) {
	tm.t.Helper()
	if _, err := tm.pty.Write([]byte(s)); err != nil {
		tm.t.Fatalf("typing %q: %v", s, err)
	}
}

// expect waits until the output after what was consumed holds s, and
// consumes up to its end.
func (tm *terminal) expect(s string) {
	tm.t.Helper()
	deadline := time.Now().Add(expectTimeout)
	for {
		tm.mu.Lock()
		rest := tm.out.String()[tm.seen:]
		if i := strings.Index(rest, s); i >= 0 {
			tm.seen += i + len(s)
			tm.mu.Unlock()
			return
		}
		tm.mu.Unlock()
		select {
		case <-tm.done:
			tm.mu.Lock()
			rest = tm.out.String()[tm.seen:]
			tm.mu.Unlock()
			if strings.Contains(rest, s) {
				continue
			}
			tm.t.Fatalf("the command exited (%v) before writing %q; output:\n%q", tm.err, s, tm.output())
		default:
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("no %q within %v; output:\n%q", s, expectTimeout, tm.output())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// run types a line that ends with print(marker), built so that the echo of
// the line does not hold the marker, and waits for the marker and the next
// prompt.
func (tm *terminal) run(line, marker string) {
	tm.t.Helper()
	half := len(marker) / 2
	tm.send(line + `; print("` + marker[:half] + `" .. "` + marker[half:] + `")` + "\r")
	tm.expect(marker)
	tm.prompt()
}

// prompt waits for the next prompt. Keys that mean something at the prompt
// (Ctrl-C, Ctrl-D) must wait for it: typed while a chunk still runs, they
// reach the terminal in its normal mode, where Ctrl-C interrupts and
// Ctrl-D is the end-of-file character.
func (tm *terminal) prompt() {
	tm.t.Helper()
	tm.expect("> ")
}

// output is everything written so far.
func (tm *terminal) output() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()
}

// exit waits for the command to end and returns its exit status.
func (tm *terminal) exit() int {
	tm.t.Helper()
	select {
	case <-tm.done:
	case <-time.After(expectTimeout):
		tm.t.Fatalf("the command did not exit; output:\n%q", tm.output())
	}
	var ee *exec.ExitError
	if errors.As(tm.err, &ee) {
		return ee.ExitCode()
	}
	if tm.err != nil {
		tm.t.Fatalf("the command: %v", tm.err)
	}
	return 0
}
