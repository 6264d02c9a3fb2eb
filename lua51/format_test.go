package lua51

import "testing"

// formatCases are Lua 5.1 behaviours, each with the output that Debian's lua5.1
// (5.1.5, glibc 2.36, x86-64) printed for it: recorded once by running the
// case under lua5.1 with testPrelude, in the time zone tz (UTC if empty).
var formatCases = []libraryCase{
	{
		name: "%d and %i",
		code: `print(string.format("%d|%i|%5d|%-5d|%05d|%+d|% d|%.3d|%5.3d|%.0d|%d", 42, -42, 42, 42, -42, 5, 5, 7, 7, 0, 3.9))
			print(string.format("%d %d %d %d %d", -3.9, 2^31, -2^63, 1e100, 0/0))`,
		want: "42|-42|   42|42   |-0042|+5| 5|007|  007||3\n-3 2147483648 -9223372036854775808 -9223372036854775808 -9223372036854775808\n",
	},
	{
		name: "%u %o %x %X",
		code: `print(string.format("%u|%o|%x|%X|%#x|%#X|%#o|%#o|%#x|%08x|%-6X|", 42, 8, 255, 255, 255, 255, 8, 0, 0, 255, 255))
			print(string.format("%x %x %x %x %x %u %o", -1, 2^53, 2^64, 1e30, 2^63, -1, 2^63 + 2^12))`,
		want: "42|10|ff|FF|0xff|0XFF|010|0|0|000000ff|FF    |\nffffffffffffffff 20000000000000 0 0 8000000000000000 18446744073709551615 1000000000000000010000\n",
	},
	{
		name: "%c",
		code: `print(string.format("%c%c%c|%3c|%-3c|", 72, 105.9, "33", 65, 66))
			print(#string.format("%c", 0), #string.format("%5c", 0), string.format("%c", 256 + 65), string.format("%c", -1):byte())`,
		want: "Hi!|  A|B  |\n0\t4\tA\t255\n",
	},
	{
		name: "%e %E %f",
		code: `print(string.format("%e|%E|%.2e|%12.4E|%-12.3e|%+e|%#.0e|%e", 12345.678, 0.000123, 1/3, 1e100, -1, 0, 3, 0))
			print(string.format("%f|%.3f|%5.2f|%-8.1f|%+f|% f|%08.3f|%#.0f|%.0f %.0f %.0f %.0f|%.20f", 1/3, 2.5, 3.14159, -2, 1, 1, -3.14159, 3, 0.5, 1.5, 2.5, -0.5, 0.1))
			print(#string.format("%.99f", 1/3), string.format("%f", 1e20))`,
		want: "1.234568e+04|1.230000E-04|3.33e-01| 1.0000E+100|-1.000e+00  |+0.000000e+00|3.e+00|0.000000e+00\n0.333333|2.500| 3.14|-2.0    |+1.000000| 1.000000|-003.142|3.|0 2 2 -0|0.10000000000000000555\n101\t100000000000000000000.000000\n",
	},
	{
		name: "%g %G",
		code: `print(string.format("%g|%g|%g|%g|%g|%g|%g|%g", 123456789, 100000, 1e20, 1e-5, 0.0001, 123456, 1234567, 0))
			print(string.format("%.3g|%.10g|%#g|%#.3g|%.0g|%G|%G|%-+8.2g|%.14g|%g", 1/3, 1/3, 1, 1, 12.5, 1e-10, 1e20, 12345, 2^53, 9.9999999))`,
		want: "1.23457e+08|100000|1e+20|1e-05|0.0001|123456|1.23457e+06|0\n0.333|0.3333333333|1.00000|1.00|1e+01|1E-10|1E+20|+1.2e+04|9.007199254741e+15|10\n",
	},
	{
		name: "inf and nan in conversions",
		code: `local z = 0
			print(string.format("%f|%e|%g|%E|%G|%5.1f|%-6f|%+f|%05f|% f", z/z, -(z/z), 1/0, -1/0, 1/0, -(z/z), 1/0, 1/0, -1/0, 1/0))`,
		want: "-nan|nan|inf|-INF|INF|  nan|inf   |+inf| -inf| inf\n",
	},
	{
		name: "%s",
		code: `print(string.format("%s|%5s|%-5s|%.2s|%5.1s|%s|%08s|%#5s", "ab", "ab", "ab", "abc", "xyz", 1/3, "ab", "ab"))
			print(string.format("%s %s", 1e15, 12.5), #string.format("%s", "a\0b"), #string.format("%10s", "a\0b"), #string.format("%s", ("x"):rep(99) .. "\0y"), #string.format("%s", ("x"):rep(100) .. "\0y"))
			E(string.format, "%s", {})
			E(string.format, "%s", setmetatable({}, {__tostring = function() return "T" end}))
			E(string.format, "%10s", nil)`,
		want: "ab|   ab|ab   |ab|    x|0.33333333333333|      ab|   ab\n1e+15 12.5\t1\t10\t101\t102\nerror\tbad argument #2 (string expected, got table)\nerror\tbad argument #2 (string expected, got table)\nerror\tbad argument #2 (string expected, got nil)\n",
	},
	{
		name: "%q",
		code: `local s = "a\0b\r\n\t\"\\\1\127\255z"
			local q = string.format("%q", s)
			print(q)
			print(loadstring("return " .. q)() == s, string.format("%q", 1/3), string.format("%q", 10), string.format("%10.3q", "x"))
			E(string.format, "%q")`,
		want: "\"a\\000b\\r\\\n\t\\\"\\\\\x01\x7f\xffz\"\ntrue\t\"0.33333333333333\"\t\"10\"\t\"x\"\nerror\tbad argument #2 (no value)\n",
	},
	{
		name: "%% and literal text",
		code: `print(string.format("100%% of %s%%", "x"), string.format("no conversions"), string.format(""), string.format("%5.1f%%", 99.44))`,
		want: "100% of x%\tno conversions\t\t 99.4%\n",
	},
	{
		name: "numeric strings as numbers",
		code: `print(string.format("%5.2f|%d|%x|%g", "3.14159", "10", " 0x1F ", "1e3"))
			E(string.format, "%d", "x")
			E(string.format, "%f", "1,5")`,
		want: " 3.14|10|1f|1000\nerror\tbad argument #2 (number expected, got string)\nerror\tbad argument #2 (number expected, got string)\n",
	},
	{
		name: "format errors",
		code: `E(string.format, "%d")
			E(string.format, "%s %s", 1)
			E(string.format, "%y", 1)
			E(string.format, "%y")
			E(string.format, "%", 1)
			E(string.format, "%a", 1)
			E(string.format, "%ld", 1)
			E(string.format, "%--5d", 1)
			E(string.format, "%#-+ 0#5d", 1)
			E(string.format, "%0-+ #5d", 1)
			E(string.format, "%100d", 1)
			E(string.format, "%5.100d", 1)
			E(string.format, "%99.99f", 1)
			E(string.format, "%9.", 1)
			E(string.format, "%5%", 1)
			E(string.format)
			E(string.format, {})`,
		want: "error\tbad argument #2 (no value)\nerror\tbad argument #3 (no value)\nerror\tinvalid option '%y' to 'format'\nerror\tbad argument #2 (no value)\nerror\tinvalid option '%' to 'format'\nerror\tinvalid option '%a' to 'format'\nerror\tinvalid option '%l' to 'format'\nok\t1    \nerror\tinvalid format (repeated flags)\nok\t+1   \nerror\tinvalid format (width or precision too long)\nerror\tinvalid format (width or precision too long)\nok\t1.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\nerror\tinvalid option '%' to 'format'\nerror\tinvalid option '%%' to 'format'\nerror\tbad argument #1 (string expected, got no value)\nerror\tbad argument #1 (string expected, got table)\n",
	},
}

func TestFormat(t *testing.T) { runLibraryCases(t, formatCases) }
