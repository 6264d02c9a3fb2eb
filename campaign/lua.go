package campaign

import (
	"fmt"
	"io"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
)

// MaxRecord is the largest value t.record takes: a billion seconds (or a
// billion of a count), whose nanoseconds still fit the histogram.
const MaxRecord = 1e9

// eventCapacity is how many events a trial's fabric keeps: the fabric's
// default.
const eventCapacity = 1 << 16

// luaRunner is a worker's Lua state with the trial script loaded in it.
type luaRunner struct {
	L      *lua.LState
	m      *luaapi.Module
	trial  lua.LValue // the script's global trial
	fabric lua.LValue // resident.fabric
	math   *lua.LTable
	api    *lua.LTable // t.record and t.fail, copied into each trial's t
	opts   *lua.LTable // the script's global trial_fabric: options of each trial's fabric
	cur    *Trial      // the trial running, which t.record and t.fail write to
	// fabricOpts is the table each trial's fabric is made with, refilled
	// for every trial (resident.fabric only reads it, and no script sees
	// it): a table with string keys is among the costliest things a trial
	// makes. unsetOpt and setOpt are its ForEach callbacks, made once.
	fabricOpts       *lua.LTable
	unsetOpt, setOpt func(k, v lua.LValue)
}

// newLuaRunner makes a Lua state with the resident module open (simulated
// time, print to c.Stdout, the fabric reports discarded), runs the script
// in it and finds its trial function.
func newLuaRunner(c Config) (*luaRunner, error) {
	L := lua51.NewState(lua51.Options{Seed: int64(c.Seed), Stdout: c.Stdout})
	m, err := luaapi.Open(L, luaapi.Options{
		Config: devices.Config{Mode: devices.Simulated, Seed: c.Seed,
			// Every fabric of this state keeps its events in one ring,
			// allocated once rather than grown again by each trial's
			// fabric. A fabric's events are read only while it is the
			// current one (a replaced fabric's session lists none), and
			// the next one is made only as the last is let go.
			EventCapacity: eventCapacity, EventBuffer: make([]devices.Event, 0, eventCapacity)},
		Stdout:     c.Stdout,
		Stderr:     io.Discard,
		Globals:    true,
		StatsLimit: -1,
		OnFabric:   c.OnFabric,
	})
	if err != nil {
		L.Close()
		return nil, err
	}
	r := &luaRunner{L: L, m: m}
	if err := r.load(c.Script); err != nil {
		L.Close()
		return nil, err
	}
	return r, nil
}

// load runs the script and keeps what each trial needs.
func (r *luaRunner) load(script string) error {
	L := r.L
	fn, err := lua51.LoadFile(L, script)
	if err != nil {
		return fmt.Errorf("%s", errorMessage(L, err))
	}
	L.Push(fn)
	if err := lua51.PCall(L, 0, 0); err != nil {
		return fmt.Errorf("%s", errorMessage(L, err))
	}
	r.trial = L.GetGlobal("trial")
	if _, ok := r.trial.(*lua.LFunction); !ok {
		return fmt.Errorf("%s %w", script, errNoTrial)
	}
	resident, _ := L.GetGlobal("resident").(*lua.LTable)
	r.math, _ = L.GetGlobal("math").(*lua.LTable)
	if resident == nil || r.math == nil {
		return fmt.Errorf("%s: the script removed the global resident or math", script)
	}
	r.fabric = resident.RawGetString("fabric")
	if osLib, ok := L.GetGlobal("os").(*lua.LTable); ok {
		// os.exit in a trial would end the whole campaign, its summary unwritten.
		osLib.RawSetString("exit", L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("os.exit is not available in a campaign's trial; return an outcome or call t.fail")
			return 0
		}))
	}
	switch v := L.GetGlobal("trial_fabric").(type) {
	case *lua.LTable:
		r.opts = v
	case *lua.LNilType:
	default:
		return fmt.Errorf("%s: trial_fabric is a %s value; give a table of resident.fabric's options", script, v.Type())
	}
	r.api = L.CreateTable(0, 2)
	r.api.RawSetString("record", L.NewFunction(r.record))
	r.api.RawSetString("fail", L.NewFunction(r.fail))
	r.fabricOpts = L.CreateTable(0, 4)
	r.unsetOpt = func(k, _ lua.LValue) { r.fabricOpts.RawSet(k, lua.LNil) }
	r.setOpt = r.fabricOpts.RawSet
	return nil
}

// fabricOptions fills r.fabricOpts with the options of the fabric of the
// trial of seed: those of the script's trial_fabric as it is now, then mode
// "sim" and the seed.
func (r *luaRunner) fabricOptions(seed uint64) *lua.LTable {
	opts := r.fabricOpts
	opts.ForEach(r.unsetOpt) // what an earlier trial's trial_fabric held
	if r.opts != nil {
		r.opts.ForEach(r.setOpt)
	}
	opts.RawSetString("mode", lua.LString("sim"))
	opts.RawSetString("seed", lua.LNumber(seed))
	return opts
}

// run is one trial, into t (whose index and seed are set): the module
// starts over with the trial's seed, a fresh
// simulated fabric with that seed becomes current (t.fabric describes it;
// the options of the script's global trial_fabric, if it set one, apply),
// math.random is seeded with math.randomseed(seed), and trial(t) is called.
// Afterwards the sessions it left open are closed and its fabric let go,
// so that the oracle's end-of-run check belongs to this trial.
func (r *luaRunner) run(t *Trial) {
	r.cur = t
	defer func() { r.cur = nil }()
	r.trialOf(t)
}

// trialOf runs the trial whose index and seed t holds into t.
func (r *luaRunner) trialOf(t *Trial) {
	L := r.L
	index, seed := t.Index, t.Seed
	if err := r.m.Restart(seed); err != nil {
		r.failed(t, "error", err.Error())
		return
	}
	desc, err := r.call(r.fabric, r.fabricOptions(seed))
	if err == nil {
		_, err = r.call(r.math.RawGetString("randomseed"), lua.LNumber(seed))
	}
	var result lua.LValue = lua.LNil
	if err == nil {
		tt := L.CreateTable(0, 6)
		tt.RawSetString("seed", lua.LNumber(seed))
		tt.RawSetString("index", lua.LNumber(index))
		tt.RawSetString("fabric", desc)
		tt.RawSetString("random", r.math.RawGetString("random"))
		tt.RawSetString("record", r.api.RawGetString("record"))
		tt.RawSetString("fail", r.api.RawGetString("fail"))
		result, err = r.call(r.trial, tt)
	}
	r.m.EndFabric()
	t.Violations = len(r.m.Violations())
	switch {
	case err != nil:
		r.failed(t, "error", errorMessage(L, err))
		return
	case t.Violations > 0:
		r.failed(t, "violation", r.m.Violations()[0].Error())
		return
	case t.Failed:
		t.Outcome = "failed"
		return
	}
	switch v := result.(type) {
	case lua.LString:
		t.Outcome = string(v)
	case lua.LNumber:
		t.Outcome = lua51.NumberToString(v)
	case *lua.LNilType:
	default:
		r.failed(t, "error", fmt.Sprintf("trial returned a %s value; return a short string such as \"retired\", or nothing for \"ok\"", v.Type()))
	}
}

// failed marks t failed with outcome and message (which take the place of
// what t.fail gave, if anything).
func (r *luaRunner) failed(t *Trial, outcome, msg string) {
	t.Outcome, t.Failed = outcome, true
	t.Message = msg
	t.Report = msg
}

// call calls fn with arg in protected mode and returns its first result.
func (r *luaRunner) call(fn, arg lua.LValue) (lua.LValue, error) {
	L := r.L
	L.Push(fn)
	L.Push(arg)
	if err := lua51.PCall(L, 1, 1); err != nil {
		return nil, err
	}
	v := L.Get(-1)
	L.Pop(1)
	return v, nil
}

// record is t.record(name, value): a measurement of the trial, a number
// from 0 to MaxRecord (seconds for latencies).
func (r *luaRunner) record(L *lua.LState) int {
	name, ok := L.Get(1).(lua.LString)
	if !ok || name == "" {
		L.RaiseError("bad argument #1 to 'record' (non-empty string expected, got %s)", typeName(L.Get(1)))
	}
	n, ok := L.Get(2).(lua.LNumber)
	if !ok {
		L.RaiseError("bad argument #2 to 'record' (number expected, got %s)", typeName(L.Get(2)))
	}
	if v := float64(n); math.IsNaN(v) || v < 0 || v > MaxRecord {
		L.RaiseError("bad argument #2 to 'record' (a value from 0 to %g expected, got %s)", float64(MaxRecord), lua51.NumberToString(n))
	}
	if r.cur != nil {
		r.cur.record(string(name), float64(n))
	}
	return 0
}

// fail is t.fail([msg]): the trial is a failure, with msg (the first
// given) as its message.
func (r *luaRunner) fail(L *lua.LState) int {
	msg := "t.fail called"
	if v := L.Get(1); v != lua.LNil {
		msg = lua51.ToString(L, v)
	}
	if r.cur != nil && !r.cur.Failed {
		r.cur.Failed, r.cur.Message, r.cur.Report = true, msg, msg
	}
	return 0
}

func (r *luaRunner) close() { r.L.Close() }

// typeName is the Lua type name of v.
func typeName(v lua.LValue) string {
	if v == lua.LNil {
		return "nil"
	}
	return v.Type().String()
}

// errorMessage is an error's message as lua.c's message handler words it:
// strings as they are, values with __tostring through it, others by type.
func errorMessage(L *lua.LState, err error) string {
	api, ok := err.(*lua.ApiError)
	if !ok {
		return err.Error()
	}
	switch v := api.Object.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return lua51.NumberToString(v)
	}
	if L.GetMetaField(api.Object, "__tostring") != lua.LNil {
		fn := L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LString(lua51.ToString(L, L.Get(1))))
			return 1
		})
		L.Push(fn)
		L.Push(api.Object)
		if lua51.PCall(L, 1, 1) == nil {
			s := L.Get(-1)
			L.Pop(1)
			return lua.LVAsString(s)
		}
	}
	return fmt.Sprintf("(error object is a %s value)", api.Object.Type())
}
