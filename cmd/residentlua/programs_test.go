package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// callbackRoutes are the ways a program's Lua code can be called by Go
// rather than by the program's own code: a memory operation there cannot
// stop the program for its executor.
var callbackRoutes = []string{"iter", "gsub", "sort", "index", "add", "tostring", "concat"}

// callbackProgram is a GPU program that makes a memory operation inside the
// callback named by its first line's route, then polls the startup word.
const callbackProgram = `local route = %q
return function(p, args)
	local b = p.startup
	if route == "iter" then
		local function words(buf, n)
			local i = 0
			return function() i = i + 1 if i <= n then return i, p:load(buf, 0) end end
		end
		for i, w in words(b, 4) do end
	elseif route == "gsub" then
		string.gsub("abc", "%%w", function(c) return tostring(p:load(b, 0)) end)
	elseif route == "sort" then
		table.sort({3, 1, 2}, function(x, y) p:load(b, 0) return x < y end)
	elseif route == "index" then
		local _ = setmetatable({}, {__index = function() return p:load(b, 0) end}).x
	elseif route == "add" then
		local _ = setmetatable({}, {__add = function() return p:load(b, 0) end}) + 1
	elseif route == "tostring" then
		local _ = tostring(setmetatable({}, {__tostring = function() return tostring(p:load(b, 0)) end}))
	elseif route == "concat" then
		local _ = setmetatable({}, {__concat = function() return tostring(p:load(b, 0)) end}) .. "x"
	end
	while p:load(b, 0) == p.WAIT do end
end
`

// callbackScript makes a program of each route and runs a session of it:
// as a campaign's trial script (trial(t) runs route t.index), or, run
// directly, every route in turn, printing what wait raised.
const callbackScript = `local routes = {"iter", "gsub", "sort", "index", "add", "tostring", "concat"}
local src = [==[` + callbackProgram + `]==]
local progs = {}
for _, r in ipairs(routes) do progs[r] = resident.program{source = string.format(src, r), name = r} end
local npu = resident.program{source = "return function(p) while p:load(p.startup, 0) == p.WAIT do end end", name = "npu"}
local function run(route)
	local s = resident.startup{gpu = progs[route], npu = npu}
	s:submit_gpu(); s:submit_npu(); s:start()
	local ok, err = pcall(s.wait, s, 1)
	local closed = s:close()
	resident.reset("gpu0"); resident.reset("npu0")
	return ok, tostring(err), closed
end
function trial(t)
	local route = routes[t.index % #routes + 1]
	local ok, err = run(route)
	if not ok then t.fail(err) end
end
if arg and arg[-1] ~= "campaign" then -- run directly, not by a campaign
	for _, route in ipairs(routes) do
		local ok, err, closed = run(route)
		print(route, ok, closed, (err:gsub("\n.*", "")))
	end
end
`

// A memory operation inside a callback (an iterator, a library function's
// callback, a metamethod) fails the program with an error that says so, in
// either time, instead of crashing the process; in a campaign each such
// trial is a failure, and the campaign writes its summary and its --out.
func TestProgramMemoryOperationInACallback(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "callbacks.lua", callbackScript)
	for _, mode := range []string{"sim", "realtime"} {
		r := runCmd(t, dir, "", "--mode", mode, script)
		r.wantCode(t, 0)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != len(callbackRoutes) {
			t.Fatalf("%s: %d lines, want one per route:\n%s\n%s", mode, len(lines), r.stdout, r.stderr)
		}
		for i, route := range callbackRoutes {
			contains(t, mode+" "+route, lines[i], route+"\tfalse\tquarantined\tdevice: run: "+route+":",
				"p:load was called inside a function that Lua's library or a metamethod called")
		}
	}
	out := filepath.Join(dir, "trials.jsonl")
	r := runCmd(t, dir, "", "campaign", script, "--trials", "14", "--workers", "2", "--out", out)
	r.wantCode(t, 1)
	contains(t, "summary", r.stdout, "campaign: 14 trials", "failures: 14", "FAIL seed 7 (failed): device: run: concat:")
	if n := strings.Count(string(readFile(t, out)), "\n"); n != 14 {
		t.Errorf("--out has %d lines, want 14", n)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}

// runProgramScript runs a session whose GPU program's text is the script's
// argument and prints what wait raised (its first line) and what close
// said.
const runProgramScript = `local src = ...
local gpu = resident.program{source = src, name = "gpu"}
local npu = resident.program{source = "return function(p) while p:load(p.startup, 0) == p.WAIT do end end", name = "npu"}
local s = resident.startup{gpu = gpu, npu = npu}
s:submit_gpu(); s:submit_npu(); s:start()
local ok, err = pcall(s.wait, s, 5)
print(ok, (tostring(err):gsub("\n.*", "")))
print(s:close())
`

// A program's state has the host's --memory-limit: a string or a table past
// it fails the program with Lua's "not enough memory", as it would fail the
// host's script.
func TestProgramMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "run.lua", runProgramScript)
	for _, src := range []string{
		`return function(p) local s = string.rep("a", 600 * 2^20) end`,
		`return function(p) local t = {} for i = 1, 1e9 do t[i] = i if i % 100000 == 0 then p:load(p.startup, 0) end end end`,
	} {
		r := runCmd(t, dir, "", "--mode", "sim", "--memory-limit", "24MiB", script, src)
		r.wantCode(t, 0)
		contains(t, src, r.stdout, "false\tdevice: run: not enough memory", "quarantined")
	}
}

// catastrophicFind is a pattern search whose steps number about 3000^5/120:
// no run ends it but a bound.
const catastrophicFind = `string.rep("a", 3000):find(".-.-.-.-b")`

// A pattern search in a program counts against its instruction budget, in
// simulated time; in real time a reset of the device stops a program inside
// one, whatever its budget, and returns.
func TestProgramLongLibraryCallIsBounded(t *testing.T) {
	dir := t.TempDir()
	budget := writeFile(t, dir, "budget.lua", `local gpu = resident.program{name = "gpu", instructions = 100000,
	source = 'return function(p) `+catastrophicFind+` end'}
local npu = resident.program{source = "return function(p) while p:load(p.startup, 0) == p.WAIT do end end", name = "npu"}
local s = resident.startup{gpu = gpu, npu = npu}
s:submit_gpu(); s:submit_npu(); s:start()
local ok, err = pcall(s.wait, s, 5)
print(ok, (tostring(err):gsub("\n.*", "")))
`)
	r := runCmd(t, dir, "", "--mode", "sim", budget)
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "false\tdevice: run: gpu:1: the program ran 100000 Lua instructions without a memory operation")

	reset := writeFile(t, dir, "reset.lua", `local gpu = resident.program{name = "gpu", instructions = 1e12,
	source = 'return function(p) `+catastrophicFind+` end'}
local npu = resident.program{source = "return function(p) while p:load(p.startup, 0) == p.WAIT do end end", name = "npu"}
local s = resident.startup{gpu = gpu, npu = npu}
s:submit_gpu(); s:submit_npu(); s:start()
print("wait", s:wait(0.2))
resident.reset("gpu0"); resident.reset("npu0")
print("reset", s:close())
`)
	r = runCmd(t, dir, "", "--mode", "realtime", reset)
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "wait\tfalse\nreset\tquarantined")
}

// slowTrialScript is a campaign whose trial at index 1 is a pattern search
// no run ends; it first writes the file named by its environment's
// SLOW_MARK, so that a test knows when it began.
const slowTrialScript = `function trial(t)
	if t.index == 1 then
		local mark = os.getenv("SLOW_MARK")
		if mark then io.open(mark, "w"):close() end
		` + catastrophicFind + `
	end
	t.record("x", 1)
end
`

// A campaign's --trial-timeout and SIGTERM stop a trial inside a long
// library call, and the campaign writes its files.
func TestCampaignStopsATrialInALongLibraryCall(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "slow.lua", slowTrialScript)
	out := filepath.Join(dir, "t.jsonl")
	r := runCmd(t, dir, "", "campaign", script, "--trials", "3", "--workers", "1", "--trial-timeout", "1s", "--out", out)
	r.wantCode(t, 1)
	contains(t, "summary", r.stdout, "FAIL seed 2 (timeout): the trial ran past its time limit")
	if n := strings.Count(string(readFile(t, out)), "\n"); n != 3 {
		t.Errorf("--out has %d lines, want 3", n)
	}

	mark, sum := filepath.Join(dir, "mark"), filepath.Join(dir, "s.json")
	cmd := exec.Command(binary, "campaign", script, "--trials", "3", "--workers", "1", "--out", out, "--summary", sum)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), noExitSleep, "SLOW_MARK="+mark)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the slow trial never began")
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 143 {
			t.Fatalf("exit %v, want status 143; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("SIGTERM did not stop the campaign inside the pattern search")
	}
	contains(t, "stdout", stdout.String(), "1  interrupted")
	contains(t, "--out", string(readFile(t, out)), `"index":1,"seed":2,"outcome":"interrupted"`)
	contains(t, "summary file", string(readFile(t, sum)), `"trials": `)
}

// Under ulimit -v 2000000 and the default budget, a table that a script or
// a program fills, one doubling of its array after another, ends in Lua's
// "not enough memory", never in Go's fatal out of memory: the budget's
// checks leave room in the address space for the next doubling. So does
// the compile of a chunk of 20 MB, which the budget is asked for first.
func TestTablesFilledUnderAnAddressSpaceLimit(t *testing.T) {
	bin, err := plainBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := writeFile(t, dir, "run.lua", runProgramScript)
	for _, args := range [][]string{
		{"-e", `local t = {} for i = 1, 1e9 do t[i] = i end`},
		{"-e", `print(loadstring(("x=1\n"):rep(5e6)))`}, // a compile takes about 100 bytes a byte of source
		{"--mode", "sim", script, `return function(p) local t = {} for i = 1, 1e9 do t[i] = i if i % 100000 == 0 then p:load(p.startup, 0) end end end`},
	} {
		cmd := exec.Command("/bin/sh", append([]string{"-c", `ulimit -v 2000000 && exec "$0" "$@"`, bin}, args...)...)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "not enough memory") || strings.Contains(string(out), "fatal error") {
			t.Errorf("%q: want not enough memory, got:\n%.2000s", args, out)
		}
	}
}

// What a run keeps of a program's failure is bounded: a stack overflow's
// traceback shows the first 12 levels and the last 10, saying how many it
// left out, and a long message is cut, saying how long it was.
func TestProgramFailuresAreBounded(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "fail.lua", `local src = ...
local gpu = resident.program{source = src, name = "gpu"}
local npu = resident.program{source = "return function(p) while p:load(p.startup, 0) == p.WAIT do end end", name = "npu"}
local s = resident.startup{gpu = gpu, npu = npu}
s:submit_gpu(); s:submit_npu(); s:start()
local ok, err = pcall(s.wait, s, 5)
io.write(tostring(err))
`)
	r := runCmd(t, dir, "", "--mode", "sim", script, `local function f(n) return 1 + f(n + 1) end return function(p) f(1) end`)
	r.wantCode(t, 0)
	contains(t, "stack overflow", r.stdout, "device: run: stack overflow\nstack traceback:\n\tgpu:1: in function 'f'\n", "\t...\t(skipping ", " levels)\n\tgpu:1: in function 'f'\n")
	if n := strings.Count(r.stdout, "\n"); n > 25 {
		t.Errorf("the traceback has %d lines, want at most 25:\n%.3000s", n, r.stdout)
	}
	r = runCmd(t, dir, "", "--mode", "sim", script, `return function(p) error(string.rep("x", 1e6)) end`)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "xxx ... (a message of 1000007 bytes, cut to its first 4096)") {
		t.Errorf("the long message is not cut as it should be: %.200s ... %.200s", r.stdout, r.stdout[max(len(r.stdout)-200, 0):])
	}
	if len(r.stdout) > 5000 {
		t.Errorf("the message has %d bytes, want it cut", len(r.stdout))
	}
	// An error value tostring cannot make a string of is said so, not as
	// an empty message.
	r = runCmd(t, dir, "", "--mode", "sim", script, `return function(p) error(setmetatable({}, {__tostring = function() return {} end})) end`)
	r.wantCode(t, 0)
	contains(t, "error object", r.stdout, "device: run: (an error value that tostring cannot describe: a table whose __tostring gave a table)")
}

// Invocations are isolated: a program that writes through getfenv(0), the
// metatable of _G, the string library and the strings' metatable, and p,
// and looks for the runtime's frames (getfenv(2)), is seen by no later
// invocation. A campaign of it prints the same summary for 1, 2 and 4
// workers, failing only the trials whose program breaks itself, and the
// replay of one reproduces its failure.
func TestCampaignOfTamperingProgramsIsTheSameForAnyWorkers(t *testing.T) {
	const script = "cmd/residentlua/testdata/tamper.lua"
	var first string
	for _, workers := range []string{"1", "2", "4"} {
		r := campaignRun(t, nil, script, "--trials", "60", "--seed", "1", "--workers", workers)
		r.wantCode(t, 1)
		if first == "" {
			first = r.stdout
			contains(t, "summary", r.stdout, "50  ok", "10  failed", "failures: 10", "FAIL seed 4 (failed): pmeta: device: run: tamper:20: attempt to call")
			if strings.Contains(r.stdout, "leaked") {
				t.Errorf("an invocation saw what an earlier one did:\n%s", r.stdout)
			}
		} else if r.stdout != first {
			t.Errorf("%s workers print another summary than 1:\n%s\n---\n%s", workers, r.stdout, first)
		}
	}
	r := campaignRun(t, nil, script, "--trials", "60", "--seed", "1", "--replay", "4")
	r.wantCode(t, 1)
	contains(t, "replay", r.stdout, "pmeta: device: run: tamper:20: attempt to call")
}

// A program hits the runtime's sites and its own, never a site only another
// program declared.
func TestProgramHitsOnlyItsOwnSites(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "site.lua", `local other = resident.program{source = 'return {sites = {"mine.drop"}, run = function(p) end}', name = "other"}
local gpu = resident.program{source = 'return function(p) p:fault("gpu.run") p:fault("mine.drop") end', name = "gpu"}
local npu = resident.program{source = "return function(p) while p:load(p.startup, 0) == p.WAIT do end end", name = "npu"}
local s = resident.startup{gpu = gpu, npu = npu}
s:submit_gpu(); s:submit_npu(); s:start()
local ok, err = pcall(s.wait, s, 1)
print(ok, (tostring(err):gsub("\n.*", "")))
`)
	r := runCmd(t, dir, "", "--mode", "sim", script)
	contains(t, "stdout", r.stdout, `false	device: run: gpu:1: p:fault: mine.drop is a site another program declared; declare it in this program's sites (sites = {"mine.drop"}) to hit it`)
}
