package bench

import (
	"io"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
)

// luaLifecycles returns a function that runs n whole lifecycles as a
// script's loop drives them (calling a chunk anew each time would also
// measure gopher-lua's vararg setup, which a script's loop does not pay).
// The session takes the defaults (rounds 1), as the Go side's
// exchange.Default does.
const luaLifecycles = `
return function(n)
  for _ = 1, n do
    local s = resident.startup()
    s:submit_gpu()
    s:submit_npu()
    s:start()
    assert(s:wait(30))
    assert(s:close() == "retired")
  end
end
`

// luaBatch is how many lifecycles LuaOverhead runs on one side before it
// switches to the other.
const luaBatch = 50

// LuaOverhead runs n rounds-1 lifecycles from Lua and n from the Go API,
// each on its own simulated fabric, and returns the time per lifecycle of each.
// The Lua module always checks its fabric with the engine's oracle, so the Go
// side attaches one too: the ratio is what Lua itself adds (the interpreter,
// the bindings and the per-session stats the module keeps).
func LuaOverhead(n int) (fromLua, fromGo time.Duration, err error) {
	L := lua51.NewState(lua51.Options{})
	defer L.Close()
	m, err := luaapi.Open(L, luaapi.Options{Config: devices.Config{Mode: devices.Simulated, Seed: 1}, Globals: true, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		return 0, 0, err
	}
	defer m.Close()
	if err := lua51.DoString(L, luaLifecycles); err != nil {
		return 0, 0, err
	}
	run := L.Get(-1)
	L.Pop(1)
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	oracle := engine.NewOracle(f)
	defer oracle.Stop()
	// Interleave short batches of each, so that both sides see the same
	// machine when it is shared.
	var luaTime, goTime time.Duration
	for done := 0; done < n; done += luaBatch {
		batch := min(luaBatch, n-done)
		start := time.Now()
		if err := L.CallByParam(lua.P{Fn: run, Protect: true}, lua.LNumber(batch)); err != nil {
			return 0, 0, err
		}
		luaTime += time.Since(start)
		start = time.Now()
		for i := 0; i < batch; i++ {
			if _, _, err := lifecycle(f, exchange.Default()); err != nil {
				return 0, 0, err
			}
		}
		goTime += time.Since(start)
	}
	fromLua, fromGo = luaTime/time.Duration(n), goTime/time.Duration(n)
	if err := oracle.CheckSettled(); err != nil {
		return 0, 0, err
	}
	if v := oracle.Violations(); len(v) > 0 {
		return 0, 0, v[0]
	}
	return fromLua, fromGo, nil
}
