package bench

import (
	"io"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
	"github.com/residentlua/residentlua/programs/exchange"
)

// luaLifecycleLoop returns a function that runs n whole lifecycles as a
// script's loop drives them (calling a chunk anew each time would also
// measure gopher-lua's vararg setup, which a script's loop does not pay).
// The session takes the defaults (rounds 1), as the Go side's
// exchange.Default does.
const luaLifecycleLoop = `
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
	fromScript, err := newLuaLifecycles()
	if err != nil {
		return 0, 0, err
	}
	defer fromScript.close()
	fromAPI, err := newGoLifecycles()
	if err != nil {
		return 0, 0, err
	}
	defer fromAPI.close()
	// Interleave short batches of each, so that both sides see the same
	// machine when it is shared.
	var luaTime, goTime time.Duration
	for done := 0; done < n; done += luaBatch {
		batch := min(luaBatch, n-done)
		start := time.Now()
		if err := fromScript.run(batch); err != nil {
			return 0, 0, err
		}
		luaTime += time.Since(start)
		start = time.Now()
		if err := fromAPI.run(batch); err != nil {
			return 0, 0, err
		}
		goTime += time.Since(start)
	}
	if err := fromAPI.check(); err != nil {
		return 0, 0, err
	}
	return luaTime / time.Duration(n), goTime / time.Duration(n), nil
}

// luaLifecycles runs lifecycles from a script's loop in a Lua state with
// the resident module.
type luaLifecycles struct {
	L    *lua.LState
	m    *luaapi.Module
	loop lua.LValue
}

func newLuaLifecycles() (*luaLifecycles, error) {
	L := lua51.NewState(lua51.Options{})
	m, err := luaapi.Open(L, luaapi.Options{Config: devices.Config{Mode: devices.Simulated, Seed: 1}, Globals: true, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		L.Close()
		return nil, err
	}
	if err := lua51.DoString(L, luaLifecycleLoop); err != nil {
		m.Close()
		L.Close()
		return nil, err
	}
	loop := L.Get(-1)
	L.Pop(1)
	return &luaLifecycles{L: L, m: m, loop: loop}, nil
}

// run runs n lifecycles.
func (l *luaLifecycles) run(n int) error {
	return l.L.CallByParam(lua.P{Fn: l.loop, Protect: true}, lua.LNumber(n))
}

func (l *luaLifecycles) close() {
	l.m.Close()
	l.L.Close()
}

// goLifecycles runs lifecycles through the Go API on a fabric with the
// oracle the Lua module attaches to its own.
type goLifecycles struct {
	f      *devices.Fabric
	oracle *oracle.Oracle
}

func newGoLifecycles() (*goLifecycles, error) {
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
	if err != nil {
		return nil, err
	}
	return &goLifecycles{f: f, oracle: oracle.New(f)}, nil
}

// run runs n lifecycles.
func (g *goLifecycles) run(n int) error {
	for i := 0; i < n; i++ {
		if _, _, err := lifecycle(g.f, exchange.Default()); err != nil {
			return err
		}
	}
	return nil
}

// check reports the oracle's first violation, if any.
func (g *goLifecycles) check() error {
	if err := g.oracle.CheckSettled(); err != nil {
		return err
	}
	if v := g.oracle.Violations(); len(v) > 0 {
		return v[0]
	}
	return nil
}

func (g *goLifecycles) close() {
	g.oracle.Stop()
	g.f.Close()
}
