package lua51

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The math library as Lua 5.1's lmathlib.c on glibc: arguments that are
// numeric strings are read with ParseNumber, math.huge is +inf (gopher-lua
// gives the largest finite double), modf of an infinity has the fraction 0,
// math.random and math.randomseed use the state's own glibc-compatible
// generator (gopher-lua calls Go's global rand.Seed, which Go ignores), and
// NaN results carry the sign glibc gives them, which print shows as nan or
// -nan: a NaN argument is passed through with its sign, and an invalid
// operation (log(-1), sqrt(-1), fmod(1, 0), sin(inf)) gives -nan except
// where glibc gives nan (log10, acos, asin).

// installMath replaces the math library's functions; g is the state's
// generator.
func installMath(L *lua.LState, g *random) {
	m := library(L, "math")
	if m == nil {
		return
	}
	fns := map[string]lua.LGFunction{
		"abs":   mathAbs,
		"acos":  unary(math.Acos, false),
		"asin":  unary(math.Asin, false),
		"atan":  unary(math.Atan, true),
		"ceil":  unary(math.Ceil, true),
		"cos":   unary(math.Cos, true),
		"cosh":  unary(math.Cosh, true),
		"deg":   unary(func(x float64) float64 { return x / (math.Pi / 180) }, true),
		"exp":   unary(math.Exp, true),
		"floor": unary(math.Floor, true),
		"log":   unary(math.Log, true),
		"log10": unary(math.Log10, false),
		"rad":   unary(func(x float64) float64 { return x * (math.Pi / 180) }, true),
		"sin":   unary(math.Sin, true),
		"sinh":  unary(math.Sinh, true),
		"sqrt":  unary(math.Sqrt, true),
		"tan":   unary(math.Tan, true),
		"tanh":  unary(math.Tanh, true),
		"atan2": mathAtan2,
		"fmod":  mathFmod,
		"mod":   mathFmod,
		"pow":   mathPow,
		"modf":  mathModf,
		"frexp": mathFrexp,
		"ldexp": mathLdexp,
		"max":   mathMinMax(func(d, m float64) bool { return d > m }),
		"min":   mathMinMax(func(d, m float64) bool { return d < m }),
		"random": func(L *lua.LState) int {
			return mathRandom(L, g)
		},
		"randomseed": func(L *lua.LState) int {
			g.seed(uint32(checkInt(L, 1)))
			return 0
		},
	}
	setFuncs(L, m, fns)
	m.RawSetString("huge", lua.LNumber(math.Inf(1)))
	m.RawSetString("pi", lua.LNumber(math.Pi))
}

// nan is a NaN with the given sign.
func nan(negative bool) float64 {
	if negative {
		return math.Copysign(math.NaN(), -1)
	}
	return math.Copysign(math.NaN(), 1)
}

// mathAbs is math.abs(x), which clears a NaN's sign too.
func mathAbs(L *lua.LState) int {
	L.Push(lua.LNumber(math.Abs(float64(checkNumber(L, 1)))))
	return 1
}

// unary makes a one-argument function of f: a NaN argument is returned as
// it is, and a NaN result of another argument is -nan when
// invalidNegative, nan otherwise.
func unary(f func(float64) float64, invalidNegative bool) lua.LGFunction {
	return func(L *lua.LState) int {
		x := float64(checkNumber(L, 1))
		r := f(x)
		switch {
		case math.IsNaN(x):
			r = x
		case math.IsNaN(r) && !math.IsNaN(x):
			r = nan(invalidNegative)
		}
		L.Push(lua.LNumber(r))
		return 1
	}
}

// binaryNaN is the result glibc gives for two arguments when one of them
// is NaN: the first NaN, sign included.
func binaryNaN(x, y float64) (float64, bool) {
	switch {
	case math.IsNaN(x):
		return x, true
	case math.IsNaN(y):
		return y, true
	}
	return 0, false
}

// mathAtan2 is math.atan2(y, x).
func mathAtan2(L *lua.LState) int {
	y, x := float64(checkNumber(L, 1)), float64(checkNumber(L, 2))
	if r, ok := binaryNaN(y, x); ok {
		L.Push(lua.LNumber(r))
	} else {
		L.Push(lua.LNumber(math.Atan2(y, x)))
	}
	return 1
}

// mathFmod is math.fmod(x, y) (and math.mod, Lua 5.1's old name): C's
// fmod, with the sign of x.
func mathFmod(L *lua.LState) int {
	x, y := float64(checkNumber(L, 1)), float64(checkNumber(L, 2))
	r, ok := binaryNaN(x, y)
	if !ok {
		r = math.Mod(x, y)
		if math.IsNaN(r) {
			r = nan(true)
		}
	}
	L.Push(lua.LNumber(r))
	return 1
}

// mathPow is math.pow(x, y).
func mathPow(L *lua.LState) int {
	L.Push(lua.LNumber(luaPow(float64(checkNumber(L, 1)), float64(checkNumber(L, 2)))))
	return 1
}

// mathModf is math.modf(x): the integral part and the fraction, both with
// the sign of x; an infinity's fraction is 0.
func mathModf(L *lua.LState) int {
	x := float64(checkNumber(L, 1))
	i, f := math.Modf(x)
	if math.IsInf(x, 0) {
		f = math.Copysign(0, x)
	}
	L.Push(lua.LNumber(i))
	L.Push(lua.LNumber(f))
	return 2
}

// mathFrexp is math.frexp(x): m and e with x = m * 2^e, 0.5 <= |m| < 1.
func mathFrexp(L *lua.LState) int {
	m, e := math.Frexp(float64(checkNumber(L, 1)))
	L.Push(lua.LNumber(m))
	L.Push(lua.LNumber(e))
	return 2
}

// mathLdexp is math.ldexp(m, e): m * 2^e, e cut to a C int.
func mathLdexp(L *lua.LState) int {
	L.Push(lua.LNumber(math.Ldexp(float64(checkNumber(L, 1)), checkInt(L, 2))))
	return 1
}

// mathMinMax makes math.min or math.max: the first argument, replaced by
// each later one that better says, as lmathlib.c compares (so a NaN first
// argument stays).
func mathMinMax(better func(d, m float64) bool) lua.LGFunction {
	return func(L *lua.LState) int {
		m := float64(checkNumber(L, 1))
		for i := 2; i <= L.GetTop(); i++ {
			if d := float64(checkNumber(L, i)); better(d, m) {
				m = d
			}
		}
		L.Push(lua.LNumber(m))
		return 1
	}
}

// mathRandom is Lua 5.1's math.random([m [, n]]) on the generator g.
func mathRandom(L *lua.LState, g *random) int {
	r := g.float()
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := checkInt(L, 1)
		if u < 1 {
			argError(L, 1, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l, u := checkInt(L, 1), checkInt(L, 2)
		if l > u {
			argError(L, 2, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(int32(u-l+1))) + float64(l)))
	default:
		luaError(L, "wrong number of arguments")
	}
	return 1
}
