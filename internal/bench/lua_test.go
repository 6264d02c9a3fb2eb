package bench

import (
	"runtime"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	"golang.org/x/sys/unix"

	"github.com/residentlua/residentlua/lua51"
)

// TestLuaLifecycleAllocations bounds what a lifecycle driven from Lua
// allocates beyond the same lifecycle through the Go API: the session's
// Go value (its userdata with it) and the record its stats are made of,
// the five method names gopher-lua makes into values to call the session's
// __index function, and a share of the finished sessions' list as it
// grows. Every allocation the module adds is work the garbage collector
// does on top of the interpreter's; a finished session's stats are made
// when asked, not as it closes.
func TestLuaLifecycleAllocations(t *testing.T) {
	const batch, most = 50, 8
	fromScript, fromAPI := lifecycleSides(t)
	var runErr error
	lua := testing.AllocsPerRun(10, func() {
		if err := fromScript.run(batch); err != nil {
			runErr = err
		}
	})
	api := testing.AllocsPerRun(10, func() {
		if err := fromAPI.run(batch); err != nil {
			runErr = err
		}
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	if extra := (lua - api) / batch; extra > most {
		t.Errorf("a lifecycle from Lua makes %.1f allocations more than from Go (%.1f against %.1f), want at most %d",
			extra, lua/batch, api/batch, most)
	}
}

// lifecycleSides makes the row's two sides, closed when tb ends.
func lifecycleSides(tb testing.TB) (*luaLifecycles, *goLifecycles) {
	fromScript, err := newLuaLifecycles()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(fromScript.close)
	fromAPI, err := newGoLifecycles()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(fromAPI.close)
	return fromScript, fromAPI
}

// BenchmarkLuaLifecycleThreadCPU is the Lua overhead row measured in the
// processor time of the thread that runs both sides (CLOCK_THREAD_CPUTIME_ID),
// in batches of luaBatch taken in turn as LuaOverhead does: time spent
// waiting for a processor is not counted, so other work on a shared machine
// moves this ratio far less than the row's wall-clock one. Work the garbage
// collector does on other threads is not counted either.
func BenchmarkLuaLifecycleThreadCPU(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fromScript, fromAPI := lifecycleSides(b)
	var luaTime, goTime time.Duration
	for done := 0; done < b.N; done += luaBatch {
		batch := min(luaBatch, b.N-done)
		start := threadCPU()
		if err := fromScript.run(batch); err != nil {
			b.Fatal(err)
		}
		luaTime += threadCPU() - start
		start = threadCPU()
		if err := fromAPI.run(batch); err != nil {
			b.Fatal(err)
		}
		goTime += threadCPU() - start
	}
	b.ReportMetric(float64(luaTime.Nanoseconds())/float64(b.N), "cpu-ns/lua-lifecycle")
	b.ReportMetric(float64(goTime.Nanoseconds())/float64(b.N), "cpu-ns/go-lifecycle")
	b.ReportMetric(float64(luaTime)/float64(goTime), "ratio")
}

// threadCPU is the processor time the calling thread has used.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}

// BenchmarkLuaLifecycleFloor is what gopher-lua alone costs the Lua side of
// the row: the same loop (luaLifecycleLoop) calling Go functions that do
// nothing, with the session's methods found through an __index function,
// as the module's sessions do (their s.id and s.state are computed), or
// through an __index table of methods. cpu-ns/op is the thread's processor
// time, as in BenchmarkLuaLifecycleThreadCPU.
func BenchmarkLuaLifecycleFloor(b *testing.B) {
	for _, index := range []string{"function", "table"} {
		b.Run("index="+index, func(b *testing.B) {
			L := lua51.NewState(lua51.Options{})
			defer L.Close()
			methods := L.NewTable()
			for _, name := range []string{"submit_gpu", "submit_npu", "start"} {
				methods.RawSetString(name, L.NewFunction(func(*lua.LState) int { return 0 }))
			}
			methods.RawSetString("wait", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LTrue); return 1 }))
			retired := lua.LValue(lua.LString("retired"))
			methods.RawSetString("close", L.NewFunction(func(L *lua.LState) int { L.Push(retired); return 1 }))
			meta := L.NewTable()
			if index == "table" {
				meta.RawSetString("__index", methods)
			} else {
				meta.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
					_ = L.CheckUserData(1).Value.(*struct{})
					L.Push(methods.RawGetString(L.CheckString(2)))
					return 1
				}))
			}
			resident := L.NewTable()
			resident.RawSetString("startup", L.NewFunction(func(L *lua.LState) int {
				ud := L.NewUserData()
				ud.Value, ud.Metatable = &struct{}{}, meta
				L.Push(ud)
				return 1
			}))
			L.SetGlobal("resident", resident)
			if err := lua51.DoString(L, luaLifecycleLoop); err != nil {
				b.Fatal(err)
			}
			loop := L.Get(-1)
			L.Pop(1)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			start := threadCPU()
			for done := 0; done < b.N; done += luaBatch {
				if err := L.CallByParam(lua.P{Fn: loop, Protect: true}, lua.LNumber(min(luaBatch, b.N-done))); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((threadCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
