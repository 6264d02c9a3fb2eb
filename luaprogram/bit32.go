package luaprogram

import (
	"math"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

// openBit32 sets the global bit32, Lua 5.2's library of bitwise operations
// on 32-bit unsigned words, which Lua 5.1 lacks and which programs need to
// compute over the words they load and store: band, bor, bxor, bnot,
// lshift, rshift, arshift, lrotate, rrotate, btest, extract and replace, as
// the Lua 5.2 manual defines them (arguments are taken modulo 2^32).
func openBit32(L *lua.LState) {
	fold := func(op func(a, b uint32) uint32, empty uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			r := empty
			for i := 1; i <= L.GetTop(); i++ {
				r = op(r, word(L, i))
			}
			L.Push(lua.LNumber(r))
			return 1
		}
	}
	shift := func(f func(x uint32, n int) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			L.Push(lua.LNumber(f(word(L, 1), L.CheckInt(2))))
			return 1
		}
	}
	fns := map[string]lua.LGFunction{
		"band": fold(func(a, b uint32) uint32 { return a & b }, ^uint32(0)),
		"bor":  fold(func(a, b uint32) uint32 { return a | b }, 0),
		"bxor": fold(func(a, b uint32) uint32 { return a ^ b }, 0),
		"bnot": func(L *lua.LState) int { L.Push(lua.LNumber(^word(L, 1))); return 1 },
		"btest": func(L *lua.LState) int {
			r := ^uint32(0)
			for i := 1; i <= L.GetTop(); i++ {
				r &= word(L, i)
			}
			L.Push(lua.LBool(r != 0))
			return 1
		},
		"lshift": shift(func(x uint32, n int) uint32 {
			if n < 0 {
				return logicalRight(x, -n)
			}
			return logicalLeft(x, n)
		}),
		"rshift": shift(func(x uint32, n int) uint32 {
			if n < 0 {
				return logicalLeft(x, -n)
			}
			return logicalRight(x, n)
		}),
		"arshift": shift(func(x uint32, n int) uint32 {
			switch {
			case n < 0:
				return logicalLeft(x, -n)
			case n >= 32:
				if int32(x) < 0 {
					return ^uint32(0)
				}
				return 0
			}
			return uint32(int32(x) >> n)
		}),
		"lrotate": shift(func(x uint32, n int) uint32 { return bits.RotateLeft32(x, n%32) }),
		"rrotate": shift(func(x uint32, n int) uint32 { return bits.RotateLeft32(x, -(n % 32)) }),
		"extract": func(L *lua.LState) int {
			x, field, width := word(L, 1), L.CheckInt(2), L.OptInt(3, 1)
			checkField(L, field, width)
			L.Push(lua.LNumber(x >> field & mask(width)))
			return 1
		},
		"replace": func(L *lua.LState) int {
			x, v, field, width := word(L, 1), word(L, 2), L.CheckInt(3), L.OptInt(4, 1)
			checkField(L, field, width)
			m := mask(width) << field
			L.Push(lua.LNumber(x&^m | v<<field&m))
			return 1
		},
	}
	t := L.NewTable()
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	L.SetGlobal("bit32", t)
}

// word reads argument n as a number taken modulo 2^32.
func word(L *lua.LState, n int) uint32 {
	f := float64(L.CheckNumber(n))
	if f >= 0 && f < 1<<32 {
		return uint32(f) // a word already: the common case, without a modulo
	}
	f = math.Trunc(f)
	if f > -(1<<63) && f < 1<<63 {
		// A whole number of 64 bits (a product a program leaves for
		// bit32 to reduce): its low 32 bits are its value modulo 2^32,
		// without math.Mod's loop.
		return uint32(int64(f))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		L.ArgError(n, "number has no integer representation")
	}
	return uint32(int64(math.Mod(f, 1<<32)))
}

func logicalLeft(x uint32, n int) uint32 {
	if n >= 32 {
		return 0
	}
	return x << n
}

func logicalRight(x uint32, n int) uint32 {
	if n >= 32 {
		return 0
	}
	return x >> n
}

func mask(width int) uint32 { return uint32(1<<width - 1) }

func checkField(L *lua.LState, field, width int) {
	if field < 0 {
		L.ArgError(2, "field cannot be negative")
	}
	if width <= 0 {
		L.ArgError(3, "width must be positive")
	}
	if field+width > 32 {
		L.RaiseError("trying to access non-existent bits")
	}
}
