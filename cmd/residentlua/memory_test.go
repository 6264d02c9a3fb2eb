package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

func TestMemoryLimitOption(t *testing.T) {
	o, err := parseArgs([]string{"rl", "--memory-limit", "512MiB", "--memory-limit=4GiB", "x.lua"})
	if err != nil || o.memoryLimit != 4<<30 {
		t.Fatalf("--memory-limit 512MiB --memory-limit=4GiB: %v, %d", err, o.memoryLimit)
	}
	r := runCmd(t, "", "", "--memory-limit", "lots", "-e", "print(1)")
	r.wantCode(t, 1)
	contains(t, "stderr", r.stderr, `residentlua: --memory-limit: memory size "lots": give a positive number of bytes with a unit, such as 512MiB or 4GiB`, "usage: residentlua")
	r = runCmd(t, "", "", "--help")
	contains(t, "--help", r.stdout, "--memory-limit SIZE")
	// Past the limit, Lua 5.1's error, which pcall catches; within it, the
	// string is built.
	r = runCmd(t, "", "", "--memory-limit", "64MiB", "-e",
		`print(pcall(string.rep, "x", 1e8)) print(#("x"):rep(1e7))`)
	r.wantCode(t, 0)
	if r.stdout != "false\tnot enough memory\n10000000\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	// An uncaught one ends the script as any error does, with status 1.
	r = runCmd(t, "", "", "--memory-limit", "64MiB", "-e", `local s = string.rep("x", 1e8)`)
	r.wantCode(t, 1)
	contains(t, "stderr", r.stderr, "residentlua: not enough memory")
}

// plainBinary is the command built without the race detector, whose
// runtime reserves more address space than a ulimit -v test allows.
var plainBinary = sync.OnceValues(func() (string, error) {
	if !raceEnabled {
		return binary, nil
	}
	path := filepath.Join(filepath.Dir(binary), "residentlua-norace")
	build := exec.Command("go", "build", "-o", path, ".")
	build.Stderr = os.Stderr
	return path, build.Run()
})

func TestREPLSurvivesNotEnoughMemory(t *testing.T) {
	// Under ulimit -v 4000000 and the default budget (a third of what is
	// left of the address space), what would make Go end the process
	// with "fatal error: out of memory" is Lua 5.1's "not enough memory":
	// pcall catches it, and the REPL goes on after each.
	bin, err := plainBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `ulimit -v 4000000 && exec "$0" "$@"`, bin, "--mode", "sim")
	tm := startOnTerminal(t, filepath.Join(t.TempDir(), "history"), cmd)
	tm.prompt()
	for _, chunk := range []string{
		`s = string.rep("x", 1e10)`,
		`s = ("x"):rep(1e9):rep(100)`,
		`t = {} while true do t[#t + 1] = ("x"):rep(2^20) end`,
	} {
		tm.send(`print(pcall(function() ` + chunk + ` end))` + "\r")
		tm.expect("false\tnot enough memory\r\n")
		tm.prompt()
		// Uncaught, it is reported as any error, and the REPL goes on.
		tm.send(chunk + "\r")
		tm.expect("not enough memory")
		tm.expect("stack traceback:")
		tm.run(`t = nil; collectgarbage()`, "still here")
	}
	tm.run(`local s = ("x"):rep(1e8); print(#s)`, "and working")
	tm.send("\x04")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit status %d after Ctrl-D", code)
	}
}
