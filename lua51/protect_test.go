package lua51

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"weak"

	lua "github.com/yuin/gopher-lua"
)

// runProtectScript runs src as the chunk name+".lua" in a state from NewState and
// returns what it printed (print writes its arguments with tostring,
// separated by tabs), followed by "error: " and the error, if any.
func runProtectScript(t *testing.T, name, src string) string {
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

// protectCases are scripts with the output lua5.1 (Debian's Lua 5.1.5) printed
// for them, run as name.lua.
var protectCases = []struct{ name, src, want string }{
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
local seen = {}
for v in coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end) do seen[#seen + 1] = v end
print(table.concat(seen, " "))
local gen = coroutine.wrap(function() for i = 1, 2 do pcall(function() end) coroutine.yield(i) end return "last" end)
print(gen(), gen(), gen(), pcall(gen))
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
1 2 3
1	2	last	false	cannot resume dead coroutine
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
local function x(n) depth = n return xpcall(function() return x(n + 1) end, function(m) return "H:" .. m end) end
print(select(-1, x(1)), depth)
local function y(n) depth = n return xpcall(function() return y(n + 1) end, function(m) error("again") end) end
print(select(-1, y(1)), depth)
`,
		`199	C stack overflow	198
false	C stack overflow
197
false	true	true
1
false	handled overflow
H:C stack overflow	198
error in error handling	198
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
local fns = {function(x) return coroutine.yield(x) end}
local anon = coroutine.wrap(function() local v = fns[1]("anon") return fns[1](v) end)
print(anon(), anon("back"), anon("end"))
local obj = {}
function obj:gen(n) for i = 1, n do coroutine.yield(i) end end
local m = coroutine.wrap(function() obj:gen(2) return "m" end)
print(m(), m(), m())
local tail = coroutine.wrap(function() return coroutine.yield(1) end)
print(tail(), tail(2, 3))
print(pcall(tail))
local function f(x) return coroutine.yield(x) end
local tail2 = coroutine.create(function() return f(1) end)
print(coroutine.resume(tail2))
print(coroutine.status(tail2), coroutine.resume(tail2, "r"))
print(coroutine.status(tail2), coroutine.resume(tail2))
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
anon	back	end
1	2	m
1	2	3
false	cannot resume dead coroutine
true	1
suspended	true	r
dead	false	cannot resume dead coroutine
`},
}

// TestProtectedCallsLikeLua51 runs each script and compares its output with
// what lua5.1 printed for it.
func TestProtectedCallsLikeLua51(t *testing.T) {
	for _, c := range protectCases {
		t.Run(c.name, func(t *testing.T) {
			if got := runProtectScript(t, c.name, c.src); got != c.want {
				t.Errorf("got:\n%s\nlua5.1 printed:\n%s", got, c.want)
			}
		})
	}
}

// newProtectState is a state from NewState whose print appends to out.
func newProtectState(out *strings.Builder) *lua.LState {
	return NewState(Options{Stdout: out})
}

// runProtectChunk runs src in L through PCall and fails the test on an error.
func runProtectChunk(t *testing.T, L *lua.LState, src string) {
	t.Helper()
	fn, err := L.LoadString(src)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	L.Push(fn)
	if err := PCall(L, 0, 0); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// TestGoPanicsBecomeLuaErrors checks that a Go panic in a protected
// function is an error pcall returns, and that the caller's counters are
// kept.
func TestGoPanicsBecomeLuaErrors(t *testing.T) {
	var out strings.Builder
	L := newProtectState(&out)
	defer L.Close()
	L.SetGlobal("gopanic", L.NewFunction(func(L *lua.LState) int {
		switch L.CheckString(1) {
		case "string":
			panic("go panic")
		case "nil":
			var m map[string]int
			m["x"]++
		}
		var p *lua.LTable
		return p.Len()
	}))
	runProtectChunk(t, L, `
		local n = 0
		local function case(kind) local ok, e = pcall(gopanic, kind); n = n + 1; return ok, type(e) end
		print(case("string")) print(case("nil")) print(case("nilptr")) print(n)
		print(select(2, pcall(gopanic, "string")))
		print(xpcall(function() gopanic("string") end, function(m) return "handled: " .. m end))`)
	want := "false\tstring\nfalse\tstring\nfalse\tstring\n3\ngo panic\nfalse\thandled: go panic\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestPCallForHosts checks PCall's results, its error and traceback, and
// that it keeps Lua 5.1's semantics when a Go function called from Lua uses
// it.
func TestPCallForHosts(t *testing.T) {
	var out strings.Builder
	L := newProtectState(&out)
	defer L.Close()
	fn, err := L.Load(strings.NewReader("local a, b = ...\nreturn a + b, a * b"), "sum.lua")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	L.Push(lua.LNumber(3))
	L.Push(lua.LNumber(4))
	if err := PCall(L, 2, 1); err != nil {
		t.Fatal(err)
	}
	if L.GetTop() != 1 || L.Get(1) != lua.LNumber(7) {
		t.Errorf("results: top %d, first %v; want 1 value, 7", L.GetTop(), L.Get(1))
	}
	L.SetTop(0)

	fn, err = L.Load(strings.NewReader("local function f()\n  error('boom')\nend\nf()\n"), "fail.lua")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	err = PCall(L, 0, 0)
	aerr, ok := err.(*lua.ApiError)
	if !ok {
		t.Fatalf("PCall returned %T %v, want *lua.ApiError", err, err)
	}
	if aerr.Object != lua.LString("fail.lua:2: boom") {
		t.Errorf("error value %q, want %q", aerr.Object, "fail.lua:2: boom")
	}
	if !strings.HasPrefix(aerr.StackTrace, "stack traceback:") || !strings.Contains(aerr.StackTrace, "fail.lua:2:") || !strings.Contains(aerr.StackTrace, "fail.lua:4:") {
		t.Errorf("traceback does not show the error point and its caller:\n%s", aerr.StackTrace)
	}
	if L.GetTop() != 0 {
		t.Errorf("stack has %d values after a failed PCall, want 0", L.GetTop())
	}

	// A Go function called from Lua that runs Lua through PCall must not
	// close its caller's upvalues.
	L.SetGlobal("hostcall", L.NewFunction(func(L *lua.LState) int {
		L.CheckAny(1)
		if err := PCall(L, L.GetTop()-1, lua.MultRet); err != nil {
			L.Push(lua.LString(err.(*lua.ApiError).Object.String()))
			return 1
		}
		return L.GetTop()
	}))
	runProtectChunk(t, L, `
		local n = 0
		local function case(f) hostcall(f); n = n + 1 end
		case(function() end); case(function() error("x") end)
		print(n, hostcall(function(a) return a * 2 end, 21), hostcall(error, "plain", 0))`)
	if want := "2\t42\tplain\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestHelpersTakeTheCallersContext checks that a protected call sees the
// context the caller's state has at the time of the call, including one
// set after earlier calls, and that a cancelled wait is an error pcall
// catches.
func TestHelpersTakeTheCallersContext(t *testing.T) {
	var out strings.Builder
	L := newProtectState(&out)
	defer L.Close()
	runProtectChunk(t, L, `print(pcall(function() return "warm" end))`) // a helper is pooled now
	ctx, cancel := context.WithCancel(context.Background())
	L.SetContext(ctx)
	cancel()
	fn, err := L.LoadString(`spin = function() while true do end end`)
	if err != nil {
		t.Fatal(err)
	}
	L.RemoveContext()
	L.Push(fn)
	if err := PCall(L, 0, 0); err != nil {
		t.Fatal(err)
	}
	L.SetContext(ctx)
	L.Push(L.GetGlobal("pcall"))
	L.Push(L.GetGlobal("spin"))
	// pcall is called from Go here, so that the caller's own loop does not
	// stop first at the cancelled context.
	L.Call(1, 2)
	if L.Get(1) != lua.LFalse || !strings.Contains(L.Get(2).String(), "context canceled") {
		t.Errorf("pcall(spin) with a cancelled context: %v, %v; want false and the cancellation", L.Get(1), L.Get(2))
	}
	L.SetTop(0)
	L.RemoveContext()
	runProtectChunk(t, L, `print(pcall(function() for i = 1, 1000 do end return "free" end))`)
	if want := "true\twarm\ntrue\tfree\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestHelpersAreReleased checks that every path out of a protected call
// (success, error, Go panic, stack overflow, the nesting limit, a context
// cancelled) gives its helper back, that at most maxIdle are kept, and that
// nested protected calls and coroutines never share a helper.
func TestHelpersAreReleased(t *testing.T) {
	var out strings.Builder
	L := newProtectState(&out)
	defer L.Close()
	L.SetGlobal("gopanic", L.NewFunction(func(L *lua.LState) int { panic("go panic") }))
	threads := map[*lua.LState]bool{}
	L.SetGlobal("thread", L.NewFunction(func(L *lua.LState) int {
		if threads[L] {
			L.RaiseError("a thread is used twice at once")
		}
		threads[L] = true
		defer delete(threads, L)
		L.Call(L.GetTop()-1, lua.MultRet)
		return L.GetTop()
	}))
	runProtectChunk(t, L, `
		local function nest(k)
			if k == 0 then return true end
			return thread(pcall, nest, k - 1)
		end
		print(nest(20))
		local co = coroutine.wrap(function()
			return thread(pcall, function()
				return select(2, thread(pcall, coroutine.wrap(function() return thread(pcall, nest, 5) end)))
			end)
		end)
		print(co())
		pcall(error, "e")
		pcall(gopanic)
		pcall(function() local function r() return 1 + r() end return r() end)
		local function deep(n) return pcall(deep, n + 1) end
		deep(1)
		xpcall(function() error("e") end, function() error("again") end)`)
	want := strings.Repeat("true\t", 20) + "true\n" + strings.Repeat("true\t", 7) + "true\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	p := protectorOf(L)
	if len(p.active) != 0 || len(p.idle) > maxIdle {
		t.Errorf("after the calls: %d helpers in use, %d idle; want 0 and at most %d", len(p.active), len(p.idle), maxIdle)
	}
}

// TestClosedStatesAreCollected checks that a closed state's helpers do not
// keep it, nor themselves, alive.
func TestClosedStatesAreCollected(t *testing.T) {
	var out strings.Builder
	L := newProtectState(&out)
	runProtectChunk(t, L, `local function nest(k) if k > 0 then pcall(nest, k - 1) end end nest(30)`)
	p := protectorOf(L)
	if len(p.idle) == 0 {
		t.Fatal("no idle helper after nested pcalls")
	}
	helper := weak.Make(p.idle[0].L)
	state := weak.Make(L)
	L.Close()
	L, p = nil, nil
	for i := 0; i < 5 && (helper.Value() != nil || state.Value() != nil); i++ {
		runtime.GC()
	}
	if helper.Value() != nil || state.Value() != nil {
		t.Error("a closed state or its helper was not collected")
	}
}

// TestOverflowLeavesNoBrokenClosure checks that a closure of frames that
// overflowed the call stack reads nil afterwards. Lua 5.1 would give the
// value at the error point, which gopher-lua has cleared by then (see
// helper.call); what matters is that nothing reads Go's nil and crashes.
func TestOverflowLeavesNoBrokenClosure(t *testing.T) {
	got := runProtectScript(t, "overflow", `
		local esc
		local function r(n)
			local v = n
			if n == 100 then esc = function() return v end end
			return 1 + r(n + 1)
		end
		print(pcall(r, 1))
		print(esc())
		print(pcall(function() return r(1) end))
		print(esc())`)
	if want := "false\tstack overflow\nnil\nfalse\tstack overflow\nnil\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestInstallOnStockState checks pcall in a state an embedder made with
// gopher-lua's defaults (a fixed 256-frame call stack, where an overflow is
// gopher-lua's own Lua error rather than a Go panic).
func TestInstallOnStockState(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	Install(L, Options{})
	var out strings.Builder
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		out.WriteString(L.ToStringMeta(L.Get(1)).String() + "\n")
		return 0
	}))
	runProtectChunk(t, L, `
		local n = 0
		local function case(f) pcall(f); n = n + 1 end
		case(function() end); case(function() error("x") end)
		local esc
		local function r(k) local v = k if k == 10 then esc = function() return v end end return 1 + r(k + 1) end
		case(function() r(1) end)
		print(n)
		print(esc())
		print(select(2, pcall(r, 1)))`)
	if want := "3\n10\n<string>:6: stack overflow\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestPCallWithoutLibraries checks PCall in a state with no standard
// library: no debug.traceback to record the traceback with.
func TestPCallWithoutLibraries(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	Install(L, Options{})
	L.Push(L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("no libraries")
		return 0
	}))
	err := PCall(L, 0, 0)
	aerr, ok := err.(*lua.ApiError)
	if !ok || !strings.HasSuffix(aerr.Object.String(), "no libraries") || !strings.HasPrefix(aerr.StackTrace, "stack traceback:") {
		t.Errorf("PCall returned %#v", err)
	}
}

// TestInstallTwice checks that installing the fixes again in a state (or in
// another thread of it) changes nothing.
func TestInstallTwice(t *testing.T) {
	var out strings.Builder
	L := newProtectState(&out)
	defer L.Close()
	resume := L.GetField(L.GetGlobal("coroutine"), "resume")
	Install(L, Options{})
	th, _ := L.NewThread()
	Install(th, Options{})
	if L.GetField(L.GetGlobal("coroutine"), "resume") != resume {
		t.Error("a second Install replaced coroutine.resume again (wrapping the first replacement)")
	}
	runProtectChunk(t, L, `
		local co = coroutine.create(function() local n = 0 pcall(error) n = n + 1 coroutine.yield(n) return "end" end)
		print(coroutine.resume(co)) print(coroutine.resume(co)) print(coroutine.resume(co))`)
	if want := "true\t1\ntrue\tend\nfalse\tcannot resume dead coroutine\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
