package lua51

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// BenchmarkPatterns times typical calls of the pattern functions, each with
// this package's version ("lua51") and with gopher-lua's own ("gopher-lua")
// in the same run:
//
//	go test ./lua51/ -run '^$' -bench Patterns -benchmem
func BenchmarkPatterns(b *testing.B) {
	csv := "2024-01-15,sweep-17,credits=64,42.125,ok"
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, 42 times. ", 190)[:10240]
	haystack := strings.Repeat("abcdefghij", 100) + "needle"
	cases := []struct {
		name string
		fn   string
		args []lua.LValue
	}{
		{"match-csv-captures", "match", []lua.LValue{lua.LString(csv), lua.LString("^([^,]*),([^,]*),([^,]*),([^,]*),([^,]*)$")}},
		{"gsub-10kB-words", "gsub", []lua.LValue{lua.LString(text), lua.LString("(%w+)"), lua.LString("<%1>")}},
		{"gsub-10kB-spaces", "gsub", []lua.LValue{lua.LString(text), lua.LString("%s+"), lua.LString(" ")}},
		{"find-plain-1kB", "find", []lua.LValue{lua.LString(haystack), lua.LString("needle"), lua.LNumber(1), lua.LTrue}},
		{"find-pattern-1kB", "find", []lua.LValue{lua.LString(haystack), lua.LString("ne+dle")}},
		{"find-anchored-miss", "find", []lua.LValue{lua.LString(haystack), lua.LString("^%d+")}},
	}
	for _, c := range cases {
		for _, impl := range []string{"lua51", "gopher-lua"} {
			b.Run(c.name+"/"+impl, func(b *testing.B) {
				L := lua.NewState()
				defer L.Close()
				if impl == "lua51" {
					installPatterns(L)
				}
				fn := L.GetField(L.GetGlobal("string"), c.fn)
				p := lua.P{Fn: fn, NRet: lua.MultRet, Protect: true}
				for b.Loop() {
					if err := L.CallByParam(p, c.args...); err != nil {
						b.Fatal(err)
					}
					L.SetTop(0)
				}
			})
		}
	}
}

// BenchmarkGmatch iterates over the words of a 10 kB string with gmatch, in
// Lua, with both implementations.
func BenchmarkGmatch(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, 42 times. ", 190)[:10240]
	for _, impl := range []string{"lua51", "gopher-lua"} {
		b.Run(impl, func(b *testing.B) {
			L := lua.NewState()
			defer L.Close()
			if impl == "lua51" {
				installPatterns(L)
			}
			if err := L.DoString(`function count(s) local n = 0 for w in s:gmatch("%a+") do n = n + 1 end return n end`); err != nil {
				b.Fatal(err)
			}
			p := lua.P{Fn: L.GetGlobal("count"), NRet: 1, Protect: true}
			for b.Loop() {
				if err := L.CallByParam(p, lua.LString(text)); err != nil {
					b.Fatal(err)
				}
				if n := L.Get(-1); n != lua.LNumber(1862) {
					b.Fatalf("counted %v words", n)
				}
				L.SetTop(0)
			}
		})
	}
}
