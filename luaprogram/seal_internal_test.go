package luaprogram

import (
	"os"
	"testing"
)

// TestProgramsOfFunctionsAreSealed checks that the functions an invocation
// is given are sealed when what they reach cannot change in place (the
// exchange's run and check, which reach functions and numbers), so that
// its invocations do not run its chunk afresh, and are not when they reach
// a table.
func TestProgramsOfFunctionsAreSealed(t *testing.T) {
	exchange, err := os.ReadFile("../programs/exchange/exchange_npu.lua")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, text string
		sealed     bool
	}{
		{"exchange_npu.lua", string(exchange), true},
		{"a table", `local t = {} return {run = function(p) t[1] = 1 end, check = function(c) return t[1] == nil end}`, false},
	} {
		p, err := Compile("="+c.name, c.text, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := p.newMachine(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range []entry{runEntry, checkEntry} {
			m.reseed(1)
			first, err := m.fresh(e)
			if err != nil {
				t.Fatal(err)
			}
			second, err := m.fresh(e)
			if err != nil {
				t.Fatal(err)
			}
			if got := first == second && first != nil; got != c.sealed {
				t.Errorf("%s, entry %d: given the same function again = %v, want %v", c.name, e, got, c.sealed)
			}
		}
		m.close()
		p.Close()
	}
}
