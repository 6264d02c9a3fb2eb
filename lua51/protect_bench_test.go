package lua51

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// Each benchmark runs one Lua loop of b.N protected calls, in a state from
// NewState (this package's pcall) or from a stock lua.NewState (gopher-lua's
// own pcall), so the two are compared in the same run.

const (
	pcallSuccessLoop = `local n = ... local f = function(x) return x end
		for i = 1, n do pcall(f, i) end`
	pcallErrorLoop = `local n = ... local f = function(x) error("e") end
		for i = 1, n do pcall(f, i) end`
	xpcallSuccessLoop = `local n = ... local f = function() return 1 end local h = function(m) return m end
		for i = 1, n do xpcall(f, h) end`
	xpcallErrorLoop = `local n = ... local f = function() error("e") end local h = function(m) return m end
		for i = 1, n do xpcall(f, h) end`
	// resumeYieldLoop measures the check coroutine.yield makes that it
	// does not cross a Go call.
	resumeYieldLoop = `local n = ... local co = coroutine.wrap(function() while true do coroutine.yield(1) end end)
		for i = 1, n do co() end`
)

// benchProtectLoop runs the chunk src with b.N as its argument in L.
func benchProtectLoop(b *testing.B, L *lua.LState, src string) {
	b.Helper()
	defer L.Close()
	fn, err := L.LoadString(src)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	L.Push(fn)
	L.Push(lua.LNumber(b.N))
	if err := L.PCall(1, 0, nil); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkPcallSuccess(b *testing.B) { benchProtectLoop(b, NewState(Options{}), pcallSuccessLoop) }

func BenchmarkPcallSuccessStock(b *testing.B) { benchProtectLoop(b, lua.NewState(), pcallSuccessLoop) }

func BenchmarkPcallError(b *testing.B) { benchProtectLoop(b, NewState(Options{}), pcallErrorLoop) }

func BenchmarkPcallErrorStock(b *testing.B) { benchProtectLoop(b, lua.NewState(), pcallErrorLoop) }

func BenchmarkXpcallSuccess(b *testing.B) {
	benchProtectLoop(b, NewState(Options{}), xpcallSuccessLoop)
}

func BenchmarkXpcallSuccessStock(b *testing.B) {
	benchProtectLoop(b, lua.NewState(), xpcallSuccessLoop)
}

func BenchmarkXpcallError(b *testing.B) { benchProtectLoop(b, NewState(Options{}), xpcallErrorLoop) }

func BenchmarkXpcallErrorStock(b *testing.B) { benchProtectLoop(b, lua.NewState(), xpcallErrorLoop) }

func BenchmarkResumeYield(b *testing.B) { benchProtectLoop(b, NewState(Options{}), resumeYieldLoop) }

func BenchmarkResumeYieldStock(b *testing.B) { benchProtectLoop(b, lua.NewState(), resumeYieldLoop) }
