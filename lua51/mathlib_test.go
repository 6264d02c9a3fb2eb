package lua51

import "testing"

// mathCases are Lua 5.1 behaviours, each with the output that Debian's lua5.1
// (5.1.5, glibc 2.36, x86-64) printed for it: recorded once by running the
// case under lua5.1 with testPrelude, in the time zone tz (UTC if empty).
var mathCases = []libraryCase{
	{
		name: "math.huge and math.pi",
		code: `print(math.huge, -math.huge, math.huge == 1/0, math.huge > 2^1023, math.pi)`,
		want: "inf\t-inf\ttrue\ttrue\t3.1415926535898\n",
	},
	{
		name: "math.floor and math.ceil",
		code: `print(math.floor(-3.5), math.ceil(-3.5), math.floor(3.5), math.ceil(3.2), math.floor(-0.5), math.floor("7.5"), math.floor(" 0x10 "), math.floor(2^60 + 0.5), math.floor(1/0))
			E(math.floor, "x")
			E(math.floor)`,
		want: "-4\t-3\t3\t4\t-1\t7\t16\t1.1529215046068e+18\tinf\nerror\tbad argument #1 (number expected, got string)\nerror\tbad argument #1 (number expected, got no value)\n",
	},
	{
		name: "math.fmod and math.mod",
		code: `print(math.fmod(5.5, 2), math.fmod(-5.5, 2), math.fmod(5.5, -2), math.fmod(1, 0), math.fmod(-1, 0), math.fmod(1/0, 1), math.fmod(1, 1/0), math.mod(7, 3), math.fmod(-6, 3))`,
		want: "1.5\t-1.5\t1.5\t-nan\t-nan\t-nan\t1\t1\t-0\n",
	},
	{
		name: "math.modf",
		code: `print(math.modf(3.7))
			print(math.modf(-3.7))
			print(math.modf(1/0))
			print(math.modf(-1/0))
			print(math.modf(-0.5))
			print(math.modf(5))`,
		want: "3\t0.7\n-3\t-0.7\ninf\t0\n-inf\t-0\n-0\t-0.5\n5\t0\n",
	},
	{
		name: "math.frexp and math.ldexp",
		code: `print(math.frexp(8))
			print(math.frexp(0), math.frexp(-3), math.frexp(1/0), math.frexp(0.1))
			print(math.ldexp(0.5, 4), math.ldexp(1, 2.9), math.ldexp(1, 1024), math.ldexp(1, -1080), math.ldexp(-3, "2"))`,
		want: "0.5\t4\n0\t-0.75\tinf\t0.8\t-3\n8\t4\tinf\t0\t-12\n",
	},
	{
		name: "math.pow log exp sqrt",
		code: `print(math.pow(2, 0.5), math.pow(-8, 1/3), math.pow(0, -1), math.pow(2, 1024), math.log(0), math.log(-1), math.log10(1000), math.log10(-1), math.log10(0), math.exp(1), math.exp(710), math.sqrt(-1), math.sqrt(2))`,
		want: "1.4142135623731\t-nan\tinf\tinf\t-inf\t-nan\t3\tnan\t-inf\t2.718281828459\tinf\t-nan\t1.4142135623731\n",
	},
	{
		name: "trigonometry",
		code: `print(math.sin(1), math.cos(1), math.tan(1), math.asin(0.5), math.acos(0.5), math.atan(1), math.atan2(1, 2), math.atan2(-1, -1), math.sinh(1), math.cosh(1), math.tanh(0.5), math.acos(2), math.asin(2), math.sin(1/0), math.cos(1/0), math.tan(1/0))`,
		want: "0.8414709848079\t0.54030230586814\t1.5574077246549\t0.5235987755983\t1.0471975511966\t0.78539816339745\t0.46364760900081\t-2.3561944901923\t1.1752011936438\t1.5430806348152\t0.46211715726001\tnan\tnan\t-nan\t-nan\t-nan\n",
	},
	{
		name: "math.deg and math.rad",
		code: `print(math.deg(1), math.rad(180), math.deg(math.pi), math.rad(1))`,
		want: "57.295779513082\t3.1415926535898\t180\t0.017453292519943\n",
	},
	{
		name: "math.abs min max",
		code: `print(math.abs(-3), math.abs(-3.5), math.abs(-1/0), math.max(3, "10", 2), math.min(1, -1/0), math.max(-1), math.min(4, 2, 8))
			E(math.max)
			E(math.min, 1, "x")`,
		want: "3\t3.5\tinf\t10\t-inf\t-1\t2\nerror\tbad argument #1 (number expected, got no value)\nerror\tbad argument #2 (number expected, got string)\n",
	},
	{
		name: "NaN signs",
		code: `local nn = 0/0 local pn = -nn
			print(math.floor(nn), math.floor(pn), math.ceil(nn), math.abs(nn), math.abs(pn), math.sqrt(pn), math.log(pn), math.exp(nn), math.exp(pn), math.deg(nn), math.deg(pn))
			print(math.max(nn, 1), math.max(1, nn), math.min(1, nn), math.pow(nn, 1), math.pow(pn, 1), math.pow(1, nn), math.pow(nn, 0), math.fmod(nn, 1), math.fmod(pn, 1), math.fmod(1, nn), math.ldexp(nn, 1), math.frexp(pn), math.atan2(nn, 1), math.atan2(1, pn))
			print(math.cosh(pn), math.tanh(pn), math.sin(pn), math.cos(pn), math.modf(nn))`,
		want: "-nan\tnan\t-nan\tnan\tnan\tnan\tnan\t-nan\tnan\t-nan\tnan\n-nan\t1\t1\tnan\tnan\t1\t1\t-nan\tnan\t-nan\t-nan\tnan\t-nan\tnan\nnan\tnan\tnan\tnan\t-nan\t-nan\n",
	},
	{
		name: "string arguments",
		code: `print(math.sqrt("16"), math.max("3", 2), math.fmod("7", "4"), math.abs(" -2 "), math.floor("1e3"))`,
		want: "4\t3\t3\t2\t1000\n",
	},
}

func TestMath(t *testing.T) { runLibraryCases(t, mathCases) }
