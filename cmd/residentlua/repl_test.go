package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
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

// historyLines is the history file's entries.
func historyLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func TestREPLMultiLineChunkIsOneHistoryEntry(t *testing.T) {
	// As lua.c keeps it: a chunk typed over several lines is one entry,
	// which the up arrow recalls whole and which runs again as it did. A
	// chunk whose lines cannot be joined (a comment would swallow what
	// follows it) stays line by line.
	history := filepath.Join(t.TempDir(), "history")
	tm := startTerminal(t, history, "--mode", "sim")
	tm.prompt()
	tm.send("for i = 1, 2 do\r")
	tm.expect(">> ")
	tm.send("print('round ' .. i * 10)\r")
	tm.expect(">> ")
	tm.send("end\r")
	tm.expect("round 20")
	tm.prompt()
	tm.send("x = 1 -- one\r")
	tm.prompt()
	tm.send("function f() -- a comment\r")
	tm.expect(">> ")
	tm.send("return 7 end\r")
	tm.prompt()
	tm.send("\x1b[A")
	tm.expect("return 7 end")
	tm.send("\x1b[A")
	tm.expect("function f() -- a comment")
	tm.send("\x1b[A")
	tm.expect("x = 1 -- one")
	tm.send("\x1b[A")
	tm.expect("for i = 1, 2 do print('round ' .. i * 10) end")
	tm.send("\r")
	tm.expect("round 10")
	tm.expect("round 20")
	tm.prompt()
	tm.send("\x04")
	tm.exit()
	want := []string{
		"for i = 1, 2 do print('round ' .. i * 10) end",
		"x = 1 -- one",
		"function f() -- a comment",
		"return 7 end",
		"for i = 1, 2 do print('round ' .. i * 10) end",
	}
	if got := historyLines(t, history); !slices.Equal(got, want) {
		t.Errorf("history %q, want %q", got, want)
	}
}

func TestREPLHistoryIsAppendedAndMerged(t *testing.T) {
	// Two REPLs at once share a history file: each appends its entries as
	// they are entered, so neither overwrites the other's, and the next
	// REPL starts with both, in the order they were entered.
	history := filepath.Join(t.TempDir(), "history")
	if err := os.WriteFile(history, []byte("old = 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startTerminal(t, history, "--mode", "sim")
	a.prompt()
	b := startTerminal(t, history, "--mode", "sim")
	b.prompt()
	a.run("a1 = 1", "a one")
	b.run("b1 = 1", "b one")
	a.run("a2 = 2", "a two")
	b.send("\x04")
	b.exit()
	a.send("\x04")
	a.exit()
	want := []string{"old = 0", `a1 = 1; print("a " .. "one")`, `b1 = 1; print("b " .. "one")`, `a2 = 2; print("a " .. "two")`}
	if got := historyLines(t, history); !slices.Equal(got, want) {
		t.Errorf("history %q, want %q", got, want)
	}
	c := startTerminal(t, history, "--mode", "sim")
	c.prompt()
	c.send("\x1b[A")
	c.expect(`a2 = 2; print("a " .. "two")`)
	c.send("\x1b[A")
	c.expect(`b1 = 1; print("b " .. "one")`)
	c.send("\x15\x04")
	c.exit()
}

func TestREPLHistoryThatCannotBeSaved(t *testing.T) {
	// A history file that cannot be written: the REPL says so once, and
	// works on with the lines of this session.
	history := filepath.Join(t.TempDir(), "missing", "history")
	tm := startTerminal(t, history, "--mode", "sim")
	tm.prompt()
	tm.run("y = 1", "first")
	tm.run("y = 2", "second")
	tm.send("\x1b[A")
	tm.expect(`y = 2; print("sec" .. "ond")`)
	tm.send("\x15\x04")
	tm.exit()
	out := tm.output()
	warning := "residentlua: cannot save the history in " + history
	if n := strings.Count(out, warning); n != 1 {
		t.Errorf("the warning %q came %d times, want once:\n%s", warning, n, out)
	}
}

func TestREPLShowsNestedTables(t *testing.T) {
	// Nested tables show to depth 3, a table inside itself is marked, and
	// a long list shows its first entries and counts the rest; what does
	// not fit on a line of 100 columns takes a line an entry.
	r := runCmd(t, "", "t = {1, {2, {3, {4}}}}; t.self = t\nt\nlocal l = {} for i = 1, 57 do l[i] = i end return l\n"+
		"s = startup{}; s:submit_gpu(); s:submit_npu(); s:start(); s:wait(1)\ns:stats()\nprint('events', #s:events())\ns:events()\n", "-i", "--mode", "sim", "--seed", "1")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout,
		"{ 1, { 2, { 3, {...} } }, self = <cycle> }\n",
		"{ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, … 37 more }\n",
		"  gpu = { accepted = 0, device = \"gpu0\", observed = 0, retired = 0 },\n",
		"  verification = { ok = true, rounds = 1, verified = 1 }\n}\n",
		"  { a = 1, actor = \"host\", b = 64, detail = \"\", kind = \"alloc\", seq = 1, session = 1, time = 0 },\n",
	)
	var events int
	if _, err := fmt.Sscanf(r.stdout[strings.Index(r.stdout, "events\t"):], "events\t%d", &events); err != nil || events <= showFields {
		t.Fatalf("the session has %d events, %v; want more than %d to summarise", events, err, showFields)
	}
	contains(t, "stdout", r.stdout, fmt.Sprintf("  … %d more\n}\n", events-showFields))
	for _, l := range strings.Split(r.stdout, "\n") {
		if utf8.RuneCountInString(l) > showWidth+2 { // the prompt's "> " before a table's first line
			t.Errorf("a line of %d columns: %s", utf8.RuneCountInString(l), l)
		}
	}
}

func TestREPLCoroutineAcrossLines(t *testing.T) {
	// A coroutine made by one line resumes in the next: the context the
	// command gives each line (which Ctrl-C cancels, and which ends with
	// the line) is the running line's, not the one of the line that made
	// the coroutine.
	r := runCmd(t, "", "co = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i * 10) end end)\nprint(co())\nprint(co())\n", "-i", "--mode", "sim")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "10\n", "20\n")
	if strings.Contains(r.stderr, "context canceled") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}
