package lua51

import (
	"runtime"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestDataStackGrows checks that the data stack grows past gopher-lua's
// fixed default (5,120 values): a table.concat or unpack of 100,000 items
// works, as the issue asks (lua5.1 itself refuses unpack of more than about
// 8,000 values: "too many results to unpack").
func TestDataStackGrows(t *testing.T) {
	got := runProtectScript(t, "big", `
		local t = {}
		for i = 1, 100000 do t[i] = i % 10 end
		print(#table.concat(t, ","))
		print(select("#", unpack(t)))
		local function count(...) return select("#", ...) end
		print(count(unpack(t)))
		print(pcall(function() return select("#", unpack(t)) end))`)
	if want := "199999\n100000\n100000\ntrue\t100000\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestCallStackDepth checks that Lua recursion goes past 10,000 levels, on
// the main thread, inside pcall and in a coroutine, and that going too deep
// is a "stack overflow" error that pcall catches, as lua5.1's is (lua5.1
// reaches 16,380 levels in the same function).
func TestCallStackDepth(t *testing.T) {
	got := runProtectScript(t, "deep", `
		local depth = 0
		local function down(n) depth = n if n == 0 then return 0 end return 1 + down(n - 1) end
		print(down(15000))
		print(pcall(down, 15000))
		print(coroutine.resume(coroutine.create(down), 15000))
		local function forever(n) depth = n return 1 + forever(n + 1) end
		local ok, e = pcall(forever, 1)
		print(ok, e, depth >= 16000)
		print(coroutine.resume(coroutine.create(forever), 1))`)
	want := "15000\ntrue\t15000\ntrue\t15000\nfalse\tstack overflow\ttrue\nfalse\tstack overflow\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := runProtectScript(t, "top", `local function f() return 1 + f() end f()`); got != "error: stack overflow\n" {
		t.Errorf("overflow outside pcall: got %q", got)
	}
}

// TestStateMemory checks that a fresh state, and each coroutine (every
// coroutine and every helper thread of pcall is a state with the same
// options), take less memory than with gopher-lua's defaults (a fixed
// 5,120-value data stack and a fixed 256-frame call stack) although their
// stacks may grow far larger.
func TestStateMemory(t *testing.T) {
	ours, oursThread := stateHeap(NewState(Options{}))
	stock, stockThread := stateHeap(lua.NewState())
	t.Logf("heap per fresh state: NewState %d bytes, lua.NewState %d bytes", ours, stock)
	t.Logf("heap per coroutine: NewState %d bytes, lua.NewState %d bytes", oursThread, stockThread)
	if ours >= stock || oursThread >= stockThread {
		t.Errorf("a state takes %d bytes and a coroutine %d, not less than gopher-lua's defaults (%d and %d)",
			ours, oursThread, stock, stockThread)
	}
}

// stateHeap measures the heap that states made like L take, and that threads
// of L take. States are not closed while measuring: Close gives the call
// stack's segments to a pool that later states would take them from.
func stateHeap(L *lua.LState) (perState, perThread uint64) {
	const n = 50
	states := make([]*lua.LState, n)
	measure := func(newState func() *lua.LState) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range states {
			states[i] = newState()
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		clear(states)
		return (after.HeapAlloc - before.HeapAlloc) / n
	}
	perState = measure(func() *lua.LState { return lua.NewState(L.Options) })
	perThread = measure(func() *lua.LState { th, _ := L.NewThread(); return th })
	return perState, perThread
}
