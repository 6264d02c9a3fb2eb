package lua51

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// runtimeCases are chunks that fail, with the message Debian's lua5.1
// (5.1.5) gave for pcall(loadstring(chunk, "=t")). Recorded once by running
// lua5.1 on each chunk.
var runtimeCases = []struct{ src, want string }{
	{"f()", "t:1: attempt to call global 'f' (a nil value)"},
	{"local f\nf()", "t:2: attempt to call local 'f' (a nil value)"},
	{"local t = {}\nt.x()", "t:2: attempt to call field 'x' (a nil value)"},
	{"local t = {}\nt:m()", "t:2: attempt to call method 'm' (a nil value)"},
	{"local t = {}\nt[1]()", "t:2: attempt to call field '?' (a nil value)"},
	{"local u\nlocal function g() u() end\ng()", "t:2: attempt to call upvalue 'u' (a nil value)"},
	{"(nil)()", "t:1: attempt to call a nil value"},
	{"x.y = 1", "t:1: attempt to index global 'x' (a nil value)"},
	{"local t\nt.y = 1", "t:2: attempt to index local 't' (a nil value)"},
	{"local t\nlocal y = t.y", "t:2: attempt to index local 't' (a nil value)"},
	{"local t = {}\nlocal y = t.a.b", "t:2: attempt to index field 'a' (a nil value)"},
	{"y = a.b.c", "t:1: attempt to index global 'a' (a nil value)"},
	{"local t = {}\nt.a.b = 1", "t:2: attempt to index field 'a' (a nil value)"},
	{"local t = {x = {}}\nt.x.y.z = 1", "t:2: attempt to index field 'y' (a nil value)"},
	{"local x\nlocal y = x + 1", "t:2: attempt to perform arithmetic on local 'x' (a nil value)"},
	{"local y = x + 1", "t:1: attempt to perform arithmetic on global 'x' (a nil value)"},
	{"local y = 1 + x", "t:1: attempt to perform arithmetic on global 'x' (a nil value)"},
	{"local t = {}\nlocal y = t.n * 2", "t:2: attempt to perform arithmetic on field 'n' (a nil value)"},
	{"local y = 'abc' + 1", "t:1: attempt to perform arithmetic on a string value"},
	{"local y = '10' + nil", "t:1: attempt to perform arithmetic on a nil value"},
	{"local y = {} - 1", "t:1: attempt to perform arithmetic on a table value"},
	{"local y = -x", "t:1: attempt to perform arithmetic on global 'x' (a nil value)"},
	{"local y = -{}", "t:1: attempt to perform arithmetic on a table value"},
	{"local t = {}\nlocal y = #t.n", "t:2: attempt to get length of field 'n' (a nil value)"},
	{"local y = #nil", "t:1: attempt to get length of a nil value"},
	{"local y = #x", "t:1: attempt to get length of global 'x' (a nil value)"},
	{"local y = 1 < nil", "t:1: attempt to compare number with nil"},
	{"local y = {} < {}", "t:1: attempt to compare two table values"},
	{"local y = 'a' < 1", "t:1: attempt to compare string with number"},
	{"local y = nil > 1", "t:1: attempt to compare number with nil"},
	{"local y = {} <= {}", "t:1: attempt to compare two table values"},
	{"for i = nil, 2 do end", "t:1: 'for' initial value must be a number"},
	{"for i = 1, 'x' do end", "t:1: 'for' limit must be a number"},
	{"for i = 1, 2, {} do end", "t:1: 'for' step must be a number"},
	{"for k in nil do end", "t:1: attempt to call a nil value"},
	{"local a = {}\nlocal b\nlocal c = a.x + b", "t:3: attempt to perform arithmetic on field 'x' (a nil value)"},
	{"local s = 'x'\ns.y.z = 1", "t:2: attempt to index field 'y' (a nil value)"},
	{"setmetatable({}, {__index = 5}).x = nil local y = setmetatable({}, {__index = 5}).x", "t:1: attempt to index a number value"},
	{"local t = setmetatable({}, {__index = function(t, k) return nil end})\nt.a.b = 1", "t:2: attempt to index field 'a' (a nil value)"},
	{"local t = {}\nt[nil] = 1", "t:2: table index is nil"},
	{"local function f() return g() end\nf()", "t:1: attempt to call global 'g' (a nil value)"},
	{"local a, b = 1\nlocal c = a + b", "t:2: attempt to perform arithmetic on local 'b' (a nil value)"},
	{"local t = {}\nfor i = 1, 2 do t = t.next end", "t:2: attempt to index local 't' (a nil value)"},
	{"local t = {}\nlocal x = t.a .. 'x'", "t:2: attempt to concatenate field 'a' (a nil value)"},
	{"local x = ({}).a.b", "t:1: attempt to index field 'a' (a nil value)"},
	{"return nil .. 'x'", "t:1: attempt to concatenate a nil value"},
	{"local x = 1 .. {}", "t:1: attempt to concatenate a table value"},
	{"local y = 2 ^ {}", "t:1: attempt to perform arithmetic on a table value"},
	{"local y = 2 % x", "t:1: attempt to perform arithmetic on global 'x' (a nil value)"},
	{"local t = {}\nlocal y = t.x.y.z", "t:2: attempt to index field 'x' (a nil value)"},
	{"a = {}\na.b.c()", "t:2: attempt to index field 'b' (a nil value)"},
	{"a = {}\na.b:c()", "t:2: attempt to index field 'b' (a nil value)"},
	{"local a = {b = {}}\na.b:c()", "t:2: attempt to call method 'c' (a nil value)"},
	{"local a = {}\nprint(a.b.c, a.x)", "t:2: attempt to index field 'b' (a nil value)"},
	{"local up = nil\nlocal function g() return up.x end\ng()", "t:2: attempt to index upvalue 'up' (a nil value)"},
	{"local up = nil\nlocal function g() return up + 1 end\ng()", "t:2: attempt to perform arithmetic on upvalue 'up' (a nil value)"},
	{"local t = {}\nlocal k = 'q'\nlocal y = t[k].z", "t:3: attempt to index field '?' (a nil value)"},
	{"local a, b\nlocal c = a.x + b.y", "t:2: attempt to index local 'a' (a nil value)"},
	{"local s = 'x'\ns:nope()", "t:2: attempt to call method 'nope' (a nil value)"},
	{"local r = ('x'):nope()", "t:1: attempt to call method 'nope' (a nil value)"},
	{"table.sort({1, 2, 3}, function(a, b) return a.x < b end)", "t:1: attempt to index local 'a' (a number value)"},
	{"local t = {}\nlocal v = t.a + t.b", "t:2: attempt to perform arithmetic on field 'a' (a nil value)"},
	{"local t = {a = 1}\nlocal v = t.a + t.b", "t:2: attempt to perform arithmetic on field 'b' (a nil value)"},
	{"local t = {}\nt.f = t.g.h", "t:2: attempt to index field 'g' (a nil value)"},
	{"local function f(x) return x.y end\nf(nil)", "t:1: attempt to index local 'x' (a nil value)"},
	{"local function f(...) local a = ... ; return a() end\nf()", "t:1: attempt to call local 'a' (a nil value)"},
	{"local x = 5\nx()", "t:2: attempt to call local 'x' (a number value)"},
	{"local x = 'str'\nx()", "t:2: attempt to call local 'x' (a string value)"},
	{"local t = {}\nt.n = t.n + 1", "t:2: attempt to perform arithmetic on field 'n' (a nil value)"},
	{"local str = 'abc'\nlocal n = #str + #nope", "t:2: attempt to get length of global 'nope' (a nil value)"},
	{"local t = setmetatable({}, {__add = function(a, b) return a.q + 1 end})\nlocal v = t + 1", "t:1: attempt to perform arithmetic on field 'q' (a nil value)"},
	{"local a = {}\nlocal i = 1\nlocal v = a[i].x", "t:3: attempt to index field '?' (a nil value)"},
	{"local up = {}\nlocal function g() return up.x.y end\ng()", "t:2: attempt to index field 'x' (a nil value)"},
	{"local v = -'abc'", "t:1: attempt to perform arithmetic on a string value"},
	{"local v = -'2' + nil", "t:1: attempt to perform arithmetic on a nil value"},
	{"local t = {}\nt.x.y, t.z = 1, 2", "t:2: attempt to index field 'x' (a nil value)"},
	{"for i = 1, 3 do local v = i .. nil end", "t:1: attempt to concatenate a nil value"},
	{"a=1; bbbb=2; a=math.sin(3)+bbbb(3)", "t:1: attempt to call global 'bbbb' (a number value)"},
	{"a=1; local a,bbbb=2,3; a = math.sin(1) and bbbb(3)", "t:1: attempt to call local 'bbbb' (a number value)"},
	{"a={}; do local a=1 end a:bbbb(3)", "t:1: attempt to call method 'bbbb' (a nil value)"},
	{"a={13}; local bbbb=1; a[bbbb](3)", "t:1: attempt to call field '?' (a number value)"},
	{"aaa=nil; aaa.bbb:ddd(9)", "t:1: attempt to index global 'aaa' (a nil value)"},
	{"local aaa={bbb=1}; aaa.bbb:ddd(9)", "t:1: attempt to index field 'bbb' (a number value)"},
	{"local a,b,c; (function () a = b+1 end)()", "t:1: attempt to perform arithmetic on upvalue 'b' (a nil value)"},
	{"b=1; local aaa='a'; x=aaa+b", "t:1: attempt to perform arithmetic on local 'aaa' (a string value)"},
	{"aaa={}; x=3/aaa", "t:1: attempt to perform arithmetic on global 'aaa' (a table value)"},
	{"aaa='2'; b=nil;x=aaa*b", "t:1: attempt to perform arithmetic on global 'b' (a nil value)"},
	{"aaa={}; x=(aaa or aaa)+(aaa and aaa)", "t:1: attempt to perform arithmetic on a table value"},
	{"aaa={}; (aaa or aaa)()", "t:1: attempt to call a table value"},
	{"aaa=9\nrepeat until 3==3\nlocal x=math.sin(math.cos(3))\nif math.sin(1) == x then return math.sin(1) end\nlocal a,b = 1, {\n  {x='a'..'b'..'c', y='b', z=x},\n  {1,2,3,4,5} or 3+3<=3+3,\n  3+1>3+1,\n  {d = x and aaa[x or y]}}", "t:9: attempt to index global 'aaa' (a number value)"},
	{"local x,y = {},1\nif math.sin(1) == 0 then return 3 end\nx.a()", "t:3: attempt to call field 'a' (a nil value)"},
	{"prefix = nil\ninsert = nil\nwhile 1 do\n  local a\n  if nil then break end\n  insert(prefix, a)\nend", "t:6: attempt to call global 'insert' (a nil value)"},
	{"x = print .. 'a'", "t:1: attempt to concatenate global 'print' (a function value)"},
	{"local f = function() end\nlocal t = {f(), g()}", "t:2: attempt to call global 'g' (a nil value)"},
	{"local a = f(1) + g(2)", "t:1: attempt to call global 'f' (a nil value)"},
	{"local t = {}\nlocal a = t.x(1) + t.y(2)", "t:2: attempt to call field 'x' (a nil value)"},
	{"local t = {}\nlocal x = t[1] .. 'x'", "t:2: attempt to concatenate field '?' (a nil value)"},
	{"local t = {}\nlocal k = 'a'\nlocal x = 'x' .. t[k]", "t:3: attempt to concatenate field '?' (a nil value)"},
	{"local f = function() return 'a' .. f end\nf()", "t:1: attempt to concatenate global 'f' (a nil value)"},
	{"local x = 'a' .. (nope)", "t:1: attempt to concatenate global 'nope' (a nil value)"},
}

func TestRuntimeErrorsAsLua51(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	installLoad(L)
	for _, c := range runtimeCases {
		if got := runMessage(t, L, c.src); got != c.want {
			t.Errorf("run %q:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

// runMessage runs src, named "=t", with describeError as the error
// handler, as pcall does, and returns the error message.
func runMessage(t *testing.T, L *lua.LState, src string) string {
	t.Helper()
	fn, err := LoadString(L, src, "=t")
	if err != nil {
		t.Fatalf("load %q: %v", src, err)
	}
	handler := L.NewFunction(func(L *lua.LState) int {
		L.Push(describeError(L, L.Get(1)))
		return 1
	})
	L.Push(fn)
	err = L.PCall(0, 0, handler)
	if err == nil {
		return ""
	}
	return lua.LVAsString(err.(*lua.ApiError).Object)
}

func TestDescribeErrorLeavesOtherValues(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	installLoad(L)
	for _, c := range []struct{ src, want string }{
		{"error('my own message')", "t:1: my own message"},
		{"error('attempt to compare apples with pears')", "t:1: attempt to compare apples with pears"},
		{"error('attempt to call a nil value', 0)", "attempt to call a nil value"},
		{`error("attempt to index a non-table object(crate) with key 'x'")`, "t:1: attempt to index a non-table object(crate) with key 'x'"},
	} {
		if got := runMessage(t, L, c.src); got != c.want {
			t.Errorf("run %q: got %q, want %q", c.src, got, c.want)
		}
	}
	table := L.NewTable()
	if got := describeError(L, table); got != table {
		t.Errorf("describeError(a table) = %v, want the table", got)
	}
	if got := describeError(L, lua.LNumber(42)); got != lua.LNumber(42) {
		t.Errorf("describeError(42) = %v, want 42", got)
	}
}

// BenchmarkDescribeError measures describeError on a message it leaves
// alone (an error of the script's own) and on one it rewords.
func BenchmarkDescribeError(b *testing.B) {
	L := lua.NewState()
	defer L.Close()
	for _, c := range []struct{ name, src string }{
		{"own", "error('no such sample: 42')"},
		{"runtime", "local t\nlocal y = t.x"},
	} {
		fn, err := LoadString(L, c.src, "=bench")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			handler := L.NewFunction(func(L *lua.LState) int {
				v := L.Get(1)
				for b.Loop() {
					describeError(L, v)
				}
				return 1
			})
			L.Push(fn)
			if err := L.PCall(0, 0, handler); err == nil {
				b.Fatal("no error")
			}
		})
	}
}
