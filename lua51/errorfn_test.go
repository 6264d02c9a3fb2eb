package lua51

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// errorLevelScript calls error with levels from Lua functions, Go
// functions, tail calls and coroutines, and returns what each pcall gave.
const errorLevelScript = `
local out = {}
local function show(...) local t = {...} for i = 1, select("#", ...) do t[i] = type(t[i]) .. ":" .. tostring(t[i]) end out[#out + 1] = table.concat(t, " ") end
local function lvl1() error("one") end
local function lvl2() error("two", 2) end
local function lvl0() error("zero", 0) end
local function caller2() lvl2() end
show(pcall(lvl1))
show(pcall(lvl2))
show(pcall(caller2))
show(pcall(lvl0))
show(pcall(error, "direct"))
show(pcall(error, "direct2", 2))
show(pcall(error))
show(pcall(error, nil))
show(pcall(error, 42))
show(pcall(error, 42, 0))
show(pcall(function() error(42) end))
show(pcall(function() error({}) end) == false)
show(pcall(function() error(true) end))
local function tail() return lvl2() end
show(pcall(tail))
local function tail2() return error("t", 2) end
show(pcall(function() tail2() end))
local function deep(n) if n == 0 then error("deep", 3) end return deep(n - 1) end
show(pcall(deep, 3))
local function deep2(n) if n == 0 then error("deep2", 2) end deep2(n - 1) end
show(pcall(deep2, 3))
show(pcall(function() local x = {} ; table.sort({3, 2, 1}, function(a, b) error("cmp", 2) end) end))
show(pcall(function() string.gsub("abc", "b", function() error("gs", 2) end) end))
show(pcall(function() string.gsub("abc", "b", function() error("gs3", 3) end) end))
show(pcall(function() error("far", 50) end))
show(pcall(function() error("%d %s", 1) end))
local co = coroutine.create(function() error("in co") end)
show(coroutine.resume(co))
co = coroutine.create(function() error("in co 2", 2) end)
show(coroutine.resume(co))
local function f3() error("lvl3", 3) end
local function g3() f3() end
show(pcall(function() g3() end))
co = coroutine.create(function() return lvl1() end)
show(coroutine.resume(co))
co = coroutine.create(function() return lvl2() end)
show(coroutine.resume(co))
co = coroutine.create(function() return tail() end)
show(coroutine.resume(co))
co = coroutine.create(function(n) if n > 0 then error("rec", 1) end end)
show(coroutine.resume(co, 1))
local function rec(n) if n > 0 then rec(n - 1) else error("rec2", 2) end end
show(pcall(rec, 2))
show(pcall(function() return rec(1) end))
return table.concat(out, "\n")
`

// errorLevelWant is what Debian's lua5.1 (5.1.5) returned for
// loadstring(errorLevelScript, "=err.lua")(); recorded once.
const errorLevelWant = `
boolean:false string:err.lua:3: one
boolean:false string:two
boolean:false string:err.lua:6: two
boolean:false string:zero
boolean:false string:direct
boolean:false string:err.lua:12: direct2
boolean:false nil:nil
boolean:false nil:nil
boolean:false string:42
boolean:false number:42
boolean:false string:err.lua:17: 42
boolean:true
boolean:false boolean:true
boolean:false string:two
boolean:false string:err.lua:23: t
boolean:false string:deep
boolean:false string:err.lua:26: deep2
boolean:false string:cmp
boolean:false string:gs
boolean:false string:err.lua:30: gs3
boolean:false string:far
boolean:false string:err.lua:32: %d %s
boolean:false string:err.lua:33: in co
boolean:false string:in co 2
boolean:false string:err.lua:39: lvl3
boolean:false string:err.lua:3: one
boolean:false string:two
boolean:false string:two
boolean:false string:err.lua:46: rec
boolean:false string:err.lua:48: rec2
boolean:false string:err.lua:48: rec2`

func TestErrorLevelsAsLua51(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	installLoad(L)
	fn, err := LoadString(L, errorLevelScript[1:], "=err.lua")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		t.Fatal(err)
	}
	got := L.ToString(-1)
	want := errorLevelWant[1:]
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
