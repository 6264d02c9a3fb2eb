package luaprogram_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/luaprogram"
)

// tamperer is a program that first looks for what an earlier invocation
// (its run, its check or its buffers declaration) may have left in its
// environment, retiring with "leaked: ..." (or failing its check so) when
// it finds any, then tampers with it by the route its arguments name.
const tamperer = `
local count, helper = 0, function() return 1 end
local function leaks()
	local bad = {}
	local function no(cond, what) if cond then bad[#bad + 1] = what end end
	no(x ~= nil or y ~= nil, "global x or y")
	no(rawget(_G, true) ~= nil, "_G[true]")
	no(getfenv(0).tampered ~= nil or getfenv(1).tampered ~= nil or getfenv(print).tampered ~= nil, "getfenv")
	no(tostring(12) ~= "12", "tostring")
	no(_G ~= getfenv(1), "_G")
	no(getmetatable(_G) ~= nil, "metatable of _G")
	no(string.tampered ~= nil or rawget(string, 1) ~= nil, "string")
	no(type(string.len) ~= "function" or string.len("ab") ~= 2, "string.len")
	no(getmetatable(math) ~= nil or math.tampered ~= nil, "math")
	no(table.foo ~= nil, "table")
	no(count ~= 0, "a top-level local")
	no(helper() ~= 1, "a top-level function")
	no(getfenv(helper) ~= getfenv(1), "setfenv")
	no(("").tampered ~= nil or getmetatable("").__call ~= nil or getmetatable("").__add("1", "1") ~= 2, "strings' metatable")
	no(rawget(getmetatable(""), 1) ~= nil or rawget(getmetatable(""), "tampered") ~= nil, "a key added to strings' metatable")
	return table.concat(bad, ", ")
end

local function tamper(route)
	if route == "global" then x = 1
	elseif route == "fenv0" then getfenv(0).tampered = true
	elseif route == "loadstring" then loadstring("y = 1")()
	elseif route == "fenvgo" then getfenv(print).tampered = true; getfenv(print).tostring = function() return "x" end
	elseif route == "gmeta" then setmetatable(_G, {__index = {tampered = true, x = 2}})
	elseif route == "G" then _G._G = nil
	elseif route == "truekey" then _G[true] = 1
	elseif route == "strfield" then string.tampered = true
	elseif route == "strarray" then string[1] = "tampered"
	elseif route == "strremove" then string.len = nil
	elseif route == "strreplace" then string.len = function() return -1 end
	elseif route == "readd" then string.tampered = true; string.tampered = nil; table.foo = 1
	elseif route == "libmeta" then setmetatable(math, {__index = {tampered = true}})
	elseif route == "smeta" then getmetatable("").__index = {tampered = true}
	elseif route == "smetaadd" then getmetatable("").__add = function() return 0 end; getmetatable("").__call = print
	elseif route == "smetaindex" then getmetatable("").__index.tampered = true
	elseif route == "smetaarray" then getmetatable("")[1] = "tampered"; getmetatable("").tampered = true
	elseif route == "upvalue" then count = count + 1
	elseif route == "upvaluefn" then helper = function() return 2 end
	elseif route == "setfenv" then setfenv(helper, setmetatable({}, {__index = _G}))
	elseif route == "setfenvself" then setfenv(leaks, setmetatable({x = 1}, {__index = _G}))
	end
end

return {
	buffers = function(a)
		local bad = leaks()
		tamper(a.route)
		if bad ~= "" then error("leaked: " .. bad) end
		return {out = 64}
	end,
	run = function(p, a)
		local bad = leaks()
		if rawget(p, "tampered") or getmetatable(p) or type(p.store) ~= "function" or p.extra or p.device ~= "gpu0" then bad = bad .. " p" end
		if p.timing.tampered or p.timing.npu_dma_line == 5 or p.buffers.tampered or p.args.tampered then bad = bad .. " p's tables" end
		if tostring(p.buffers.out) ~= "buffer out (64 bytes)" or tostring(p.startup):sub(1, 14) ~= "buffer startup" then bad = bad .. " p's handles" end
		tamper(a.route)
		if a.route == "p" then p.tampered = true; p.device = "x"; p.tampered = nil; p.store = nil; p.extra = 1
		elseif a.route == "pextra" then p.extra = 1
		elseif a.route == "pmeta" then setmetatable(p, {__index = {tampered = true}})
		elseif a.route == "ptables" then p.timing.tampered = true; p.timing.npu_dma_line = 5; p.buffers.tampered = true; p.args.tampered = true
		elseif a.route == "args" then a.stop = "tampered"; a.extra = true; a.round = nil
		end
		if bad ~= "" then p:retire("leaked: " .. bad) end
		local seen = p:load(p.startup, 0)
		while seen == p.WAIT do seen = p:wait(p.startup, 0, seen) end
		if a.route == "phandles" then p.buffers.out, p.startup = p.startup, p.buffers.out end
		if a.stop == "error" then error("stopped mid-program") end
		if a.stop == "hang" then p:hang() end
		-- Waits for a word no one writes, until a reset stops it: in the
		-- program's function itself, or in a function it called.
		local function forever() local w = p:load(p.buffers.out, 0) while true do w = p:wait(p.buffers.out, 0, w) end end
		if a.stop == "wait" then local w = p:load(p.buffers.out, 0) while true do w = p:wait(p.buffers.out, 0, w) end end
		if a.stop == "waitdeep" then forever() end
	end,
	check = function(c, a)
		local bad = leaks()
		if c.args ~= a or a.tampered or a.extra or a.stop == "tampered" or type(a.round) ~= "number" then bad = bad .. " args" end
		tamper(a.route)
		if bad ~= "" then return false, "leaked: " .. bad end
		return true
	end,
}
`

// TestRenewedStatesLeakNothing runs one program, invocation after
// invocation, so that each is given the Lua state (and the environment,
// when the last one left it as made) of the one before: each tampers with
// its globals, its libraries, the metatables it reaches, the strings'
// metatable, its p, its chunk's locals and its functions' environments by
// another route, and stops by returning, by an error, by hanging or by a
// reset while it waits (in its function, or in one it called); the next
// run, check and buffers declaration find nothing of it.
func TestRenewedStatesLeakNothing(t *testing.T) {
	gpu, err := luaprogram.Compile("=tamperer", tamperer, luaprogram.Options{Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer gpu.Close()
	npu, err := luaprogram.Compile("=npu", "return function(p) while p:load(p.startup, 0) == p.WAIT do end end", luaprogram.Options{Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer npu.Close()
	routes := []string{"none", "global", "fenv0", "fenvgo", "loadstring", "gmeta", "G", "truekey", "strfield", "strarray", "strremove", "strreplace", "readd", "libmeta", "smeta", "smetaadd", "smetaindex", "smetaarray", "p", "pextra", "pmeta", "ptables", "phandles", "args", "upvalue", "upvaluefn", "setfenv", "setfenvself"}
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A hang and a stop by a reset while waiting each come before a
	// return, whose invocation is given the stopped one's thread.
	stops := []string{"hang", "return", "wait", "return", "error", "waitdeep"}
	sessions := 0
	for round := range 3 {
		for _, route := range routes {
			for _, stop := range stops {
				// Each declaration is a new shape (the arguments differ),
				// so that it runs rather than being remembered.
				args := luaprogram.Scalars(map[string]any{"route": route, "stop": stop, "round": float64(round)})
				decl, err := luaprogram.Declared(gpu, npu, args)
				if err != nil {
					t.Fatalf("%s, %s: the buffers declaration: %v", route, stop, err)
				}
				pair := luaprogram.Pair{GPU: gpu, NPU: npu, Args: args, Buffers: []luaprogram.Sized{{Name: decl[0].Name, Bytes: int(decl[0].Size.(float64))}}}
				s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), pair.Programs)
				if err != nil {
					t.Fatal(err)
				}
				sessions++
				for _, op := range []func() error{s.SubmitGPU, s.SubmitNPU, s.Start} {
					if err := op(); err != nil {
						t.Fatal(err)
					}
				}
				ok, err := s.Wait(time.Second)
				if err != nil && strings.Contains(err.Error(), "leaked") {
					t.Fatalf("round %d, %s then %s: %v", round, route, stop, err)
				}
				if stop == "return" && (!ok || err != nil) {
					t.Fatalf("round %d, %s: Wait = %v, %v", round, route, ok, err)
				}
				if problem, _ := s.Checked(); problem != nil {
					t.Fatalf("round %d, %s: the check: %v", round, route, problem)
				}
				if out := s.CloseWithin(t.Context(), 0); stop == "return" && out != engine.Retired {
					t.Fatalf("round %d, %s: closed %v", round, route, out)
				}
				if stop != "return" {
					for _, d := range f.Devices() {
						d.Reset()
					}
				}
			}
		}
	}
	if sessions != 3*len(stops)*len(routes) {
		t.Fatalf("%d sessions ran", sessions)
	}
}
