package luaprogram

import (
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/lua51"
)

// TestBit32TakesArgumentsModulo2To32 checks bit32's reduction of its
// arguments: words as they are, and whole numbers beyond a word (the
// unreduced products the exchange's programs hand it), negative ones and
// ones beyond 2^64 by their value modulo 2^32.
func TestBit32TakesArgumentsModulo2To32(t *testing.T) {
	L := lua51.NewState(lua51.Options{})
	defer L.Close()
	openBit32(L)
	for expr, want := range map[string]float64{
		"bit32.bxor(5, 3)":                     6,
		"bit32.bxor(2^40 + 5, 3)":              6,
		"bit32.bxor(2^48 * 3 + 2^31 + 1, 0)":   1<<31 + 1,
		"bit32.bxor(2^52 + 2^32 + 7, 1, 2^33)": 6,
		"bit32.rshift(2^48 + 2^33 + 2^20, 4)":  1 << 16,
		"bit32.band(-1)":                       1<<32 - 1,
		"bit32.bxor(-2, 0)":                    1<<32 - 2,
		"bit32.bxor(-(2^40) - 1, 0)":           1<<32 - 1,
		"bit32.bxor(2^70 + 2^64 + 9, 0)":       0, // beyond 2^64 the low bits are zero
		"bit32.bxor(2^63, 0)":                  0,
		"bit32.bxor(3.75, 0)":                  3,
	} {
		if err := L.DoString("result = " + expr); err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := L.GetGlobal("result"); got != lua.LNumber(want) {
			t.Errorf("%s = %v, want %v", expr, got, want)
		}
	}
	if err := L.DoString("bit32.bxor(0/0)"); err == nil {
		t.Error("bit32.bxor(nan) gave no error")
	}
}
