package lua51

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// libraryBenchmarks are the replaced functions measured, each a Lua
// statement run b.N times in a loop (the loop's cost is in both figures).
var libraryBenchmarks = []struct{ name, setup, body string }{
	{"tostring_float", `x = 1/3`, `local s = tostring(x)`},
	{"format_3f", `x = 1/3`, `local s = string.format("%.3f", x)`},
	{"tonumber", `s = "12.5"`, `local n = tonumber(s)`},
	{"math_random", ``, `local n = math.random(1, 100)`},
	{"concat_100_numbers", `t = {} for i = 1, 100 do t[i] = i / 7 end`, `local s = table.concat(t, ",")`},
	{"string_arith", `s = "10"`, `local n = s + 1`},
	{"pairs_10_keys", `t = {} for i = 1, 10 do t["k" .. i] = i end`, `for k, v in pairs(t) do end`},
	{"next_10_keys", `t = {} for i = 1, 10 do t["k" .. i] = i end`, `local k = next(t) while k do k = next(t, k) end`},
}

// BenchmarkLibrary runs each replaced function in a stock gopher-lua state
// and in a NewState, side by side.
func BenchmarkLibrary(b *testing.B) {
	states := []struct {
		name string
		new  func() *lua.LState
	}{
		{"gopher", func() *lua.LState { return lua.NewState() }},
		{"lua51", func() *lua.LState { return NewState(Options{}) }},
	}
	for _, bm := range libraryBenchmarks {
		for _, st := range states {
			b.Run(bm.name+"/"+st.name, func(b *testing.B) {
				L := st.new()
				defer L.Close()
				if err := L.DoString(bm.setup); err != nil {
					b.Fatal(err)
				}
				loop, err := L.LoadString("local n = ... for i = 1, n do " + bm.body + " end")
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				if err := L.CallByParam(lua.P{Fn: loop, Protect: true}, lua.LNumber(b.N)); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}
