package lua51

import "testing"

// toStringCases are Lua 5.1 behaviours, each with the output that Debian's lua5.1
// (5.1.5, glibc 2.36, x86-64) printed for it: recorded once by running the
// case under lua5.1 with testPrelude, in the time zone tz (UTC if empty).
var toStringCases = []libraryCase{
	{
		name: "print numbers %.14g",
		code: `print(0.1 + 0.2, 1/3, 2^53, 1e16, 1e15, 1e14, 123456789012345, 1e-5, 2^63, 1e100, -1.5, 100, -7)`,
		want: "0.3\t0.33333333333333\t9.007199254741e+15\t1e+16\t1e+15\t1e+14\t1.2345678901234e+14\t1e-05\t9.2233720368548e+18\t1e+100\t-1.5\t100\t-7\n",
	},
	{
		name: "print inf and nan",
		code: `local z = 0 print(1/0, -1/0, z/z, -(z/z), math.huge, -math.huge)`,
		want: "inf\t-inf\t-nan\tnan\tinf\t-inf\n",
	},
	{
		name: "print negative zero",
		code: `local x = 0 print(-x, math.modf(-0.5))`,
		want: "-0\t-0\t-0.5\n",
	},
	{
		name: "print nil booleans strings",
		code: `print(nil, true, false, "a\tb", "")`,
		want: "nil\ttrue\tfalse\ta\tb\t\n",
	},
	{
		name: "print uses tostring and __tostring",
		code: `print(setmetatable({}, {__tostring = function() return "T" end}), setmetatable({}, {__tostring = function() return 42 end}))
			local old = tostring
			tostring = function(v) return "<" .. old(v) .. ">" end
			print(1, "x")
			tostring = old`,
		want: "T\t42\n<1>\t<x>\n",
	},
	{
		name: "print rejects a non-string tostring",
		code: `E(print, setmetatable({}, {__tostring = function() return {} end}))`,
		want: "error\t'tostring' must return a string to 'print'\n",
	},
	{
		name: "tostring",
		code: `print(tostring(1/3), tostring(-0.5), tostring(1e300 * 10), tostring(nil), tostring(true), tostring("s"), type(tostring(print)), tostring(print):match("^function: ") ~= nil)
			print(tostring(setmetatable({}, {__tostring = function() return 42 end})) == 42)
			E(tostring)`,
		want: "0.33333333333333\t-0.5\t1e+301\tnil\ttrue\ts\tstring\ttrue\ntrue\nerror\tbad argument #1 (value expected)\n",
	},
	{
		name: "tonumber base 10",
		code: `print(tonumber("1e3"), tonumber("12\r"), tonumber(" \t10\n "), tonumber("0x1A"), tonumber("0X1p4"), tonumber("-.5"), tonumber("5."), tonumber("1.5", 10), tonumber(7), tonumber("inf"), tonumber("-nan") ~= nil)
			print(tonumber(""), tonumber("  "), tonumber("0x"), tonumber("1e"), tonumber("1 2"), tonumber("abc"), tonumber(nil), tonumber({}), tonumber("1e500"), tonumber("010"), tonumber("1_000"), tonumber("0b101"))
			E(tonumber)`,
		want: "1000\t12\t10\t26\t16\t-0.5\t5\t1.5\t7\tinf\ttrue\nnil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\tinf\t10\tnil\tnil\nerror\tbad argument #1 (value expected)\n",
	},
	{
		name: "tonumber reads as strtod",
		code: `local cases = {"12\0abc", "0x", "0x.8", "0X1P-2", "1e+", "1e+5", ".", "-.e1", "+5", "- 5", "++5", "0x-5", "-0x10", "inf", "-Infinity", "infinit", "nan", "NAN(abc_1)", "nan()", "nan(-)", "1.5e308", "1e309", "-1e309", "4.9e-324", "1e-400", "0x1p1024", "  \v\f12\v", "12 \0", "1..2", "0x1.", "0x.", "1e5.5", "0e0", "00012", "1E2", "1d2", "12f", "0x1g", "\r\n5\r\n", "0b1", "0o7", "1_000", "\t", "5 5", "0xffffffffffffffffffffffff", "123456789012345678901234567890"}
			local out = {}
			for i, s in ipairs(cases) do
			  local n = tonumber(s)
			  out[i] = i .. "=" .. (n == nil and "nil" or string.format("%.17g", n))
			end
			print(table.concat(out, " "))`,
		want: "1=12 2=nil 3=0.5 4=0.25 5=nil 6=100000 7=nil 8=nil 9=5 10=nil 11=nil 12=nil 13=-16 14=inf 15=-inf 16=nil 17=nan 18=nan 19=nan 20=nil 21=1.5e+308 22=inf 23=-inf 24=4.9406564584124654e-324 25=0 26=inf 27=12 28=12 29=nil 30=1 31=nil 32=nil 33=0 34=12 35=100 36=nil 37=nil 38=nil 39=5 40=nil 41=nil 42=nil 43=nil 44=nil 45=7.9228162514264338e+28 46=1.2345678901234568e+29\n",
	},
	{
		name: "tonumber other bases",
		code: `print(tonumber("10", 16), tonumber("ff", 16), tonumber("FF", 16), tonumber("zz", 36), tonumber("8", 8), tonumber("777", 8), tonumber("101", 2), tonumber(12, 16), tonumber("0x10", 16), tonumber(" 11 ", 2))
			print(tonumber(" -ff ", 16), tonumber("-10", 2), tonumber("1 0", 2), tonumber("7fffffff", 16), tonumber("ffffffffffffffff", 16), tonumber("1fffffffffffffffff", 16), tonumber("", 16), tonumber("0x", 16), tonumber("1.5", 16), tonumber("10", 10.7))
			E(tonumber, "10", 1)
			E(tonumber, "10", 37)
			E(tonumber, {}, 16)`,
		want: "16\t255\t255\t1295\tnil\t511\t5\t18\t16\t3\n1.844674407371e+19\t1.844674407371e+19\tnil\t2147483647\t1.844674407371e+19\t1.844674407371e+19\tnil\tnil\tnil\t10\nerror\tbad argument #2 (base out of range)\nerror\tbad argument #2 (base out of range)\nerror\tbad argument #1 (string expected, got table)\n",
	},
	{
		name: "string arithmetic coercion",
		code: `print("12\r" + 1, "1e3" + 0, "010" + 0, " 0x10 " * 2, -"2", "10" % "3", "2" ^ "0.5", 10 - "0.5", "7" / 2, "-5.5" % 2)
			E(function() return "abc" + 1 end)
			E(function() return 1 + "1 2" end)
			E(function() return {} + "1" end)
			E(function() return "1" - {} end)
			E(function() return -"x" end)
			print(getmetatable("").__index == string, string.__index)`,
		want: "13\t1000\t10\t32\t-2\t1\t1.4142135623731\t9.5\t3.5\t0.5\nerror\tattempt to perform arithmetic on a string value\nerror\tattempt to perform arithmetic on a string value\nerror\tattempt to perform arithmetic on a table value\nerror\tattempt to perform arithmetic on a table value\nerror\tattempt to perform arithmetic on a string value\ntrue\tnil\n",
	},
	{
		name: "string arithmetic falls back to the other operand's metamethod",
		code: `local V = setmetatable({}, {__add = function(a, b) return "V+" .. type(a) .. type(b) end, __unm = function(a) return "neg" end, __pow = function(a, b) return "pow" end})
			print("x" + V, V + "x", "1" + V, V + "1", "2" ^ V, -V)
			E(function() return "1" * true end)
			E(function() return "a" / "b" end)
			print(-"-3", -" 0x10 ", "3" % "-2")`,
		want: "V+stringtable\tV+tablestring\tV+stringtable\tV+tablestring\tpow\tneg\nerror\tattempt to perform arithmetic on a boolean value\nerror\tattempt to perform arithmetic on a string value\n3\t-16\t-1\n",
	},
	{
		name: "string functions convert numbers",
		code: `print(string.len(12.5), string.sub(0.1 + 0.2, 1, 3), string.upper(1/3), string.lower(1e20), string.byte(12), string.reverse(1e20), string.rep(0.5, 2))`,
		want: "4\t0.3\t0.33333333333333\t1e+20\t49\t02+e1\t0.50.5\n",
	},
	{
		name: "string.sub",
		code: `local s = "hello"
			print(s:sub(2, 4), s:sub(-3), s:sub(0), s:sub(2.9, 4.1), s:sub(4, 2), s:sub(-100, 100), s:sub(3, -2), ("x"):sub(2), s:sub("2", "3"))
			E(string.sub, "x", "y")
			E(string.sub)`,
		want: "ell\tllo\thello\tell\t\thello\tll\t\tel\nerror\tbad argument #2 (number expected, got string)\nerror\tbad argument #1 (string expected, got no value)\n",
	},
	{
		name: "string.byte and string.char",
		code: `print(string.byte("abc"), string.byte("abc", -1), string.byte("abc", 1, -1))
			print(string.byte("abc", 10), string.byte("", 1), select("#", string.byte("abc", 3, 1)))
			print(string.char(), string.char(72.9, "105"), #string.char(0, 255))
			E(string.char, 256)
			E(string.char, -1)
			E(string.char, "x")`,
		want: "97\t99\t97\t98\t99\nnil\tnil\t0\n\tHi\t2\nerror\tbad argument #1 (invalid value)\nerror\tbad argument #1 (invalid value)\nerror\tbad argument #1 (number expected, got string)\n",
	},
	{
		name: "string.rep",
		code: `print(string.rep("ab", 3), string.rep("ab", 3, ","), string.rep("x", 0), string.rep("x", -1), string.rep("x", 2.7), string.rep("", 100))
			E(string.rep)
			E(string.rep, "x")`,
		want: "ababab\tababab\t\t\txx\t\nerror\tbad argument #1 (string expected, got no value)\nerror\tbad argument #2 (number expected, got no value)\n",
	},
	{
		name: "string.len upper lower reverse",
		code: `print(string.len(""), string.len("a\0b"), string.upper("aBc\200"), string.lower("AbC"), string.reverse("abc"), string.reverse(""))
			E(string.len)
			E(string.upper, {})`,
		want: "0\t3\tABC\xc8\tabc\tcba\t\nerror\tbad argument #1 (string expected, got no value)\nerror\tbad argument #1 (string expected, got table)\n",
	},
	{
		name: "io.write and file:write",
		code: `local f = io.tmpfile()
			io.output(f)
			io.write(0.1 + 0.2, " ", 1e100, " ", 7, "\n")
			f:write(1/3, " ", -1/0, "\n")
			io.output(io.stdout)
			f:seek("set")
			print(f:read("*a"))`,
		want: "0.3 1e+100 7\n0.33333333333333 -inf\n\n",
	},
	{
		name: "table.concat",
		code: `print(table.concat({1, 2.5, 0.1 + 0.2, 1/0}, ","), table.concat({"a", "b"}, 0.5), table.concat({1, 2, 3}, ",", 3, 2), table.concat({}), table.concat({1, 2, 3}, ", ", 2))
			local t = {} for i = 1, 100000 do t[i] = i end
			local s = table.concat(t, ",") print(#s, s:sub(-13))
			E(table.concat, {1, {}, 3})
			E(table.concat, {1, 2, 3}, ",", 2, 5)
			E(table.concat, "x")`,
		want: "1,2.5,0.3,inf\ta0.5b\t\t\t2, 3\n588894\t,99999,100000\nerror\tinvalid value (table) at index 2 in table for 'concat'\nerror\tinvalid value (nil) at index 4 in table for 'concat'\nerror\tbad argument #1 (table expected, got string)\n",
	},
	{
		name: "tostring of a protected metatable's object",
		code: `local a = setmetatable({name = "A"}, {__metatable = "xuxu", __tostring = function(x) return x.name end})
			print(getmetatable(a), tostring(a), tostring(setmetatable({}, {__metatable = 1, __tostring = function() end})))
			local V = setmetatable({}, {__metatable = false, __add = function() return "added" end})
			print("x" + V)`,
		want: "xuxu\tA\tnil\nadded\n",
	},
}

func TestToString(t *testing.T) { runLibraryCases(t, toStringCases) }
