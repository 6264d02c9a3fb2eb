package lua51

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// concatScript concatenates numbers, strings and values with __concat in
// chains, functions and loops, and fails in the ways Lua 5.1 names.
const concatScript = `
local out = {}
local function add(...) local t = {...} for i = 1, select("#", ...) do t[i] = tostring(t[i]) end out[#out + 1] = table.concat(t, " ") end
local x, y = 0.1, 0.2
add("x" .. x + y, 1/3 .. "", 2^53 .. "", 1e16 .. "", 1/0 .. "", -1/0 .. "", 100 .. "", -0.0 .. "", 1e100 .. "")
add(123456789012345678 .. "|" .. 0.1 .. "|" .. -5 .. "|" .. 3.14159265358979)
add(1 .. 2, 1 .. 2 .. 3, "a" .. "b" .. "c")
local mt = {__concat = function(a, b)
  local l = type(a) == "table" and a.n or a
  local r = type(b) == "table" and b.n or b
  return "(" .. l .. "+" .. r .. ")"
end}
local A, B = setmetatable({n = "A"}, mt), setmetatable({n = "B"}, mt)
add(A .. "x", "x" .. A, A .. B, "p" .. A .. "q" .. B .. 1.5, 1 .. 2 .. A .. 3 .. 4)
local function two() return "r1", "r2" end
add(select("#", "a" .. two()), "a" .. two())
local function va(...) return ... .. "!" end
add(va("v", "w"), va(0.5))
local s = "s"
local function up() return s .. 1/4 end
add(up())
local z = "z"
do local z = z .. "1" add(z) end
add(type(_G["(operators)"]), rawget(_G, "(operators)"))
add(pcall(function() return "a" .. {} end))
add(pcall(function() local t = {} return t .. "a" end))
add(pcall(function() return "a" .. nil_global .. "b" end))
add(pcall(function() return nil_global .. "a" .. "b" end))
add(pcall(function() return "a" .. "b" .. nil_global end))
add(pcall(function() return "a" ..
   "b" ..
   nil_global end))
add(pcall(function() return A .. nil end))
add(pcall(function() local t = setmetatable({}, {__concat = 5}) return t .. "x" end))
add(pcall(function() return ("x"):rep(2) .. 2 end))
local t = {1, 2}
add(t[1] .. t[2], #("ab" .. "cd"))
add((debug.traceback("tb"):match("^[^\n]*\n[^\n]*\n[^\n]*")))
for i = 1, 2 do add(i .. "/" .. 2) end
local n = 0
n = n .. ""
add(n, type(n))
return table.concat(out, "\n")
`

// concatWant is what Debian's lua5.1 (5.1.5) returned for
// loadstring(concatScript, "=cc.lua")(); recorded once.
const concatWant = `
x0.3 0.33333333333333 9.007199254741e+15 1e+16 inf -inf 100 0 1e+100
1.2345678901235e+17|0.1|-5|3.1415926535898
12 123 abc
(A+x) (x+A) (A+B) p(A+q(B+1.5)) 12(A+34)
1 ar1
v! 0.5!
s0.25
z1
nil nil
false cc.lua:24: attempt to concatenate a table value
false cc.lua:25: attempt to concatenate local 't' (a table value)
false cc.lua:26: attempt to concatenate global 'nil_global' (a nil value)
false cc.lua:27: attempt to concatenate global 'nil_global' (a nil value)
false cc.lua:28: attempt to concatenate global 'nil_global' (a nil value)
false cc.lua:31: attempt to concatenate global 'nil_global' (a nil value)
false cc.lua:10: attempt to concatenate local 'r' (a nil value)
false cc.lua:33: attempt to call a number value
true xx2
12 4
tb
stack traceback:
	cc.lua:37: in main chunk
1/2
2/2
0 string`

func TestConcatAsLua51(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	installLoad(L)
	fn, err := LoadString(L, concatScript[1:], "=cc.lua")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		t.Fatal(err)
	}
	compareLines(t, L.ToString(-1), concatWant[1:])
}

// compareLines fails the test for every line of got that differs from want's.
func compareLines(t *testing.T, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, gl, wl)
		}
	}
}

// concatLoops concatenate n times: two strings, and two strings and a
// number.
var concatLoops = []struct{ name, src string }{
	{"strings", "local n = ...\nlocal a, b = 'x', 'y'\nfor i = 1, n do local s = a .. b end"},
	{"number", "local n = ...\nlocal a, b = 'x', 'y'\nfor i = 1, n do local s = a .. b .. i end"},
}

// operatorLoops do the other rewritten operations n times: %, ^ of a
// variable, # of a table and of a string, and the usual append.
var operatorLoops = []struct{ name, src string }{
	{"mod", "local n = ...\nlocal x = 7\nfor i = 1, n do local m = i % x end"},
	{"pow", "local n = ...\nlocal x = 1.5\nfor i = 1, n do local p = x ^ 2 end"},
	{"len", "local n = ...\nlocal t, s = {1, 2, 3}, 'abc'\nfor i = 1, n do local l = #t + #s end"},
	{"append", "local n = ...\nlocal t = {}\nfor i = 1, n do t[#t + 1] = i end"},
}

// BenchmarkConcat measures one concatenation chain per iteration, loaded
// with Load (Lua 5.1's formatting, one hidden call) and with stock
// gopher-lua's L.Load (its OP_CONCAT), in the same run.
func BenchmarkConcat(b *testing.B) { benchLoaders(b, concatLoops) }

// BenchmarkOperators measures %, ^ and # as BenchmarkConcat measures ..:
// Lua 5.1's (one hidden call each) beside gopher-lua's instructions.
func BenchmarkOperators(b *testing.B) { benchLoaders(b, operatorLoops) }

// benchLoaders runs each loop loaded with Load and with stock gopher-lua's
// L.Load, in the same run.
func benchLoaders(b *testing.B, loops []struct{ name, src string }) {
	for _, loop := range loops {
		for _, variant := range []struct {
			name string
			load func(L *lua.LState) (*lua.LFunction, error)
		}{
			{"lua51", func(L *lua.LState) (*lua.LFunction, error) { return LoadString(L, loop.src, "=bench") }},
			{"stock", func(L *lua.LState) (*lua.LFunction, error) { return L.Load(strings.NewReader(loop.src), "bench") }},
		} {
			b.Run(loop.name+"/"+variant.name, func(b *testing.B) {
				L := lua.NewState()
				defer L.Close()
				fn, err := variant.load(L)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				L.Push(fn)
				L.Push(lua.LNumber(b.N))
				if err := L.PCall(1, 0, nil); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}
