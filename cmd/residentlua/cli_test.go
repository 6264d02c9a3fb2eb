package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tests in this file check the command the way lua.c's own tests check
// lua: by running it and looking at exit status, standard output and
// standard error.

func TestVersionAndHelp(t *testing.T) {
	r := runCmd(t, "", "", "-v")
	r.wantCode(t, 0)
	// On standard error, as lua.c writes it.
	contains(t, "-v stderr", r.stderr, "residentlua ", "(gopher-lua v1.1.2, Lua 5.1)")
	if r.stdout != "" {
		t.Errorf("-v wrote %q to standard output; lua.c writes its version to standard error", r.stdout)
	}

	r = runCmd(t, "", "", "--help")
	r.wantCode(t, 0)
	contains(t, "--help stdout", r.stdout,
		"usage: residentlua [options] [script [args]]",
		"-e stat", "-i ", "-l mod", "-l g=mod", "-v, --version", "--  ", "-  ",
		"--mode sim|realtime", "--wait spin|hybrid|block", "--seed N", "--timing ideal|published", "--gpu sim|cuda", "--trace FILE", "--stats FILE", "--verbose", "--help")
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-x"}, "unrecognized option '-x'"},
		{[]string{"--frobnicate"}, "unrecognized option '--frobnicate'"},
		{[]string{"-e"}, "'-e' needs argument"},
		{[]string{"-l"}, "'-l' needs argument"},
		{[]string{"-e", "-i"}, "'-e' needs argument"},
		{[]string{"--mode", "fast"}, `--mode "fast": use sim or realtime`},
		{[]string{"--wait", "busy"}, `--wait "busy": use spin, hybrid or block`},
		{[]string{"--timing=slow"}, `--timing "slow": use ideal or published`},
		{[]string{"--seed", "-3"}, `--seed "-3": give a whole number from 1 to 2^53-1`},
		{[]string{"--seed", "9007199254740992"}, `--seed "9007199254740992": give a whole number from 1 to 2^53-1`},
		{[]string{"--trace", "-e", "print(1)"}, `--trace "-e": give a file name (this looks like an option)`},
		{[]string{"--trace", "same.json", "--stats", "same.json"}, `--stats same.json is the same file as --trace: give --stats a file of its own`},
		{[]string{"--gpu", "rocm"}, `--gpu "rocm": use sim or cuda`},
		{[]string{"--trace"}, "'--trace' needs argument"},
	} {
		r := runCmd(t, "", "", tc.args...)
		r.wantCode(t, 1)
		contains(t, strings.Join(tc.args, " ")+" stderr", r.stderr, "residentlua: "+tc.want, "usage: residentlua")
	}
}

// --wait sets the default fabric's wait policy, and the fabrics a script
// makes inherit it.
func TestWaitOption(t *testing.T) {
	r := runCmd(t, "", "", "--wait", "block", "-e", `print(resident.fabric().wait, resident.fabric{seed = 2}.wait)`)
	r.wantCode(t, 0)
	if r.stdout != "block\tblock\n" {
		t.Errorf("stdout %q, want %q", r.stdout, "block\tblock\n")
	}
}

func TestExecAndExitStatus(t *testing.T) {
	r := runCmd(t, "", "", "-e", "print(1+1)")
	r.wantCode(t, 0)
	if r.stdout != "2\n" {
		t.Errorf("stdout %q, want %q", r.stdout, "2\n")
	}

	// An error: exit status 1, the message and a traceback on stderr, and
	// nothing after the failing step runs.
	r = runCmd(t, "", "", "-e", "local function f() error('boom') end f()", "-e", "print('not reached')")
	r.wantCode(t, 1)
	contains(t, "stderr", r.stderr, "residentlua: (command line):1: boom", "stack traceback:", "in function 'f'", "in main chunk")
	if strings.Contains(r.stdout, "not reached") {
		t.Errorf("a step after the failing one ran: %q", r.stdout)
	}
}

func TestScriptErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "fail.lua", "local function inner()\n  error('script failed')\nend\ninner()\n")
	writeFile(t, dir, "syntax.lua", "print(('x'\n")
	writeFile(t, dir, "errobj.lua", "error(setmetatable({}, {__tostring = function() return 'custom error' end}))\n")
	writeFile(t, dir, "errtable.lua", "error({})\n")
	writeFile(t, dir, "protocol.lua", "resident.fabric{mode = 'sim', seed = 1}\nresident.fault('no.such.site', 'hang')\n")
	for _, tc := range []struct {
		script string
		wants  []string
	}{
		{"fail.lua", []string{"residentlua: fail.lua:2: script failed", "stack traceback:", "fail.lua:2: in function 'inner'", "fail.lua:4: in main chunk"}},
		{"syntax.lua", []string{"residentlua: syntax.lua:2: ')' expected (to close '(' at line 1) near '<eof>'"}},
		{"errobj.lua", []string{"residentlua: custom error", "stack traceback:"}},
		{"errtable.lua", []string{"residentlua: (error object is not a string)"}},
		{"protocol.lua", []string{"residentlua: invalid: ", "no.such.site"}},
		{"missing.lua", []string{"residentlua: cannot open missing.lua: No such file or directory"}},
	} {
		r := runCmd(t, dir, "", tc.script)
		r.wantCode(t, 1)
		contains(t, tc.script+" stderr", r.stderr, tc.wants...)
	}
}

func TestArgTable(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "args.lua", "for i = -6, #arg do print(i, arg[i]) end\nprint('...', select('#', ...), ...)\n")
	r := runCmd(t, dir, "", "--mode", "sim", "-e", "x=1", "args.lua", "a", "b c")
	r.wantCode(t, 0)
	want := strings.Join([]string{
		"-6\tnil",
		"-5\t" + binary,
		"-4\t--mode",
		"-3\tsim",
		"-2\t-e",
		"-1\tx=1",
		"0\targs.lua",
		"1\ta",
		"2\tb c",
		"...\t2\ta\tb c",
	}, "\n") + "\n"
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}

	// With no script, arg[0] is the interpreter and the options follow.
	r = runCmd(t, dir, "", "-e", "print(arg[0] == arg[-0], arg[1], arg[2], arg[-1])")
	r.wantCode(t, 0)
	if r.stdout != "true\t-e\tprint(arg[0] == arg[-0], arg[1], arg[2], arg[-1])\tnil\n" {
		t.Errorf("no script: stdout %q", r.stdout)
	}
}

func TestStdinScript(t *testing.T) {
	// "-" runs standard input, with the words after it as arguments.
	r := runCmd(t, "", "print('from stdin', arg[0], ...)\n", "-", "x", "y")
	r.wantCode(t, 0)
	if r.stdout != "from stdin\t-\tx\ty\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	// With no script and standard input not a terminal, it is run as a script.
	r = runCmd(t, "", "print(40 + 2)\n")
	r.wantCode(t, 0)
	if r.stdout != "42\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	// Its errors are reported like a script's, with the chunk named stdin.
	r = runCmd(t, "", "error('bad input')\n")
	r.wantCode(t, 1)
	contains(t, "stderr", r.stderr, "residentlua: stdin:1: bad input", "stack traceback:")
	// -e alone does not read standard input.
	r = runCmd(t, "", "print('stdin ran')\n", "-e", "print('e ran')")
	if r.stdout != "e ran\n" {
		t.Errorf("-e with stdin: stdout %q", r.stdout)
	}
}

func TestShebangLine(t *testing.T) {
	// A first line starting with '#' is skipped, and line numbers stay right.
	dir := t.TempDir()
	writeFile(t, dir, "run.lua", "#!/usr/bin/env residentlua\nprint('ran')\nerror('line three')\n")
	r := runCmd(t, dir, "", "run.lua")
	r.wantCode(t, 1)
	if r.stdout != "ran\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	contains(t, "stderr", r.stderr, "run.lua:3: line three")
}

func TestDoubleDash(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "-odd.lua", "print('odd script', ...)\n")
	// After "--" the next word is the script, even one starting with '-',
	// and the words after it are its arguments, even ones that look like options.
	r := runCmd(t, dir, "", "--", "-odd.lua", "-e", "--mode")
	r.wantCode(t, 0)
	if r.stdout != "odd script\t-e\t--mode\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	// "--" with nothing after it: no script; stdin is run.
	r = runCmd(t, dir, "print('stdin after --')", "--")
	r.wantCode(t, 0)
	if r.stdout != "stdin after --\n" {
		t.Errorf("stdout %q", r.stdout)
	}
}

func TestExecAndRequireOrder(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "mod.lua", "print('loading mod')\nreturn {v = 7}\n")
	writeFile(t, dir, "other-v2.lua", "return {w = 8}\n")
	r := runCmd(t, dir, "",
		"-e", "print('first', mod)",
		"-l", "mod",
		"-e", "print('then', mod.v)",
		"-l", "m=mod",
		"-lother-v2",
		"-eprint('last', m.v, other.w)")
	r.wantCode(t, 0)
	want := "first\tnil\nloading mod\nthen\t7\nlast\t7\t8\n"
	if r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
	// -l resident works too: the module is preloaded.
	r = runCmd(t, dir, "", "-l", "resident", "-e", "print(resident == require('resident'))")
	r.wantCode(t, 0)
	if r.stdout != "true\n" {
		t.Errorf("-l resident: stdout %q", r.stdout)
	}
	// A module that cannot be found fails like an error in a chunk.
	r = runCmd(t, dir, "", "-l", "nosuchmodule", "-e", "print('not reached')")
	r.wantCode(t, 1)
	contains(t, "stderr", r.stderr, "residentlua: ", "nosuchmodule")
}

func TestGlobals(t *testing.T) {
	r := runCmd(t, "", "", "--mode", "sim", "--seed", "7", "-e",
		"print(type(resident), type(startup), type(submit_gpu), type(submit_npu), type(start), type(abort), type(wait), resident.seed())")
	r.wantCode(t, 0)
	if r.stdout != "table\tfunction\tfunction\tfunction\tfunction\tfunction\tfunction\t7\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	contains(t, "stderr", r.stderr, "mode=sim seed=7")

	// The verbs as globals drive a whole lifecycle.
	r = runCmd(t, "", "", "--mode", "sim", "--seed", "1", "-e",
		"local s = startup{}; submit_gpu(s); submit_npu(s); start(s); print(wait(s, 1)); print(s:close())")
	r.wantCode(t, 0)
	if r.stdout != "true\nretired\n" {
		t.Errorf("stdout %q", r.stdout)
	}
}

func TestOpenSessionsClosedAtExit(t *testing.T) {
	// Normal end, an error, and os.exit all close the sessions still open
	// and report each one.
	for _, tc := range []struct {
		name  string
		chunk string
		code  int
	}{
		{"normal", "s = startup{}; s:submit_gpu()", 0},
		{"error", "s = startup{}; s:submit_gpu(); error('stop')", 1},
		{"os.exit", "s = startup{}; s:submit_gpu(); os.exit(3)", 3},
		{"os.exit(false), an error", "s = startup{}; s:submit_gpu(); os.exit(false)", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			stats := filepath.Join(dir, "stats.json")
			r := runCmd(t, dir, "", "--mode", "sim", "--seed", "1", "--stats", stats, "-e", tc.chunk)
			r.wantCode(t, tc.code)
			contains(t, "stderr", r.stderr, "resident: closed session 1 at exit: retired")
			var got []map[string]any
			data, err := os.ReadFile(stats)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &got); err != nil || len(got) != 1 {
				t.Fatalf("stats %s: %v, %d sessions", data, err, len(got))
			}
		})
	}
}

func TestStatsFile(t *testing.T) {
	dir := t.TempDir()
	stats := filepath.Join(dir, "stats.json")
	r := runCmd(t, dir, "", "--mode", "sim", "--seed", "1", "--stats", stats, "-e", `
		for i = 1, 2 do
			local s = startup{rounds = 3, slot_bytes = 128}
			s:submit_gpu(); s:submit_npu(); s:start(); assert(s:wait(1)); s:close()
		end`)
	r.wantCode(t, 0)
	data, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		ID           uint64 `json:"id"`
		Seed         uint64 `json:"seed"`
		State        string `json:"state"`
		Rounds       int    `json:"rounds"`
		Bytes        int64  `json:"bytes"`
		Decision     string `json:"decision"`
		Verification *struct {
			OK bool `json:"ok"`
		} `json:"verification"`
		GPU struct {
			Retired *float64 `json:"retired"`
		} `json:"gpu"`
		NPU struct {
			Retired *float64 `json:"retired"`
		} `json:"npu"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("stats is not JSON: %v\n%s", err, data)
	}
	if len(got) != 2 {
		t.Fatalf("%d sessions in stats, want 2:\n%s", len(got), data)
	}
	for _, s := range got {
		if s.Seed != 1 || s.State != "closed" && s.State != "retired" || s.Rounds != 3 || s.Bytes != 3*128 ||
			s.Decision != "run" || s.Verification == nil || !s.Verification.OK || s.GPU.Retired == nil || s.NPU.Retired == nil {
			t.Errorf("session stats %+v", s)
		}
	}

	// No session at all: an empty array.
	r = runCmd(t, dir, "", "--stats", stats, "-e", "print(1)")
	r.wantCode(t, 0)
	if data, _ := os.ReadFile(stats); strings.TrimSpace(string(data)) != "[]" {
		t.Errorf("stats with no session: %s", data)
	}

	// A file that cannot be written is refused before anything runs.
	missing := filepath.Join(dir, "no", "such")
	r = runCmd(t, dir, "", "--stats", filepath.Join(missing, "dir.json"), "-e", "print('ran')")
	r.wantCode(t, 1)
	contains(t, "stderr", r.stderr, "residentlua: --stats "+filepath.Join(missing, "dir.json")+": the directory "+missing+" does not exist; create it first")
	if strings.Contains(r.stdout, "ran") {
		t.Errorf("the chunk ran although --stats cannot be written: %q", r.stdout)
	}
}

func TestRunSeedDerivesEveryFabric(t *testing.T) {
	// Each fabric of a run gets its own seed, derived from the run's, so
	// that --seed replays the whole run; one fabric line unless --verbose.
	chunk := `local a = resident.seed(); resident.fabric{mode="sim"}; local b = resident.seed()
resident.fabric{mode="sim"}; print(a, b, resident.seed())`
	r1 := runCmd(t, "", "", "--mode", "sim", "--seed", "7", "-e", chunk)
	r2 := runCmd(t, "", "", "--mode", "sim", "--seed", "7", "-e", chunk)
	r1.wantCode(t, 0)
	if r1.stdout != r2.stdout {
		t.Errorf("the same --seed gave %q then %q", r1.stdout, r2.stdout)
	}
	seeds := strings.Fields(r1.stdout)
	if len(seeds) != 3 || seeds[0] != "7" || seeds[1] == seeds[0] || seeds[2] == seeds[1] {
		t.Errorf("fabric seeds %q: want 7, then two others", seeds)
	}
	if n := strings.Count(r1.stderr, "resident: fabric "); n != 1 {
		t.Errorf("%d fabric lines on stderr, want 1:\n%s", n, r1.stderr)
	}
	r3 := runCmd(t, "", "", "--mode", "sim", "--seed", "7", "--verbose", "-e", chunk)
	if n := strings.Count(r3.stderr, "resident: fabric "); n != 3 {
		t.Errorf("--verbose: %d fabric lines on stderr, want 3:\n%s", n, r3.stderr)
	}
	contains(t, "stderr", r3.stderr, "seed="+seeds[1], "seed="+seeds[2])
}

func TestLua51InTheCommand(t *testing.T) {
	// Scripts, -e chunks and standard input all run Lua 5.1: the counter of
	// gopher-lua issue 448 counts both cases, and numbers print as lua5.1
	// prints them (these outputs are lua5.1's).
	counter := `local n = 0
local function case(f) pcall(f); n = n + 1 end
case(function() end); case(function() error("x") end)
print(n, 0.1 + 0.2, 2^53, 1/0, "x" .. 1e16)`
	for _, r := range []result{runCmd(t, "", "", "-e", counter), runCmd(t, "", counter, "-")} {
		r.wantCode(t, 0)
		if r.stdout != "2\t0.3\t9.007199254741e+15\tinf\tx1e+16\n" {
			t.Errorf("stdout %q", r.stdout)
		}
	}
	// math.randomseed gives lua5.1's numbers, in every process.
	seeded := `math.randomseed(42); print(math.random(1, 1000), math.random(), math.random(10))`
	for i := 0; i < 2; i++ {
		if r := runCmd(t, "", "", "-e", seeded); r.stdout != "34\t0.32996420763897\t7\n" {
			t.Errorf("run %d: %q", i, r.stdout)
		}
	}
	// Without math.randomseed, the run's seed seeds math.random.
	draw := `print(math.random(1, 1000000), math.random(1, 1000000))`
	a, b := runCmd(t, "", "", "--seed", "5", "-e", draw), runCmd(t, "", "", "--seed", "5", "-e", draw)
	c := runCmd(t, "", "", "--seed", "6", "-e", draw)
	if a.stdout != b.stdout || a.stdout == c.stdout {
		t.Errorf("--seed 5 drew %q then %q; --seed 6 drew %q", a.stdout, b.stdout, c.stdout)
	}
}

func TestREPLShowsTableFields(t *testing.T) {
	// A table result shows its fields, sorted, long values cut, instead of
	// its address; a table with __tostring prints as usual.
	r := runCmd(t, "", "resident.budget()\n{3, 1, z = {}, a = string.rep('x', 70), [true] = 1}\nsetmetatable({}, {__tostring = function() return 'mine' end})\n", "-i", "--mode", "sim")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout,
		"{ charged = 0, limit = 1073741824, quarantined = 0 }\n",
		`{ 3, 1, a = "`+strings.Repeat("x", showValue-1)+`..., z = {}, [true] = 1 }`,
		"mine\n")
}

func TestPlainInteractive(t *testing.T) {
	// -i with standard input not a terminal: the REPL without line editing.
	// It prints values, continues incomplete chunks, survives errors.
	r := runCmd(t, "", "1+1\nfor i = 1, 2 do\nprint(i * 10)\nend\nerror('oops')\nprint('after')\n=3*3\n", "-i")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "> 2\n", ">> ", "10\n20\n", "after\n", "9\n")
	contains(t, "stderr", r.stderr, "(gopher-lua v1.1.2, Lua 5.1)", "stdin:1: oops", "stack traceback:")
	// -i after a script: the script's globals are there.
	dir := t.TempDir()
	writeFile(t, dir, "setx.lua", "x = 41\n")
	r = runCmd(t, dir, "x + 1\n", "-i", "setx.lua")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "> 42\n")
}

func TestInterruptScript(t *testing.T) {
	// SIGINT (Ctrl-C) stops a running script with an error, exit status 1,
	// and the run still ends properly: open sessions are closed and reported.
	dir := t.TempDir()
	writeFile(t, dir, "loop.lua", "s = startup{}\nprint('looping')\nio.stdout:flush()\nwhile true do end\n")
	cmd := exec.Command(binary, "--mode", "sim", "--seed", "1", "loop.lua")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), noExitSleep)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, len("looping\n"))
	if _, err := io.ReadFull(stdout, line); err != nil || string(line) != "looping\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1; stderr:\n%s", err, stderr.String())
	}
	contains(t, "stderr", stderr.String(), "residentlua: loop.lua:", ": interrupted\n", "resident: closed session 1 at exit: retired")
}

// --gpu cuda asks every fabric for the real GPU: without the driver or a
// GPU (CI) the first use fails, saying which was missing; with one the
// fabric names it.
func TestGPUOptionOpensTheCUDABackend(t *testing.T) {
	r := runCmd(t, "", "", "--gpu", "cuda", "-e", "print(resident.fabric().gpu)")
	if r.code == 0 {
		contains(t, "stdout", r.stdout, "cuda: ")
		return
	}
	r.wantCode(t, 1)
	contains(t, "stderr", r.stderr, "residentlua: unsupported: ")
	if !strings.Contains(r.stderr, "libcuda.so.1") && !strings.Contains(r.stderr, "no CUDA GPU") {
		t.Errorf("stderr %q names neither the driver library nor a missing GPU", r.stderr)
	}
}
