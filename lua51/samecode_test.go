package lua51

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// Chunks that differ only in their lines are the same code; a different
// constant, operator, parameter or nested function is not.
func TestSameCode(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	compile := func(src string) *lua.FunctionProto {
		t.Helper()
		fn, err := LoadString(L, src, "=test")
		if err != nil {
			t.Fatalf("%q does not compile: %v", src, err)
		}
		return fn.Proto
	}
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"local x = 1\nprint(x .. 'a')", "local x = 1 print(x .. 'a')", true},
		{"f = function(a)\nreturn a + 1\nend", "f = function(a) return a + 1 end", true},
		{"x = 1", "x = 2", false},
		{"x = 'a'", "x = 'b'", false},
		{"x = y + 1", "x = y - 1", false},
		{"f = function(a) return a end", "f = function(a, b) return a end", false},
		{"f = function() return 1 end", "f = function() return 2 end", false},
		{"f = function(...) end", "f = function() end", false},
	} {
		if got := SameCode(compile(c.a), compile(c.b)); got != c.same {
			t.Errorf("SameCode(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
