package lua51

import (
	"bytes"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// libraryCases are Lua 5.1 behaviours, each with the output that Debian's lua5.1
// (5.1.5, glibc 2.36, x86-64) printed for it: recorded once by running the
// case under lua5.1 with testPrelude, in the time zone tz (UTC if empty).
var libraryCases = []libraryCase{
	{
		name: "select",
		code: `print(select("#"), select("#", nil, nil), select("#abc", 1), select(2, "a", "b", "c"), select(-1, 1, 2, 3), select("2", "x", "y"), select(5, 1))
			E(select, 0, 1)
			E(select, -5, 1)
			E(select, "x", 1)
			E(select)`,
		want: "0\t2\t1\tb\t3\ty\nerror\tbad argument #1 (index out of range)\nerror\tbad argument #1 (index out of range)\nerror\tbad argument #1 (number expected, got string)\nerror\tbad argument #1 (number expected, got no value)\n",
	},
	{
		name: "unpack",
		code: `print(unpack({1, 2, 3}))
			print(unpack({1, 2, 3}, 2), unpack({1, 2, 3}, 2, 5))
			print(select("#", unpack({}, 1, 0)), select("#", unpack({}, 5)), unpack({"a", "b"}, "2"))
			E(unpack, {}, 1, 1e8)
			E(unpack)`,
		want: "1\t2\t3\n2\t2\t3\tnil\tnil\n0\t0\tb\nerror\ttoo many results to unpack\nerror\tbad argument #1 (table expected, got no value)\n",
	},
	{
		name: "table.insert",
		code: `local t = {1, 2, 3}
			table.insert(t, 4) table.insert(t, 1, 0) table.insert(t, "3", "x")
			print(table.concat(t, ","))
			E(table.insert, {}, 1, 2, 3)
			E(table.insert, {})
			E(table.insert, {}, "x", 2)
			E(table.insert, nil, 1)`,
		want: "0,1,x,2,3,4\nerror\twrong number of arguments to 'insert'\nerror\twrong number of arguments to 'insert'\nerror\tbad argument #2 (number expected, got string)\nerror\tbad argument #1 (table expected, got nil)\n",
	},
	{
		name: "table.remove",
		code: `local t = {1, 2, 3, 4}
			print(table.remove(t), table.remove(t, 1), table.concat(t, ","), select("#", table.remove({})), select("#", table.remove({1, 2, 3}, 7)), select("#", table.remove({1}, 0)))
			E(table.remove)
			E(table.remove, {1}, "x")`,
		want: "4\t1\t2,3\t0\t0\t0\nerror\tbad argument #1 (table expected, got no value)\nerror\tbad argument #2 (number expected, got string)\n",
	},
	{
		name: "table.maxn getn setn",
		code: `print(table.maxn({1, 2, [10] = 3, [20.5] = 1, x = 100}), table.maxn({}), table.maxn({[-5] = 1}), table.getn({1, 2, 3}))
			E(table.setn, {}, 1)
			E(table.maxn)`,
		want: "20.5\t0\t0\t3\nerror\t'setn' is obsolete\nerror\tbad argument #1 (table expected, got no value)\n",
	},
	{
		name: "table.foreach and foreachi",
		code: `table.foreachi({"a", "b", "c"}, print)
			print(table.foreachi({1, 2, 3}, function(i, v) if v == 2 then return "stop" .. i end end))
			local seen = 0
			print(table.foreach({x = 1}, function(k, v) seen = seen + v end), seen)
			print(table.foreach({x = 1}, function(k, v) return k .. v end))
			E(table.foreach, {}, 1)`,
		want: "1\ta\n2\tb\n3\tc\nstop2\nnil\t1\nx1\nerror\tbad argument #2 (function expected, got number)\n",
	},
	{
		name: "table.sort as Lua 5.1's quicksort",
		code: `local t = {5, 3, 8, 1, 9, 2, 7, 4, 6, 0, 15, 11, 13, 12, 14, 10}
			table.sort(t) print(table.concat(t, " "))
			table.sort(t, function(a, b) return a > b end) print(table.concat(t, " "))
			local r = {}
			for i = 1, 20 do r[i] = {k = i % 4, id = i} end
			table.sort(r, function(a, b) return a.k < b.k end)
			local ids = {} for i = 1, 20 do ids[i] = r[i].id end print(table.concat(ids, " "))
			local s = {"b", "a", "d", "c"} table.sort(s) print(table.concat(s))
			local h = {} h[3] = 1 h[2] = 3 h[1] = 2 table.sort(h) print(h[1], h[2], h[3])`,
		want: "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0\n20 12 16 4 8 9 17 13 1 5 14 2 10 18 6 3 15 11 7 19\nabcd\n1\t2\t3\n",
	},
	{
		name: "table.sort errors",
		code: `E(table.sort, {3, 1, 2, 5, 4, 7, 6, 9, 8, 10, 11, 12, 13, 14, 15, 16}, function(a, b) return true end)
			E(table.sort, {3, 1, "x"})
			E(table.sort, {1, 2}, 3)
			E(table.sort)`,
		want: "error\tinvalid order function for sorting\nerror\tattempt to compare string with number\nerror\tbad argument #2 (function expected, got number)\nerror\tbad argument #1 (table expected, got no value)\n",
	},
	{
		name: "collectgarbage",
		code: `print(type(collectgarbage("count")), collectgarbage("count") > 0, select("#", collectgarbage("count")), collectgarbage(), collectgarbage("collect"), collectgarbage("stop"), collectgarbage("restart"))
			print(collectgarbage("setpause", 100), collectgarbage("setpause"), collectgarbage("setstepmul", 300), collectgarbage("setstepmul", 200), type(collectgarbage("step")))
			print(type(gcinfo()), gcinfo() > 0, gcinfo() == math.floor(gcinfo()))
			E(collectgarbage, "bogus")
			E(collectgarbage, 1)`,
		want: "number\ttrue\t1\t0\t0\t0\t0\n200\t100\t200\t300\tboolean\nnumber\ttrue\ttrue\nerror\tbad argument #1 (invalid option 'bogus')\nerror\tbad argument #1 (invalid option '1')\n",
	},
	{
		name: "getfenv and setfenv",
		code: `E(getfenv, -1)
			E(getfenv, 100)
			print(getfenv(0) == _G, getfenv() == _G, getfenv(print) == _G)
			E(setfenv, print, {})
			E(setfenv, 100, {})
			E(setfenv, 1, 1)
			local function f() return x end
			setfenv(f, {x = 5}) print(f(), getfenv(f).x, type(setfenv(f, _G)))
			local function g() setfenv(1, {y = 7, print = print}) print(y) end g()
			local function h() return getfenv(1) == _G, getfenv(2) == _G end print(h())`,
		want: "error\tbad argument #1 (level must be non-negative)\nerror\tbad argument #1 (invalid level)\ntrue\ttrue\ttrue\nerror\t'setfenv' cannot change environment of given object\nerror\tbad argument #1 (invalid level)\nerror\tbad argument #2 (table expected, got number)\n5\t5\tfunction\n7\ntrue\ttrue\n",
	},
	{
		name: "assert",
		code: `print(select("#", assert(1, 2, 3)), assert("x", "unused"))
			E(assert, false)
			E(assert, nil, "msg")
			E(assert, false, 12)
			E(assert)`,
		want: "3\tx\tunused\nerror\tassertion failed!\nerror\tmsg\nerror\t12\nerror\tbad argument #1 (value expected)\n",
	},
	{
		name: "setmetatable",
		code: `local t = setmetatable({}, {__index = {a = 1}}) print(t.a, setmetatable(t, nil) == t, t.a)
			E(setmetatable, 1, {})
			E(setmetatable, "s", {})
			E(setmetatable, {}, 1)
			E(setmetatable, setmetatable({}, {__metatable = "locked"}), {})
			print(getmetatable(setmetatable({}, {__metatable = "locked"})))`,
		want: "1\ttrue\tnil\nerror\tbad argument #1 (table expected, got number)\nerror\tbad argument #1 (table expected, got string)\nerror\tbad argument #2 (nil or table expected)\nerror\tcannot change a protected metatable\nlocked\n",
	},
	{
		name: "getfenv(0) in a coroutine is the thread's",
		code: `local a = {}
			local f = coroutine.wrap(function()
			  setfenv(0, a)
			  local r = {getfenv(0) == a, getfenv(1) == _G, getfenv() == _G}
			  coroutine.yield(r)
			end)
			local r = f()
			print(r[1], r[2], r[3], getfenv(0) == _G)`,
		want: "true\ttrue\ttrue\ttrue\n",
	},
}

func TestLibrary(t *testing.T) { runLibraryCases(t, libraryCases) }

// Handwritten tests follow.
// testPrelude defines E(f, ...) for the recorded cases: it calls f
// protected and prints "ok" and the first result, or "error" and the
// message without its position and without the function's name in "bad
// argument #n to 'name'" (errmsg.go's concern, not the library's).
const testPrelude = `local function E(...)
  local ok, m = pcall(...)
  if ok then print("ok", m) else
    m = tostring(m):gsub("^[^:]*:%d+: ", ""):gsub("bad argument (#%d+) to %S+ ", "bad argument %1 ")
    print("error", m)
  end
end
`

// libraryCase is a chunk and what lua5.1 printed running it after
// testPrelude in the time zone tz.
type libraryCase struct {
	name, code, tz, want string
}

// runLibraryCases runs each case in a fresh state and compares its output
// with lua5.1's.
func runLibraryCases(t *testing.T, cases []libraryCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tz := c.tz
			if tz == "" {
				tz = "UTC"
			}
			inZone(t, tz)
			got := runChunk(t, testPrelude+c.code)
			if got != c.want {
				t.Errorf("lua5.1 printed\n%q\nlua51 prints\n%q", c.want, got)
			}
		})
	}
}

// runChunk runs code in a NewState and returns what it printed.
func runChunk(t *testing.T, code string) string {
	t.Helper()
	var out bytes.Buffer
	L := NewState(Options{Stdout: &out})
	defer L.Close()
	if err := L.DoString(code); err != nil {
		t.Fatalf("%v\noutput so far: %q", err, out.String())
	}
	return out.String()
}

// inZone makes tz the local time zone until the test ends.
func inZone(t *testing.T, tz string) {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Local
	time.Local = loc
	t.Cleanup(func() { time.Local = old })
}

func TestPrintWritesToStdoutOption(t *testing.T) {
	var a, b bytes.Buffer
	La, Lb := NewState(Options{Stdout: &a}), NewState(Options{Stdout: &b})
	defer La.Close()
	defer Lb.Close()
	if err := La.DoString(`print("a", 1/3)`); err != nil {
		t.Fatal(err)
	}
	if err := Lb.DoString(`print("b")`); err != nil {
		t.Fatal(err)
	}
	if a.String() != "a\t0.33333333333333\n" || b.String() != "b\n" {
		t.Errorf("print wrote %q and %q", a.String(), b.String())
	}
}

// TestIOWriteGoesToStdoutOption checks that io.write, io.stdout:write and
// print share Options.Stdout, in order.
func TestIOWriteGoesToStdoutOption(t *testing.T) {
	got := runChunk(t, `io.write(1/3, " ") print("p") io.stdout:write(2^63, "\n") io.write("end")`)
	if got != "0.33333333333333 p\n9.2233720368548e+18\nend" {
		t.Errorf("output %q", got)
	}
}

func TestNewPrintForOtherStates(t *testing.T) {
	var out bytes.Buffer
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("print", L.NewFunction(NewPrint(&out)))
	if err := L.DoString(`print(1, nil, "x")`); err != nil {
		t.Fatal(err)
	}
	if out.String() != "1\tnil\tx\n" {
		t.Errorf("print wrote %q", out.String())
	}
}

func TestToStringFromGo(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	if err := L.DoString(`mt = setmetatable({}, {__tostring = function() return "obj" end})`); err != nil {
		t.Fatal(err)
	}
	top := L.GetTop()
	for v, want := range map[lua.LValue]string{
		lua.LNumber(0.1): "0.1", lua.LNumber(1e100): "1e+100", lua.LNil: "nil",
		lua.LString("s"): "s", L.GetGlobal("mt"): "obj",
	} {
		if got := ToString(L, v); got != want {
			t.Errorf("ToString(%v) = %q, want %q", v, got, want)
		}
	}
	if L.GetTop() != top {
		t.Errorf("ToString left %d values on the stack", L.GetTop()-top)
	}
}

// TestCheckString covers the helpers the pattern functions share.
func TestCheckString(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	L.SetGlobal("probe", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(checkString(L, 1) + "|" + optString(L, 2, "default")))
		return 1
	}))
	if err := L.DoString(`assert(probe(1/3) == "0.33333333333333|default" and probe("a", 2^63) == "a|9.2233720368548e+18")`); err != nil {
		t.Fatal(err)
	}
	err := L.DoString(`probe({})`)
	if err == nil || !strings.Contains(err.Error(), "(string expected, got table)") {
		t.Errorf("checkString of a table: %v", err)
	}
	err = L.DoString(`probe()`)
	if err == nil || !strings.Contains(err.Error(), "(string expected, got no value)") {
		t.Errorf("checkString of nothing: %v", err)
	}
}

// TestInstallAddsNoLibrary checks that Install replaces functions only in
// the libraries the state has: an embedder that left os and io out does
// not get them back.
func TestInstallAddsNoLibrary(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	lua.OpenBase(L)
	Install(L, Options{})
	for _, name := range []string{"os", "io", "math", "table", "string"} {
		if v := L.GetGlobal(name); v != lua.LNil {
			t.Errorf("Install added %s: %v", name, v)
		}
	}
	if err := L.DoString(`assert(tostring(1/3) == "0.33333333333333" and tonumber("0x10") == 16)`); err != nil {
		t.Error(err)
	}
}
