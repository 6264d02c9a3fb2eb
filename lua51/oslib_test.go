package lua51

import (
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// osCases are Lua 5.1 behaviours, each with the output that Debian's lua5.1
// (5.1.5, glibc 2.36, x86-64) printed for it: recorded once by running the
// case under lua5.1 with testPrelude, in the time zone tz (UTC if empty).
var osCases = []libraryCase{
	{
		name: "os.date conversions",
		code: `local t = 1700000000.7
			local s = {}
			for c in ("aAbBcCdDeFgGhHIjklmMnpPrRsStTuUVwWxXyYzZ%EOfiJKLNoqQv+1903-_^#"):gmatch(".") do
			  s[#s + 1] = c .. "=[" .. os.date("!%" .. c, t) .. "]"
			end
			print(table.concat(s, " "))`,
		want: "a=[Tue] A=[Tuesday] b=[Nov] B=[November] c=[Tue Nov 14 22:13:20 2023] C=[20] d=[14] D=[11/14/23] e=[14] F=[2023-11-14] g=[23] G=[2023] h=[Nov] H=[22] I=[10] j=[318] k=[22] l=[10] m=[11] M=[13] n=[\n] p=[PM] P=[pm] r=[10:13:20 PM] R=[22:13] s=[1700000000] S=[20] t=[\t] T=[22:13:20] u=[2] U=[46] V=[46] w=[2] W=[46] x=[11/14/23] X=[22:13:20] y=[23] Y=[2023] z=[+0000] Z=[GMT] %=[%] E=[%E] O=[%O] f=[%f] i=[%i] J=[%J] K=[%K] L=[%L] N=[%N] o=[%o] q=[%q] Q=[%Q] v=[%v] +=[%+] 1=[%1] 9=[       %9] 0=[%0] 3=[ %3] -=[%-] _=[%_] ^=[%^] #=[%#]\n",
	},
	{
		name: "os.date in a local zone",
		code: `print(os.date("%c|%Z|%z|%s|%H", 1700000000), os.date("%Z|%z|%s|%H", 1590000000), os.date("!%Z|%z|%s|%H", 1590000000))`,
		tz:   "Europe/Berlin",
		want: "Tue Nov 14 23:13:20 2023|CET|+0100|1700000000|23\tCEST|+0200|1590000000|20\tGMT|+0000|1589996400|18\n",
	},
	{
		name: "os.date text around conversions",
		code: `print(os.date("!x%", 0), os.date("!%"), os.date("!abc", 0), os.date("!a\0b%Y", 0), os.date("!%Y-%m-%d %H:%M:%S", 86400 * 365.25 * 30))
			E(os.date, "!%c", "x")`,
		want: "x%\t%\tabc\ta\t2000-01-01 12:00:00\nerror\tbad argument #2 (number expected, got string)\n",
	},
	{
		name: "os.date years far away",
		code: `local t = -62135596800
			print(os.date("!%Y|%C|%y|%G|%g|%F|%c", t - 86400 * 400), os.date("!%Y|%F|%C|%y|%D", t + 86400 * 365 * 4))
			print(os.date("!%Y-%m-%d", -1e10), os.date("!%Y", 1e15), os.date("!%Y", 1e17), os.date("*t", 1e300))`,
		want: "-1|-1|99|-1|99|-1-11-28|Sun Nov 28 00:00:00 -1\t4|4-12-31|0|04|12/31/04\n1653-02-10\t31690708\tnil\tnil\n",
	},
	{
		name: "os.date *t and !*t",
		code: `local d = os.date("!*t", 1700000000)
			print(d.year, d.month, d.day, d.hour, d.min, d.sec, d.wday, d.yday, d.isdst)
			d = os.date("*t", 0)
			print(d.year, d.month, d.day, d.hour, d.min, d.sec, d.wday, d.yday, d.isdst)
			d = os.date("*t", 1590000000)
			print(d.hour, d.isdst, d.yday, d.wday)`,
		tz:   "Europe/Berlin",
		want: "2023\t11\t14\t22\t13\t20\t3\t318\tfalse\n1970\t1\t1\t1\t0\t0\t5\t1\tfalse\n20\ttrue\t141\t4\n",
	},
	{
		name: "os.time normalises",
		code: `print(os.time{year=2020, month=1, day=1}, os.time{year=2020, month=1, day=1, hour=0}, os.time{year=2020, month=13, day=32, hour=25, min=61, sec=-1})
			print(os.time{year=2020, month=3, day=0}, os.time{year="2021", month=2.9, day=28.5}, os.time{year=1, month=1, day=1}, os.time{year=-5000, month=1, day=1})
			E(os.time, {year=2020})
			E(os.time, {year=2020, month="x", day=1})
			E(os.time, 5)`,
		want: "1577880000\t1577836800\t1612231259\n1582977600\t1614513600\t-62135553600\t-219951892800\nerror\tfield 'day' missing in date table\nerror\tfield 'month' missing in date table\nerror\tbad argument #1 (table expected, got number)\n",
	},
	{
		name: "os.time isdst",
		code: `print(os.time{year=2020, month=6, day=1, hour=12, isdst=true}, os.time{year=2020, month=6, day=1, hour=12, isdst=false}, os.time{year=2020, month=1, day=1, hour=12, isdst=true}, os.time{year=2020, month=1, day=1, hour=12})
			print(os.time{year=2020, month=3, day=29, hour=2, min=30}, os.time{year=2020, month=10, day=25, hour=2, min=30})
			local d = os.date("*t", 1603589400) print(d.hour, d.isdst, os.time(d))`,
		tz:   "Europe/Berlin",
		want: "1591005600\t1591009200\t1577872800\t1577876400\n1585445400\t1603589400\n2\tfalse\t1603589400\n",
	},
	{
		name: "os.time isdst in UTC",
		code: `print(os.time{year=2020, month=6, day=1, isdst=true}, os.time{year=2020, month=6, day=1, isdst=false})`,
		want: "1591009200\t1591012800\n",
	},
	{
		name: "os.difftime",
		code: `print(os.difftime(10.9, 1.2), os.difftime(5), os.difftime(-1.5, 2^40))
			E(os.difftime)`,
		want: "9\t5\t-1099511627777\nerror\tbad argument #1 (number expected, got no value)\n",
	},
	{
		name: "os.clock is a number",
		code: `print(type(os.clock()), os.clock() >= 0)`,
		want: "number\ttrue\n",
	},
	{
		name: "io.open write read close",
		code: `local name = os.tmpname()
			local f = assert(io.open(name, "w"))
			print(io.type(f), io.type(io.stdout), io.type(42), io.type(nil), tostring(f):match("^file %(0x") ~= nil)
			print(f:write("12 3.5 0x10 -7e2\nline2\n\nlast"), f:write(1/3, " ", 2^63, "\n"))
			print(f:close(), io.type(f), tostring(f))
			E(f.write, f, "x")
			E(f.read, f)
			f = io.open(name)
			print(f:read("*n", "*n", "*n", "*n"))
			print(f:read("*l"), f:read("*l"), f:read("*l"), f:read("*l"), f:read("*l"), f:read("*l"))
			print(f:seek("set", 3), f:read(4), f:seek("cur"), f:seek("end"), f:read(0), f:read("*a"), f:read("*a"), f:read(1), f:read("*l"))
			print(f:seek(), f:seek("cur", -5), f:read("*a"))
			E(f.read, f, "*x")
			E(f.read, f, "x")
			E(f.seek, f, "bad")
			f:close()
			f = io.open(name) print(f:read(5, "*l", 2)) f:close()
			f = io.open(name) print(f:read("*n"), f:read("*n"), f:read("*n"), f:read("*n"), f:read("*n"), f:read("*l")) f:close()
			os.remove(name)`,
		want: "file\tfile\tnil\tnil\ttrue\ntrue\ttrue\ntrue\tclosed file\tfile (closed)\nerror\tattempt to use a closed file\nerror\tattempt to use a closed file\n12\t3.5\t16\t-700\n\tline2\t\tlast0.33333333333333 9.2233720368548e+18\tnil\tnil\n3\t3.5 \t7\t65\tnil\t\t\tnil\tnil\n65\t60\te+18\n\nerror\tbad argument #2 (invalid format)\nerror\tbad argument #2 (invalid option)\nerror\tbad argument #2 (invalid option 'bad')\n12 3.\t5 0x10 -7e2\tli\n12\t3.5\t16\t-700\tnil\tline2\n",
	},
	{
		name: "io.lines and CRLF",
		code: `local name = os.tmpname()
			local f = assert(io.open(name, "wb"))
			f:write("a,1\r\nb,2\r\n\r\nlast")
			f:close()
			local t = {}
			for l in io.lines(name) do t[#t + 1] = string.format("%q", l) end
			print(table.concat(t, " "))
			f = io.open(name, "rb")
			t = {}
			for l in f:lines() do t[#t + 1] = #l end
			print(table.concat(t, " "), f:read("*a"), f:read("*l"))
			f:close()
			E(f.lines, f)
			E(io.lines, "/nonexistent/x")
			os.remove(name)`,
		want: "\"a,1\\r\" \"b,2\\r\" \"\\r\" \"last\"\n4 4 1 4\t\tnil\nerror\tattempt to use a closed file\nerror\tbad argument #1 (/nonexistent/x: No such file or directory)\n",
	},
	{
		name: "io.read numbers",
		code: `local name = os.tmpname()
			local f = io.open(name, "w") f:write("  12  \n-3.5e1\n.5 abc\n0x1p4 inf 1e+ -nan 5") f:close()
			f = io.open(name)
			print(f:read("*n"), f:read("*n"), f:read("*n"), f:read("*n"), f:read("*l"))
			print(f:read("*n"), f:read("*n"), f:read("*n"), f:read("*a"))
			f:close()
			f = io.open(name) print(f:read("*l", "*n", "*n")) f:close()
			os.remove(name)`,
		want: "12\t-35\t0.5\tnil\tabc\n16\tinf\t1\t -nan 5\n  12  \t-35\t0.5\n",
	},
	{
		name: "io.open modes and errors",
		code: `local name = os.tmpname()
			print(io.open("/nonexistent/x"))
			local a, b, c = io.open(name, "z")
			print(io.open(name, "rz") ~= nil, a, b == name .. ": Invalid argument", c)
			local f = io.open(name, "w") print(f:read("*l")) f:close()
			f = io.open(name, "a+") print(f:write("ab"), f:seek("set"), f:read("*a"), f:write("cd"), f:seek("set"), f:read("*a")) f:close()
			f = io.open(name, "r+") print(f:read(1), f:write("X"), f:seek("set"), f:read("*a")) f:close()
			f = io.open(name, "r") print(f:write("x")) f:close()
			f = io.open(name, "w") print(f:setvbuf("no"), f:setvbuf("full", 1024), f:setvbuf("line"), f:flush()) E(f.setvbuf, f, "bad") f:close()
			E(io.open)
			E(io.read, "*x")
			os.remove(name)`,
		want: "nil\t/nonexistent/x: No such file or directory\t2\ntrue\tnil\ttrue\t22\nnil\tBad file descriptor\t9\ntrue\t0\tab\ttrue\t0\tabcd\na\ttrue\t0\taXcd\nnil\tBad file descriptor\t9\ntrue\ttrue\ttrue\ttrue\nerror\tbad argument #2 (invalid option 'bad')\nerror\tbad argument #1 (string expected, got no value)\nerror\tbad argument #1 (invalid format)\n",
	},
	{
		name: "io.input io.output io.close",
		code: `local name = os.tmpname()
			print(io.output() == io.stdout, io.input() == io.stdin)
			local f = io.output(name)
			print(io.type(f), io.output() == f, io.write("x", 1.5, "\n"), io.flush())
			print(io.close(), io.type(f))
			E(io.write, "y")
			io.output(io.stdout)
			io.input(name)
			print(io.read(), io.read(), io.read("*a"))
			io.input():close()
			E(io.read)
			E(io.lines)
			io.input(io.stdin)
			print(io.close(io.stdout))
			print(io.stdout:close(), io.stderr:close(), io.type(io.stdout))
			E(io.input, "/nonexistent/x")
			E(io.output, {})
			local g = io.open(name) g:close()
			E(io.output, g)
			os.remove(name)`,
		want: "true\ttrue\nfile\ttrue\ttrue\ttrue\ntrue\tclosed file\nerror\tstandard output file is closed\nx1.5\tnil\t\nerror\tstandard input file is closed\nerror\tattempt to use a closed file\nnil\tcannot close standard file\nnil\tnil\tfile\nerror\tbad argument #1 (/nonexistent/x: No such file or directory)\nerror\tbad argument #1 (FILE* expected, got table)\nerror\tattempt to use a closed file\n",
	},
	{
		name: "io.tmpfile and io.popen",
		code: `local f = io.tmpfile()
			print(io.type(f), f:write("abc"), f:seek("set"), f:read("*a"), f:close())
			local p = io.popen("echo hi; echo there")
			print(p:read("*l"), p:read("*a"), p:close())
			p = io.popen("cat > /dev/null", "w")
			print(p:write("data"), p:close())
			print(io.popen("exit 3"):close())`,
		want: "file\ttrue\t0\tabc\ttrue\nhi\tthere\n\ttrue\ntrue\ttrue\ntrue\n",
	},
	{
		name: "os.execute",
		code: `print(os.execute("exit 3"), os.execute("true"), os.execute() ~= 0, os.execute("kill -9 $$"))`,
		want: "768\t0\ttrue\t9\n",
	},
	{
		name: "os.remove os.rename os.tmpname os.getenv",
		code: `local n = os.tmpname() print(n:match("^/tmp/lua_") ~= nil, io.open(n) ~= nil)
			print(os.rename(n, n .. "x"), os.remove(n), os.remove(n .. "x"))
			print(os.remove("/nonexistent/x"))
			print(os.rename("/nonexistent/a", "/b"))
			print(os.getenv("PATH") ~= nil, os.getenv("NOPE_X"))
			E(os.getenv)
			E(os.remove)`,
		want: "true\ttrue\ntrue\tnil\ttrue\nnil\t/nonexistent/x: No such file or directory\t2\nnil\t/nonexistent/a: No such file or directory\t2\ntrue\tnil\nerror\tbad argument #1 (string expected, got no value)\nerror\tbad argument #1 (string expected, got no value)\n",
	},
	{
		name: "os.setlocale",
		code: `print(os.setlocale(), os.setlocale("C"), os.setlocale("POSIX"), os.setlocale(nil, "numeric"), os.setlocale("xx_YY"), os.setlocale("C", "time"))
			E(os.setlocale, "C", "bogus")`,
		want: "C\tC\tC\tC\tnil\tC\nerror\tbad argument #2 (invalid option 'bogus')\n",
	},
	{
		name: "os.time isdst with a half-hour shift",
		code: `print(os.time{year=2020, month=6, day=1, hour=12, isdst=true}, os.time{year=2020, month=1, day=1, hour=12, isdst=false}, os.time{year=2020, month=1, day=1, hour=12, isdst=true})`,
		tz:   "Australia/Lord_Howe",
		want: "1590973200\t1577842200\t1577840400\n",
	},
	{
		name: "file:read with a negative or huge count",
		code: `local f = io.tmpfile() f:write("abcdef") f:seek("set")
			print(f:read(-1), f:read(-1)) f:seek("set") print(f:read(2^40), f:read(3))`,
		want: "abcdef\tnil\nabcdef\tnil\n",
	},
	{
		name: "setvbuf buffers until flush",
		code: `local name = os.tmpname()
			local f = assert(io.open(name, "w"))
			local fr = assert(io.open(name, "r"))
			print(f:setvbuf("full", 2000), f:write("x"), fr:read("*a"), f:flush(), fr:read("*a"))
			print(f:setvbuf("line"), f:write("a"), fr:read("*a"), f:write("b\nc"), fr:read("*a"), f:setvbuf("no"), fr:read("*a"), f:write("d"), fr:read("*a"))
			f:setvbuf("full") f:write("e") print(f:close(), fr:read("*a"))
			fr:close() os.remove(name)`,
		want: "true\ttrue\t\ttrue\tx\ntrue\ttrue\t\ttrue\tab\n\ttrue\tc\ttrue\td\ntrue\te\n",
	},
}

func TestOS(t *testing.T) { runLibraryCases(t, osCases) }

// Handwritten tests follow.
// TestOSClockIsCPUTime checks that os.clock counts the process's CPU time:
// it hardly moves while the process sleeps and moves while Lua computes.
func TestOSClockIsCPUTime(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	clock := func() float64 {
		if err := L.DoString(`c = os.clock()`); err != nil {
			t.Fatal(err)
		}
		return float64(L.GetGlobal("c").(lua.LNumber))
	}
	c0 := clock()
	time.Sleep(200 * time.Millisecond)
	c1 := clock()
	if c1-c0 > 0.1 {
		t.Errorf("os.clock advanced %.3f s during a 0.2 s sleep", c1-c0)
	}
	if err := L.DoString(`local x = 0 for i = 1, 3e6 do x = x + i end`); err != nil {
		t.Fatal(err)
	}
	if c2 := clock(); c2-c1 < 0.02 { // the loop takes about 0.3 s of CPU
		t.Errorf("os.clock advanced %.3f s during 3e6 iterations", c2-c1)
	}
}

// TestExitRefused checks that with Options.ExitRefused os.exit raises an
// error in every form a script can reach it: called at once, kept in a
// local before any code of the script ran, or through a table of its own.
func TestExitRefused(t *testing.T) {
	L := NewState(Options{ExitRefused: "no exit here"})
	defer L.Close()
	for _, src := range []string{
		`os.exit(9)`,
		`local exit = os.exit; exit(0)`,
		`local o = {x = os.exit}; o.x(true)`,
	} {
		err := DoString(L, src)
		if err == nil || !strings.Contains(err.Error(), "no exit here") {
			t.Errorf("%s: %v, want the refusal", src, err)
		}
	}
}
