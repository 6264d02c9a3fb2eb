package lua51

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// unwindState is a state whose global yield yields to the host, and
// whose functions outer and inner yield from the outermost frame and from
// a frame below it. Each sets after = true once resumed past its yield.
func unwindState(t *testing.T) *lua.LState {
	t.Helper()
	L := NewState(Options{})
	t.Cleanup(L.Close)
	L.SetGlobal("yield", L.NewFunction(func(L *lua.LState) int { return L.Yield(lua.LNumber(1)) }))
	err := L.DoString(`
		function outer()
			local kept = "kept"
			seen = function() return kept end
			yield()
			after = true
		end
		local function helper() yield() end
		function inner()
			helper()
			after = true
		end
		function second(x) return x * 2 end`)
	if err != nil {
		t.Fatal(err)
	}
	return L
}

// suspend starts name on a new thread, which yields, and returns it.
func suspend(t *testing.T, L *lua.LState, name string) *lua.LState {
	t.Helper()
	th, cancel := L.NewThread()
	if cancel != nil {
		defer cancel()
	}
	st, err, _ := L.Resume(th, L.GetGlobal(name).(*lua.LFunction))
	if err != nil || st != lua.ResumeYield {
		t.Fatalf("%s: resume gave %v, %v; want a yield", name, st, err)
	}
	return th
}

func TestUnwindEmptiesAThreadStoppedInItsOutermostFunction(t *testing.T) {
	L := unwindState(t)
	th := suspend(t, L, "outer")
	if !Unwind(L, th) {
		t.Fatal("Unwind of a thread that yielded from its outermost function reported it unusable")
	}
	if L.GetGlobal("after") != lua.LNil {
		t.Error("Unwind ran the code after the yield")
	}
	// Its upvalues were closed: the closure keeps its value while the
	// thread's registers are reused by the next function.
	th.Dead = false
	st, err, res := L.Resume(th, L.GetGlobal("second").(*lua.LFunction), lua.LNumber(21))
	if err != nil || st != lua.ResumeOK || len(res) != 1 || res[0] != lua.LNumber(42) {
		t.Fatalf("the unwound thread ran second(21) as %v, %v, %v; want ok, 42", st, err, res)
	}
	if err := L.DoString(`assert(seen() == "kept", tostring(seen()))`); err != nil {
		t.Errorf("a closure of the unwound frame lost its upvalue: %v", err)
	}
}

func TestUnwindRefusesAThreadStoppedBelowItsOutermostFunction(t *testing.T) {
	L := unwindState(t)
	th := suspend(t, L, "inner")
	if Unwind(L, th) {
		t.Fatal("Unwind of a thread that yielded from a nested call reported it usable")
	}
	if L.GetGlobal("after") != lua.LNil {
		t.Error("Unwind ran the code after the yield")
	}
}

func TestUnwindKeepsAThreadWhoseFunctionReturned(t *testing.T) {
	L := unwindState(t)
	th, _ := L.NewThread()
	if _, err, _ := L.Resume(th, L.GetGlobal("second").(*lua.LFunction), lua.LNumber(1)); err != nil {
		t.Fatal(err)
	}
	if !Unwind(L, th) {
		t.Error("Unwind of a thread whose function returned reported it unusable")
	}
}
