package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	// Under ulimit -v 2000000 and the default budget (a third of what is
	// left of the address space), what would make Go end the process
	// with "fatal error: out of memory" is Lua 5.1's "not enough memory":
	// pcall catches it, and the REPL goes on after each.
	bin, err := plainBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `ulimit -v 2000000 && exec "$0" "$@"`, bin, "--mode", "sim")
	tm := startOnTerminal(t, filepath.Join(t.TempDir(), "history"), cmd)
	tm.prompt()
	for _, chunk := range []string{
		`s = string.rep("x", 1e10)`,
		`s = ("x"):rep(1e9):rep(100)`,
		`t = {} while true do t[#t + 1] = ("x"):rep(2^20) end`,
		`t = {} t[2^26 - 1] = 1`,
		`n = 2^26 - 1; t = {[n] = 1}`,
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

func TestNoFatalErrorUnderUlimit(t *testing.T) {
	// Under ulimit -v 2000000 (the process idles at about 1.5 GB of
	// address space, Go's own reservations 1.1 GB of it), what would take
	// the rest in one step ends in Lua 5.1's "not enough memory" or the
	// command's own error, never in Go's "fatal error: out of memory".
	bin, err := plainBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		code  int
		want  string
	}{
		{"a table's array filled to 4e6", []string{"-e", `local t = {} t[4e6] = 1 print("stored", #t)`}, "", 0, "stored\t4000000"},
		{"a constant key of 2^26 - 1", []string{"-e", `print(pcall(function() local t = {} t[2^26 - 1] = 1 end))`}, "", 0, "false\tnot enough memory"},
		{"a variable key", []string{"-e", `local n = 2^26 - 1 local t = {} t[n] = 1`}, "", 1, "not enough memory"},
		{"a constructor's key", []string{"-e", `local n = 2^26 - 1 local t = {[n] = 1}`}, "", 1, "not enough memory"},
		{"rawset", []string{"-e", `rawset({}, 2^26 - 1, 1)`}, "", 1, "not enough memory"},
		{"table.insert", []string{"-e", `table.insert({}, 2^26 - 1, 1)`}, "", 1, "not enough memory"},
		{"a script on stdin", []string{"-"}, "local t = {} t[2^26 - 1] = 1\n", 1, "not enough memory"},
		{"string.rep", []string{"-e", `local s = ("x"):rep(1e9)`}, "", 1, "not enough memory"},
		{"io.read of 2^31 bytes", []string{"-e", `local s = io.open("/dev/zero"):read(2^31)`}, "", 1, "not enough memory"},
		{"os.date", []string{"-e", `local s = os.date(("%c"):rep(2e7))`}, "", 1, "not enough memory"},
		{"suspended coroutines", []string{"-e", `local t = {} for i = 1, 1e7 do local co = coroutine.create(function() coroutine.yield() end) coroutine.resume(co) t[i] = co end`}, "", 1, "not enough memory"},
		{"a table a loop fills", []string{"-e", `local t = {} for i = 1, 1e8 do t[i] = {i} end`}, "", 1, "not enough memory"},
		{"/dev/zero as a script", []string{"/dev/zero"}, "", 1, "it is larger than 4 MiB"},
		{"campaign /dev/zero", []string{"campaign", "/dev/zero"}, "", 2, "it is larger than 4 MiB"},
		{"check /dev/zero", []string{"check", "/dev/zero"}, "", 2, "it is larger than 4 MiB"},
		{"campaign --workers 20000", []string{"campaign", "--trials", "10", "--workers", "20000"}, "", 2, "--workers 20000: each worker needs room"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("/bin/sh", append([]string{"-c", `ulimit -v 2000000 && exec "$0" "$@"`, bin}, c.args...)...)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(c.stdin)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			code := 0
			if exit, ok := err.(*exec.ExitError); ok {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			for _, crash := range []string{"fatal error", "panic:", "goroutine "} {
				if strings.Contains(out.String(), crash) {
					t.Fatalf("the output has %q:\n%s", crash, out.String())
				}
			}
			if code != c.code || !strings.Contains(out.String(), c.want) {
				t.Errorf("exit status %d and output\n%s\nwant status %d and %q", code, out.String(), c.code, c.want)
			}
		})
	}
}
