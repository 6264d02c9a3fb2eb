package lua51

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// runScript runs src as the chunk name+".lua" in a state from NewState and
// returns what it printed (print writes its arguments with tostring,
// separated by tabs), followed by "error: " and the error, if any.
func runScript(t *testing.T, name, src string) string {
	t.Helper()
	L := NewState(Options{})
	defer L.Close()
	var out strings.Builder
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		for i := 1; i <= L.GetTop(); i++ {
			if i > 1 {
				out.WriteByte('\t')
			}
			out.WriteString(L.ToStringMeta(L.Get(i)).String())
		}
		out.WriteByte('\n')
		return 0
	}))
	fn, err := L.Load(strings.NewReader(src), name+".lua")
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	L.Push(fn)
	if err := PCall(L, 0, 0); err != nil {
		out.WriteString("error: " + err.(*lua.ApiError).Object.String() + "\n")
	}
	return out.String()
}

// luaCases are scripts with the output lua5.1 (Debian's Lua 5.1.5) printed
// for them, run as name.lua.
var luaCases = []struct{ name, src, want string }{
	{"coroutines", `local n = 0
local co = coroutine.create(function(a)
  local function case(f) pcall(f); n = n + 1 end
  case(function() error("x") end)
  local b = coroutine.yield(a + n)
  case(function() error("y") end)
  case(function() end)
  return b + n
end)
print(coroutine.resume(co, 10))
print(coroutine.resume(co, 5))
print(coroutine.status(co), n)
print(pcall(function()
  local c2 = coroutine.wrap(function(x) local y = coroutine.yield(x * 2); return y + 1 end)
  return c2(4), c2(9)
end))
print(coroutine.running())
print(pcall(function() return coroutine.running() end))
local main
main = coroutine.create(function()
  print(coroutine.running() == main, coroutine.status(main))
  print(pcall(function() return coroutine.running() == main, coroutine.status(main) end))
  print(pcall(coroutine.resume, main))
  print(coroutine.resume(main))
  local inner = coroutine.create(function()
    print("outer is", coroutine.status(main))
    print(pcall(function() return coroutine.status(main) end))
    coroutine.yield(1)
  end)
  print(coroutine.resume(inner))
  print(pcall(function() return coroutine.resume(inner) end))
  print(pcall(coroutine.status, inner))
  return "done"
end)
print(coroutine.resume(main))
print(coroutine.status(main))
`,
		`true	11
true	8
dead	3
true	8	10
nil
true	nil
true	running
true	true	running
true	false	cannot resume running coroutine
false	cannot resume running coroutine
outer is	normal
true	normal
true	1
true	true
true	dead
true	done
dead
`},
	{"counter", `local n = 0
local function case(f) pcall(f); n = n + 1 end
case(function() end); case(function() error("x") end)
print(n)
`,
		`2
`},
	{"deep", `local depth = 0
local function f(n) depth = n; return pcall(f, n + 1) end
print(select("#", f(1)), select(-1, f(1)), depth)
local function h(n) depth = n; local ok, e = pcall(h, n + 1); if not ok then error(e, 0) end return ok end
print(pcall(h, 1))
print(depth)
local function g(n) depth = n; return g(n + 1) + 1 end
local ok, e = pcall(g, 1)
print(ok, string.find(e, "stack overflow$") ~= nil, depth > 10000)
local n = 0
local function case(f) pcall(f); n = n + 1 end
case(function() g(1) end)
print(n)
print(xpcall(function() return g(1) end, function(m) return (string.gsub(m, "^.*stack overflow$", "handled overflow")) end))
`,
		`199	C stack overflow	198
false	C stack overflow
197
false	true	true
1
false	handled overflow
`},
	{"errtables", `local n = 0
local function case(f) local ok, e = pcall(f); n = n + 1; return ok, e end
local ok, e = case(function() error({code = 7}) end)
print(n, ok, type(e), e.code)
local mt = {__tostring = function(t) return "E" .. t.code end}
ok, e = case(function() error(setmetatable({code = 8}, mt)) end)
print(n, ok, tostring(e))
ok, e = case(function() error(nil) end)
print(n, ok, e)
ok, e = case(function() error(true) end)
print(n, ok, e, type(e))
`,
		`1	false	table	7
2	false	E8
3	false	nil
4	false	true	boolean
`},
	{"escaped", `local g
local ok, e = xpcall(function()
  local a = 1
  g = function() a = a + 1; return a end
  a = 5
  error("x")
end, function(m) return m end)
print(ok, g(), g())
local function noise() local a, b, c, d, e = 100, 200, 300, 400, 500; return a + b + c + d + e end
print(noise(), g())
local p
print(pcall(function()
  local s = "kept"
  p = function() return s end
  s = s .. "!"
  error("y")
end))
print(noise(), p())
local q
print(pcall(function()
  local list = {}
  for i = 1, 3 do list[i] = function() return i end end
  q = list
  error("z")
end))
print(noise(), q[1](), q[2](), q[3]())
`,
		`false	6	7
1500	8
false	escaped.lua:16: y
1500	kept!
false	escaped.lua:24: z
1500	1	2	3
`},
	{"forloop", `local fs = {}
for i = 1, 3 do
  local x = i
  fs[i] = function() return x end
  pcall(error, "e")
  x = x * 10
end
print(fs[1](), fs[2](), fs[3]())
local gs = {}
for i = 1, 3 do
  gs[i] = function() return i end
  pcall(function() error("e") end)
  i = i + 100
end
print(gs[1](), gs[2](), gs[3]())
local hs = {}
for k, v in ipairs({"a", "b"}) do
  hs[k] = function() return v end
  xpcall(function() error("e") end, function(m) return m end)
  v = v .. "!"
end
print(hs[1](), hs[2]())
`,
		`10	20	30
101	102	103
a!	b!
`},
	{"goerrors", `local n, fails = 0, 0
local function case(f) if not pcall(f) then fails = fails + 1 end; n = n + 1 end
case(function() string.rep() end)
case(function() return ("x"):rep({}) end)
case(function() return math.floor("a") end)
case(function() table.insert(nil, 1) end)
case(string.rep)
print(n, fails)
`,
		`5	5
`},
	{"metamethods", `local n = 0
local function case(f) local ok = pcall(f); n = n + 1; return ok end
local t = setmetatable({}, {
  __add = function() error("add") end,
  __index = function(t, k) error("index " .. k) end,
  __newindex = function() error("newindex") end,
  __call = function(self, a) if a then error("call") end return "called" end,
  __concat = function() error("concat") end,
})
print(case(function() return t + 1 end), n)
print(case(function() return t.x end), n)
print(case(function() t.y = 1 end), n)
print(case(function() return t(1) end), n)
print(case(function() return t .. "s" end), n)
print(pcall(t))
print(pcall(t, 1) == false, n)
`,
		`false	1
false	2
false	3
false	4
false	5
true	called
true	5
`},
	{"nested", `local a, b, c = 0, 0, 0
local function inner() c = c + 1; error("inner") end
local function middle() b = b + 1; local ok, e = pcall(inner); b = b + 1; error("middle") end
local function outer() a = a + 1; local ok, e = pcall(middle); a = a + 1; return ok end
for i = 1, 3 do print(pcall(outer)) end
print(a, b, c)
local ok1, ok2, e = pcall(pcall, error, {}); print(ok1, ok2, type(e))
print(select("#", pcall(pcall, pcall, error)))
`,
		`true	false
true	false
true	false
6	6	3
true	false	table
4
`},
	{"sort", `local n = 0
local function case(f) local ok = pcall(f); n = n + 1; return ok end
print(case(function() table.sort({3, 1, 2}, function(a, b) error("cmp") end) end), n)
print(case(function() table.sort({3, 1, 2}, function(a, b) return a < b end) end), n)
local calls = 0
local function cmp(a, b) calls = calls + 1; if calls > 2 then error("late") end return a < b end
print(case(function() table.sort({5, 4, 3, 2, 1}, cmp) end), n, calls > 2)
`,
		`false	1
true	2
false	3	true
`},
	{"tailcalls", `local n = 0
local function fail() return error("t") end
local function p(f) return pcall(f) end
print(p(fail))
local function case(f) local r = {p(f)}; n = n + 1; return r[1] end
print(case(fail), case(function() return 1 end), n)
local function deep(k) if k == 0 then return error("bottom") end return deep(k - 1) end
print(pcall(deep, 1000))
print(n)
`,
		`false	tailcalls.lua:2: t
false	true	2
false	tailcalls.lua:7: bottom
2
`},
	{"xpcallmix", `local n = 0
local function h(m) n = n + 100; return "handled" end
local function bump() n = n + 1 end
print(xpcall(function() bump(); local ok = pcall(error, "in"); bump(); error("out") end, h))
print(n)
print(pcall(function() bump(); print(xpcall(function() bump(); error("x") end, h)); bump(); error("y", 0) end))
print(n)
local count = 0
local function step() count = count + 1 end
for i = 1, 5 do xpcall(function() step(); error("e") end, function(m) step(); return m end) end
print(count)
print(xpcall(function() error("a") end, function(m) error("b") end))
print(xpcall(function() error("a") end, 42))
print(xpcall(function() return 1, 2, 3 end, print))
print(xpcall(function() error("a") end, function(m) return m, "extra" end))
print(xpcall(function() error("traced") end, function(m) return debug.traceback(m, 1):find("xpcallmix.lua:16") ~= nil end))
print(select("#", xpcall(function() end, print)))
`,
		`false	handled
102
false	handled
false	y
205
10
false	error in error handling
false	error in error handling
true	1	2	3
false	xpcallmix.lua:15: a
false	true
1
`},
	{"yields", `print(pcall(coroutine.yield))
local co = coroutine.create(function()
  print("pcall", pcall(coroutine.yield, 1))
  print("pcall2", pcall(function() coroutine.yield(2) end))
  local t = setmetatable({}, {__index = function(t, k) return coroutine.yield(k) end})
  print("meta", pcall(function() return t.x end))
  print("sort", pcall(table.sort, {3, 2, 1}, function(a, b) coroutine.yield() return a < b end))
  print("gsub", pcall(string.gsub, "ab", ".", function(c) coroutine.yield(c) end))
  print("plain", coroutine.yield("y"))
  for k in function() return coroutine.yield("iter") end do print("k", k) break end
  return "done"
end)
print(coroutine.resume(co))
print(coroutine.resume(co, "v"))
print(coroutine.resume(co, "w"))
print(coroutine.status(co))
local w = coroutine.wrap(function() error("boom") end)
print(pcall(w))
print(pcall(w))
local w2 = coroutine.wrap(function() error({}) end)
print(pcall(function() local ok, e = pcall(w2); return type(e) end))
local w3 = coroutine.wrap(function() error(true) end)
print(pcall(w3))
local w4 = coroutine.wrap(function() error("deep") end)
print(pcall(function() w4() end))
`,
		`false	attempt to yield across metamethod/C-call boundary
pcall	false	attempt to yield across metamethod/C-call boundary
pcall2	false	attempt to yield across metamethod/C-call boundary
meta	false	attempt to yield across metamethod/C-call boundary
sort	false	attempt to yield across metamethod/C-call boundary
gsub	false	attempt to yield across metamethod/C-call boundary
true	y
plain	v
false	attempt to yield across metamethod/C-call boundary
false	cannot resume dead coroutine
dead
false	yields.lua:17: boom
false	cannot resume dead coroutine
true	table
false	true
false	yields.lua:25: yields.lua:24: deep
`},
}

// TestProtectedCallsLikeLua51 runs each script and compares its output with
// what lua5.1 printed for it.
func TestProtectedCallsLikeLua51(t *testing.T) {
	for _, c := range luaCases {
		t.Run(c.name, func(t *testing.T) {
			if got := runScript(t, c.name, c.src); got != c.want {
				t.Errorf("got:\n%s\nlua5.1 printed:\n%s", got, c.want)
			}
		})
	}
}
