package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The REPL, driven through a pseudo-terminal as a person would drive it.

func TestREPLExpressionsAndContinuation(t *testing.T) {
	tm := startTerminal(t, filepath.Join(t.TempDir(), "history"), "--mode", "sim", "--seed", "1")
	tm.expect("(gopher-lua v1.1.2, Lua 5.1)")
	tm.expect("> ")

	// An expression prints its values.
	tm.send("40 + 2\r")
	tm.expect("42\r\n")
	tm.send("1, 'two', nil\r")
	tm.expect("1\ttwo\tnil\r\n")
	// "=expr" as in Lua 5.1.
	tm.send("=6 * 7 + 1\r")
	tm.expect("43\r\n")
	// A session prints its tostring.
	tm.send("s = startup{rounds = 2}\r")
	tm.send("s\r")
	tm.expect("session 1 (undecided, aql, rounds=2")

	// An incomplete chunk continues on the next line.
	tm.send("for i = 1, 3 do\r")
	tm.expect(">> ")
	tm.send("io.write(i * 11, ' ')\r")
	tm.expect(">> ")
	tm.send("end\r")
	tm.expect("11 22 33 ")
	tm.send("function twice(x)\r")
	tm.expect(">> ")
	tm.send("return 2 * x end\r")
	tm.send("twice(21)\r")
	tm.expect("42\r\n")

	// An error is reported with its traceback, and the next line works.
	tm.send("error('kab' .. 'oom')\r")
	tm.expect("stdin:1: kaboom")
	tm.expect("stack traceback:")
	tm.run("x = 1", "still alive")
	// A syntax error too.
	tm.send("x = = 2\r")
	tm.expect("stdin:1: unexpected symbol near '='")
	// A protocol error is a value with kind, op and message.
	tm.send("s:start()\r")
	tm.expect("busy: ")
	tm.send("select(2, pcall(s.start, s)).kind\r")
	tm.expect("busy\r\n")
	tm.run("x = 2", "alive again")

	// Ctrl-C at the prompt clears the line.
	tm.send("this is not lua")
	tm.send("\x03")
	tm.expect("^C")
	tm.run("x = 3", "cleared")
	if strings.Contains(tm.output(), "not lua'") {
		t.Errorf("the aborted line was run:\n%q", tm.output())
	}

	// io.read works between prompts: the terminal is back in its normal
	// mode (echoing, line by line) while a chunk runs.
	tm.send(`print("read" .. "ing"); line = io.read(); print("got:" .. line)` + "\r")
	tm.expect("reading")
	tm.send("hello there\r")
	tm.expect("hello there") // echoed by the terminal
	tm.expect("got:hello there")

	tm.prompt()
	tm.send("\x04")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit status %d after Ctrl-D", code)
	}
}

func TestREPLInterruptWait(t *testing.T) {
	// Ctrl-C during a wait on a hung device (real time) ends the wait with
	// an error and comes back to the prompt.
	tm := startTerminal(t, filepath.Join(t.TempDir(), "history"))
	tm.expect("> ")
	tm.run(`resident.fabric{mode = "realtime"}; resident.fault("gpu.run", "hang"); s = startup{}; s:submit_gpu(); s:submit_npu(); s:start()`, "started")
	tm.send(`print("wait" .. "ing"); print(s:wait(600))` + "\r")
	tm.expect("waiting")
	tm.send("\x03")
	tm.expect("interrupted")
	tm.expect("> ")
	tm.run(`print(s.state)`, "back at the prompt")
	// A loop in Lua is interrupted the same way.
	tm.send(`print("loop" .. "ing"); while true do end` + "\r")
	tm.expect("looping")
	tm.send("\x03")
	tm.expect("interrupted")
	tm.run(`x = 1`, "back again")
	// The session is still there; close quarantines it, reset frees it.
	tm.send("s:close(0.05)\r")
	tm.expect("quarantined\r\n")
	tm.prompt()
	tm.run(`resident.reset("gpu"); resident.reset("npu"); print(#resident.quarantined())`, "reset done")
	tm.send("\x04")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit status %d", code)
	}
}

func TestREPLHistoryAcrossRuns(t *testing.T) {
	history := filepath.Join(t.TempDir(), "history")
	tm := startTerminal(t, history, "--mode", "sim")
	tm.expect("> ")
	tm.send(`print("hist" .. "ory-1")` + "\r")
	tm.expect("history-1")
	tm.prompt()
	tm.send("\x04")
	if code := tm.exit(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	data, err := os.ReadFile(history)
	if err != nil || !strings.Contains(string(data), `print("hist" .. "ory-1")`) {
		t.Fatalf("history file: %q, %v", data, err)
	}

	// The second run recalls the line with the up arrow.
	tm = startTerminal(t, history, "--mode", "sim")
	tm.expect("> ")
	tm.send("\x1b[A")
	tm.expect(`print("hist" .. "ory-1")`)
	tm.send("\r")
	tm.expect("history-1")
	tm.prompt()
	tm.send("\x04")
	tm.exit()
}

func TestREPLHistoryDefaultFile(t *testing.T) {
	// Without $RESIDENTLUA_HISTORY the history is ~/.residentlua_history.
	tm := startTerminal(t, "", "--mode", "sim")
	tm.run("x = 1", "in home")
	tm.send("\x04")
	tm.exit()
	data, err := os.ReadFile(filepath.Join(tm.home, ".residentlua_history"))
	if err != nil || !strings.Contains(string(data), `x = 1; print("in " .. "home")`) {
		t.Errorf("history: %q, %v", data, err)
	}
}

func TestREPLTabCompletion(t *testing.T) {
	tm := startTerminal(t, filepath.Join(t.TempDir(), "history"), "--mode", "sim", "--seed", "1")
	tm.expect("> ")
	// A member of resident.
	tm.send("resident.budg\t")
	tm.expect("resident.budget")
	tm.send("().limit\r")
	tm.expect("1073741824\r\n")
	tm.prompt()
	// A global.
	tm.send("type(pri\t")
	tm.expect("type(print")
	tm.send(")\r")
	tm.expect("function\r\n")
	tm.prompt()
	// A session method.
	tm.run("s = startup{}", "made")
	tm.send("print('ic', s:is_comp\t")
	tm.expect("s:is_complete")
	tm.send("())\r")
	tm.expect("ic\tfalse\r\n")
	tm.prompt()
	// Two Tabs list the candidates.
	tm.send("resident.su\t\t")
	tm.expect("resident.submit_gpu")
	tm.expect("resident.submit_npu")
	tm.send("\x03")
	tm.run("x = 1", "after listing")
	tm.send("\x04")
	tm.exit()
}

func TestREPLCtrlDClosesSessions(t *testing.T) {
	tm := startTerminal(t, filepath.Join(t.TempDir(), "history"), "--mode", "sim", "--seed", "1")
	tm.expect("> ")
	tm.run("s = startup{}; s:submit_gpu(); t2 = startup{}", "two open")
	tm.send("\x04")
	tm.expect("resident: closed session 1 at exit: retired")
	tm.expect("resident: closed session ")
	tm.expect(" at exit: retired")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit status %d after Ctrl-D", code)
	}
}

func TestREPLAfterScript(t *testing.T) {
	// -i: the REPL after the script, with its globals.
	dir := t.TempDir()
	script := writeFile(t, dir, "setx.lua", "x = 41\n")
	tm := startTerminal(t, filepath.Join(dir, "history"), "-i", script)
	tm.expect("> ")
	tm.send("x + 1\r")
	tm.expect("42\r\n")
	tm.prompt()
	tm.send("\x04")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit status %d", code)
	}
}
