package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
if arg then
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
			contains(t, mode+" "+route, lines[i], route+"\tfalse\tquarantined\tdevice: "+route+":",
				"p:load was called inside a function that Lua's library or a metamethod called")
		}
	}
	out := filepath.Join(dir, "trials.jsonl")
	r := runCmd(t, dir, "", "campaign", script, "--trials", "14", "--workers", "2", "--out", out)
	r.wantCode(t, 1)
	contains(t, "summary", r.stdout, "campaign: 14 trials", "failures: 14", "FAIL seed 7 (failed): device: concat:")
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
		r := runCmd(t, dir, "", "--mode", "sim", "--memory-limit", "96MiB", script, src)
		r.wantCode(t, 0)
		contains(t, src, r.stdout, "false\tdevice: not enough memory", "quarantined")
	}
}
