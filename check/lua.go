package check

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/lua51"
)

// LuaScenario is a scenario written in Lua: a script that defines
// function scenario(s), loaded once into its own Lua state, whose function
// is called for every run with a fresh s:
//
//   - s.choose(n) returns a host-side choice from 0 to n-1 (n from 1);
//   - s.startup{rounds=, credits=, slot_bytes=, gpu="aql"|"pm4"} makes a
//     session, or returns nil and a message;
//   - the session's verbs, x:submit_gpu(), x:submit_npu(), x:start(),
//     x:abort(), return true, or nil and the error's message;
//     x:wait(seconds) returns whether both retired, or nil and a message;
//     x:close(seconds) returns "retired" or "quarantined";
//   - s.fault(site, term) arms a fault site (a term below 100%, such as
//     "50%1*hang", leaves each hit to the checker);
//   - s.reset() resets every device and checks that nothing is left
//     charged;
//   - s.rounds, s.credits and s.faults are the bounds.
//
// Every verb is recorded as a host operation. math.random is reseeded
// with 1 before each run, so that the script is a function of its
// choices; the script must keep nothing in globals from one run to the
// next. A Lua error ends the run, and is reported (Report.ScenarioErrors).
type LuaScenario struct {
	L     *lua.LState
	fn    *lua.LFunction
	seed  lua.LValue // math.randomseed
	path  string
	state *luaRun // the run in progress
}

// luaRun is what the functions of s reach: the run's host.
type luaRun struct{ h *Host }

// LoadLuaScenario loads the script at path (print writes to stdout) and
// finds its scenario function. Close the scenario when done.
func LoadLuaScenario(path string, stdout io.Writer) (*LuaScenario, error) {
	L := lua51.NewState(lua51.Options{Seed: 1, Stdout: stdout})
	fn, err := lua51.LoadFile(L, path)
	if err == nil {
		L.Push(fn)
		err = lua51.PCall(L, 0, 0)
	}
	if err != nil {
		L.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc, ok := L.GetGlobal("scenario").(*lua.LFunction)
	if !ok {
		L.Close()
		return nil, fmt.Errorf("%s defines no function scenario(s); define one that drives sessions as a trial does", path)
	}
	mathLib, _ := L.GetGlobal("math").(*lua.LTable)
	if mathLib == nil {
		L.Close()
		return nil, fmt.Errorf("%s removed the global math, which the checker reseeds before each run", path)
	}
	return &LuaScenario{L: L, fn: sc, seed: mathLib.RawGetString("randomseed"), path: path, state: &luaRun{}}, nil
}

// Interruptible is the scenario for Check(ctx, ...): while ctx lasts, a
// run of the script stops when ctx ends, even in a loop that never returns
// (the cut run is not counted as the scenario's error); once ctx has ended,
// runs (Check's descriptions of what it found) go without it.
func (ls *LuaScenario) Interruptible(ctx context.Context) Scenario {
	return func(h *Host) {
		if ctx.Err() == nil {
			ls.L.SetContext(ctx)
			defer ls.L.RemoveContext()
		}
		ls.Scenario(h)
	}
}

// Close ends the Lua state.
func (ls *LuaScenario) Close() { ls.L.Close() }

// Scenario is the Lua scenario as a Scenario for Check and Replay.
func (ls *LuaScenario) Scenario(h *Host) {
	L := ls.L
	ls.state.h = h
	defer func() { ls.state.h = nil }()
	L.Push(ls.seed)
	L.Push(lua.LNumber(1))
	err := lua51.PCall(L, 1, 0)
	if err == nil {
		L.Push(ls.fn)
		L.Push(ls.scenarioTable())
		err = lua51.PCall(L, 1, 0)
	}
	if err != nil {
		h.fail(ls.path + ": " + err.Error())
	}
}

// scenarioTable is the s a run's scenario(s) gets.
func (ls *LuaScenario) scenarioTable() *lua.LTable {
	L, run := ls.L, ls.state
	b := run.h.Bounds()
	s := L.CreateTable(0, 8)
	s.RawSetString("rounds", lua.LNumber(b.Rounds))
	s.RawSetString("credits", lua.LNumber(b.Credits))
	s.RawSetString("faults", lua.LNumber(b.Faults))
	s.RawSetString("choose", L.NewFunction(func(L *lua.LState) int {
		n := L.CheckInt(1)
		if n < 1 {
			L.ArgError(1, "the number of alternatives must be at least 1")
		}
		L.Push(lua.LNumber(run.h.Choose(n, "s.choose("+fmt.Sprint(n)+")")))
		return 1
	}))
	s.RawSetString("startup", L.NewFunction(run.startup))
	s.RawSetString("fault", L.NewFunction(func(L *lua.LState) int {
		site, err := fault.ParseSite(L.CheckString(1))
		if err == nil {
			err = run.h.Arm(site, L.CheckString(2))
		}
		return result(L, err)
	}))
	s.RawSetString("reset", L.NewFunction(func(L *lua.LState) int {
		run.h.ResetDevices()
		return 0
	}))
	return s
}

// startup is s.startup{...}: a session whose verbs are methods.
func (run *luaRun) startup(L *lua.LState) int {
	cfg := exchange.Default()
	if t, ok := L.Get(1).(*lua.LTable); ok {
		cfg.Rounds = intOr(L, t, "rounds", cfg.Rounds)
		cfg.Credits = intOr(L, t, "credits", cfg.Credits)
		cfg.SlotBytes = intOr(L, t, "slot_bytes", cfg.SlotBytes)
		if q, ok := t.RawGetString("gpu").(lua.LString); ok {
			switch q {
			case "aql":
				cfg.GPUQueue = devices.AQL
			case "pm4":
				cfg.GPUQueue = devices.PM4
			default:
				L.ArgError(1, "gpu must be \"aql\" or \"pm4\"")
			}
		}
	}
	if err := cfg.Validate(); err != nil {
		return result(L, err)
	}
	sess, err := run.h.NewSession(cfg)
	if err != nil {
		return result(L, err)
	}
	L.Push(sessionTable(L, sess))
	return 1
}

// sessionTable is a Lua session: its verbs as methods (x:start()).
func sessionTable(L *lua.LState, s *Session) *lua.LTable {
	t := L.CreateTable(0, 8)
	t.RawSetString("name", lua.LString(s.Name()))
	verb := func(f func() error) *lua.LFunction {
		return L.NewFunction(func(L *lua.LState) int { return result(L, f()) })
	}
	t.RawSetString("submit_gpu", verb(s.SubmitGPU))
	t.RawSetString("submit_npu", verb(s.SubmitNPU))
	t.RawSetString("start", verb(s.Start))
	t.RawSetString("abort", verb(s.Abort))
	t.RawSetString("wait", L.NewFunction(func(L *lua.LState) int {
		ok, err := s.Wait(seconds(L, 2, 0))
		if err != nil {
			return result(L, err)
		}
		L.Push(lua.LBool(ok))
		return 1
	}))
	t.RawSetString("close", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(s.Close(seconds(L, 2, 10*time.Second)).String()))
		return 1
	}))
	return t
}

// result pushes true, or nil and err's message.
func result(L *lua.LState, err error) int {
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(lua.LTrue)
	return 1
}

// intOr reads a whole number field of t, or def when it is absent.
func intOr(L *lua.LState, t *lua.LTable, key string, def int) int {
	switch v := t.RawGetString(key).(type) {
	case *lua.LNilType:
		return def
	case lua.LNumber:
		if float64(v) == math.Trunc(float64(v)) && math.Abs(float64(v)) < 1<<31 {
			return int(v)
		}
	}
	L.ArgError(1, key+" must be a whole number")
	return 0
}

// seconds reads argument n, a number of seconds from 0 (def when absent).
func seconds(L *lua.LState, n int, def time.Duration) time.Duration {
	v, ok := L.Get(n).(lua.LNumber)
	if !ok {
		if L.Get(n) == lua.LNil {
			return def
		}
		L.ArgError(n, "seconds expected")
	}
	if math.IsNaN(float64(v)) || v < 0 || float64(v) > 1e9 {
		L.ArgError(n, "seconds must be from 0 to 1e9")
	}
	return time.Duration(float64(v) * float64(time.Second))
}
