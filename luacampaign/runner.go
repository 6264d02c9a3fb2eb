package luacampaign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
)

// eventCapacity is how many events a trial's fabric keeps: the fabric's
// default.
const eventCapacity = 1 << 16

// exitRefused is the error os.exit raises in a campaign's Lua states.
const exitRefused = "os.exit is not available in a campaign's trial script: it would end the campaign with its results unwritten; return an outcome or call t.fail"

// luaRunner is a worker's Lua state with the trial script loaded in it.
type luaRunner struct {
	L      *lua.LState
	m      *luaapi.Module
	script *script
	trial  lua.LValue // the script's global trial
	fabric lua.LValue // resident.fabric
	math   *lua.LTable
	api    *lua.LTable // t.record and t.fail, copied into each trial's t
	args   *lua.LTable // t.args: the values of the script's arguments
	opts   *lua.LTable // a copy of the script's trial_fabric as loading left it; nil without one
	// optsDigest is the SHA-256 of the canonical text of trial_fabric.
	optsDigest string
	cur        *campaign.Trial // the trial running, which t.record and t.fail write to
	// fabricOpts is the table each trial's fabric is made with, refilled
	// for every trial (resident.fabric only reads it, and no script sees
	// it): a table with string keys is among the costliest things a trial
	// makes. setOpt is its ForEach callback, made once.
	fabricOpts *lua.LTable
	setOpt     func(k, v lua.LValue)
}

// newLuaRunner makes a Lua state with the resident module open (simulated
// time only, print to opts.Stdout, the fabric reports discarded, os.exit
// an error), runs the script in it, finds its trial function and checks
// its trial_fabric by making a fabric with it. ctx stops the script's top
// level, which runs as the first trial's seed. onRead is called with each
// file the state reads a program or kernel from.
func newLuaRunner(ctx context.Context, seed uint64, s *script, opts Options, onRead func(path string, content []byte)) (*luaRunner, error) {
	L := lua51.NewState(lua51.Options{Seed: int64(seed), Stdout: opts.Stdout, ExitRefused: exitRefused})
	m, err := luaapi.Open(L, luaapi.Options{
		Config: devices.Config{Mode: devices.Simulated, Seed: seed,
			// Every fabric of this state keeps its events in one ring,
			// allocated once rather than grown again by each trial's
			// fabric. A fabric's events are read only while it is the
			// current one (a replaced fabric's session lists none), and
			// the next one is made only as the last is let go.
			EventCapacity: eventCapacity, EventBuffer: make([]event.Event, 0, eventCapacity)},
		Stdout:        opts.Stdout,
		Stderr:        io.Discard,
		Globals:       true,
		StatsLimit:    -1,
		OnFabric:      opts.OnFabric,
		SimulatedOnly: true,
		OnRead:        onRead,
		ScriptDir:     s.dir(),
	})
	if err != nil {
		L.Close()
		return nil, err
	}
	r := &luaRunner{L: L, m: m, script: s}
	opts.Args.SetArg(L, s.name(), "campaign")
	r.args = opts.Args.Table(L)
	if err := r.load(ctx, seed); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// load runs the script and keeps what each trial needs. The script's top
// level runs under ctx, as the first trial's seed.
func (r *luaRunner) load(ctx context.Context, seed uint64) error {
	L, path := r.L, r.script.path
	L.SetContext(ctx) // a long compile stops as the top level does
	fn, err := lua51.Load(L, bytes.NewReader(r.script.source), r.script.chunk)
	if err != nil {
		L.RemoveContext()
		return errors.New(errorMessage(L, err))
	}
	L.Push(fn)
	err = lua51.PCall(L, 0, 0)
	if err != nil {
		err = errors.New(errorMessage(L, err)) // a stop's message is the campaign's
	}
	L.RemoveContext()
	if err != nil {
		return err
	}
	r.trial = L.GetGlobal("trial")
	if _, ok := r.trial.(*lua.LFunction); !ok {
		return fmt.Errorf("%s %w", r.script.name(), errNoTrial)
	}
	resident, _ := L.GetGlobal("resident").(*lua.LTable)
	r.math, _ = L.GetGlobal("math").(*lua.LTable)
	if resident == nil || r.math == nil {
		return fmt.Errorf("%s: the script removed the global resident or math", path)
	}
	r.fabric = resident.RawGetString("fabric")
	if err := r.loadTrialFabric(); err != nil {
		return fmt.Errorf("%s: %w", r.script.name(), err)
	}
	r.api = L.CreateTable(0, 2)
	r.api.RawSetString("record", L.NewFunction(r.record))
	r.api.RawSetString("fail", L.NewFunction(r.fail))
	return r.checkTrialFabric(seed)
}

// loadTrialFabric copies the script's global trial_fabric, which every
// trial's fabric is made with: what the script leaves in it once loaded,
// whatever a trial does to it later. Its digest goes to the summary.
func (r *luaRunner) loadTrialFabric() error {
	v := r.L.GetGlobal("trial_fabric")
	if v == lua.LNil {
		r.optsDigest = digest(nil)
		r.fabricOpts = r.L.CreateTable(0, 2)
		r.setOpt = r.fabricOpts.RawSet
		return nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return fmt.Errorf("trial_fabric is a %s value; give a table of resident.fabric's options", v.Type())
	}
	for _, key := range []string{"mode", "seed"} {
		if t.RawGetString(key) != lua.LNil {
			return fmt.Errorf("trial_fabric.%s: %s", key, map[string]string{
				"mode": "a campaign's trials always run in simulated time, so that each follows from its seed; leave mode out",
				"seed": "each trial's fabric has the trial's seed (the campaign's --seed plus its index); leave seed out",
			}[key])
		}
	}
	copied, text, err := plainCopy(r.L, t, "trial_fabric", 0)
	if err != nil {
		return err
	}
	r.opts = copied.(*lua.LTable)
	r.optsDigest = digest([]byte(text))
	r.fabricOpts = r.L.CreateTable(0, 4)
	r.setOpt = r.fabricOpts.RawSet
	return nil
}

// checkTrialFabric makes the fabric of the trial of seed once, so that an
// error of trial_fabric is reported once, before any trial runs, rather
// than by every trial.
func (r *luaRunner) checkTrialFabric(seed uint64) error {
	if err := r.m.Restart(seed); err != nil {
		return err
	}
	defer r.m.EndFabric()
	if _, err := r.call(r.fabric, r.fabricOptions(seed)); err != nil {
		return fmt.Errorf("%s: trial_fabric: %s", r.script.name(), errorMessage(r.L, err))
	}
	return nil
}

// maxOptionDepth bounds the nesting of trial_fabric's tables.
const maxOptionDepth = 8

// plainCopy copies v, a value of trial_fabric (at path), into a value of
// L that no script holds, and gives its canonical text (the keys of each
// table sorted), of which the summary keeps a digest. Only plain values
// are taken: nil, booleans, numbers, strings and tables of them.
func plainCopy(L *lua.LState, v lua.LValue, path string, depth int) (lua.LValue, string, error) {
	switch v := v.(type) {
	case lua.LBool:
		return v, v.String(), nil
	case lua.LNumber:
		return v, lua51.NumberToString(v), nil
	case lua.LString:
		return v, fmt.Sprintf("%q", string(v)), nil
	case *lua.LTable:
		if depth == maxOptionDepth {
			return nil, "", fmt.Errorf("%s: tables nested more than %d deep; give resident.fabric's options", path, maxOptionDepth)
		}
		type entry struct {
			key, value lua.LValue
			text       string
		}
		var entries []entry
		var err error
		v.ForEach(func(k, x lua.LValue) {
			if err != nil {
				return
			}
			var kc, xc lua.LValue
			var kt, xt string
			kc, kt, err = plainCopy(L, k, path+" key", depth+1)
			if err == nil {
				xc, xt, err = plainCopy(L, x, path+"."+lua.LVAsString(k), depth+1)
			}
			entries = append(entries, entry{kc, xc, kt + "=" + xt})
		})
		if err != nil {
			return nil, "", err
		}
		slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.text, b.text) })
		t := L.CreateTable(0, len(entries))
		texts := make([]string, len(entries))
		for i, e := range entries {
			t.RawSet(e.key, e.value)
			texts[i] = e.text
		}
		return t, "{" + strings.Join(texts, ",") + "}", nil
	}
	return nil, "", fmt.Errorf("%s is a %s value; give resident.fabric's options as plain values (strings, numbers, booleans, tables)", path, v.Type())
}

// fabricOptions fills r.fabricOpts with the options of the fabric of the
// trial of seed: those of trial_fabric, then mode "sim" and the seed.
func (r *luaRunner) fabricOptions(seed uint64) *lua.LTable {
	opts := r.fabricOpts
	if r.opts != nil {
		r.opts.ForEach(r.setOpt)
	}
	opts.RawSetString("mode", lua.LString("sim"))
	opts.RawSetString("seed", lua.LNumber(seed))
	return opts
}

// Run is one trial, into t (whose index and seed are set): the module
// starts over with the trial's seed, a fresh simulated fabric with that
// seed becomes current (t.fabric describes it; the options of the
// script's trial_fabric apply), math.random is seeded with
// math.randomseed(seed), and trial(t) is called under ctx. Afterwards the
// sessions it left open are closed and its fabric let go, so that the
// oracle's end-of-run check belongs to this trial. An error trial(t)
// raised is returned, its traceback in t.Report.
func (r *luaRunner) Run(ctx context.Context, t *campaign.Trial) error {
	r.cur = t
	r.L.SetContext(ctx)
	err := r.trialOf(t)
	r.L.RemoveContext()
	r.cur = nil
	return err
}

// trialOf runs the trial whose index and seed t holds into t.
func (r *luaRunner) trialOf(t *campaign.Trial) error {
	L := r.L
	index, seed := t.Index, t.Seed
	if err := r.m.Restart(seed); err != nil {
		return err
	}
	desc, err := r.call(r.fabric, r.fabricOptions(seed))
	if err == nil {
		_, err = r.call(r.math.RawGetString("randomseed"), lua.LNumber(seed))
	}
	var result lua.LValue = lua.LNil
	if err == nil {
		tt := L.CreateTable(0, 8)
		tt.RawSetString("seed", lua.LNumber(seed))
		tt.RawSetString("index", lua.LNumber(index))
		tt.RawSetString("fabric", desc)
		tt.RawSetString("random", r.math.RawGetString("random"))
		tt.RawSetString("record", r.api.RawGetString("record"))
		tt.RawSetString("fail", r.api.RawGetString("fail"))
		tt.RawSetString("args", r.args)
		result, err = r.call(r.trial, tt)
	}
	var msg string
	if err != nil {
		msg = errorMessage(L, err) // may run the error's __tostring, under ctx
	}
	r.m.EndFabric()
	t.Violations = len(r.m.Violations())
	t.Reached, t.Unreached = reachOf(r.m.Reach())
	switch {
	case err != nil:
		t.Report = msg
		if api, ok := err.(*lua.ApiError); ok && api.StackTrace != "" {
			t.Report = msg + "\n" + api.StackTrace
		}
		return errors.New(msg)
	case t.Violations > 0:
		failed(t, campaign.OutcomeViolation, r.m.Violations()[0].Error())
		return nil
	case t.Failed:
		t.Outcome = campaign.OutcomeFailed
		return nil
	}
	if outcome, problem := outcomeOf(result); problem != "" {
		failed(t, campaign.OutcomeError, problem)
	} else if outcome != "" {
		t.Outcome = outcome
	}
	return nil
}

// reachOf is how far a trial's sessions came, and why none was decided
// RUN when none was: the first error startup raised. A trial that never
// called startup is not counted.
func reachOf(r luaapi.Reach) (campaign.Reached, string) {
	switch {
	case r.Tried == 0 && r.Made == 0:
		return campaign.ReachUncounted, ""
	case r.Retired > 0:
		return campaign.ReachRetired, ""
	case r.Decided > 0:
		return campaign.ReachDecided, ""
	case r.Made > 0:
		return campaign.ReachMade, r.FirstError
	}
	return campaign.ReachNone, r.FirstError
}

// outcomeOf reads what trial(t) returned: the outcome ("" for nothing, which
// is "ok"), or why it cannot be one.
func outcomeOf(result lua.LValue) (outcome, problem string) {
	switch v := result.(type) {
	case lua.LString:
		outcome = string(v)
	case lua.LNumber:
		outcome = lua51.NumberToString(v)
	case *lua.LNilType:
		return "", ""
	default:
		return "", fmt.Sprintf("trial returned a %s value; return a short string such as \"retired\", or nothing for \"ok\"", v.Type())
	}
	if err := campaign.CheckName("trial returned the outcome", outcome); err != nil {
		return "", err.Error()
	}
	if slices.Contains(reservedOutcomes, outcome) {
		return "", fmt.Sprintf("trial returned %q, an outcome the campaign keeps for its own verdicts (%s); return another name, or call t.fail(msg) to fail the trial", outcome, strings.Join(reservedOutcomes, ", "))
	}
	return outcome, ""
}

// reservedOutcomes are the outcomes a trial may not return, asked of the
// campaign once rather than by every trial.
var reservedOutcomes = campaign.ReservedOutcomes()

// failed marks t failed with outcome and message (which take the place of
// what t.fail gave, if anything).
func failed(t *campaign.Trial, outcome, msg string) {
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
// from 0 to campaign.MaxRecord (seconds for latencies), under a name of at
// most 64 bytes of UTF-8, one of at most campaign.Config.MaxMeasurements
// in the run.
func (r *luaRunner) record(L *lua.LState) int {
	name, ok := L.Get(1).(lua.LString)
	if !ok || name == "" {
		L.RaiseError("bad argument #1 to 'record' (non-empty string expected, got %s)", typeName(L.Get(1)))
	}
	n, ok := L.Get(2).(lua.LNumber)
	if !ok {
		L.RaiseError("bad argument #2 to 'record' (number expected, got %s)", typeName(L.Get(2)))
	}
	if v := float64(n); math.IsNaN(v) || v < 0 || v > campaign.MaxRecord {
		L.RaiseError("bad argument #2 to 'record' (a value from 0 to %g expected, got %s)", float64(campaign.MaxRecord), lua51.NumberToString(n))
	}
	if err := campaign.CheckName("measurement name", string(name)); err != nil {
		L.RaiseError("bad argument #1 to 'record' (%v)", err)
	}
	if r.cur != nil {
		if err := r.cur.Record(string(name), float64(n)); err != nil {
			L.RaiseError("%v", err) // one name too many
		}
	}
	return 0
}

// fail is t.fail([msg]): the trial is a failure, with msg (the first
// given) as its message: a string or a number as it is, a value with a
// __tostring through it, any other by its type (never an address, which
// would differ from run to run).
func (r *luaRunner) fail(L *lua.LState) int {
	msg := "t.fail called"
	switch v := L.Get(1).(type) {
	case *lua.LNilType:
	case lua.LString:
		msg = string(v)
	case lua.LNumber:
		msg = lua51.NumberToString(v)
	default:
		if L.GetMetaField(v, "__tostring") != lua.LNil {
			msg = lua51.ToString(L, v)
		} else {
			msg = fmt.Sprintf("t.fail called with a %s value", v.Type())
		}
	}
	if r.cur != nil && !r.cur.Failed {
		r.cur.Failed, r.cur.Message, r.cur.Report = true, msg, msg
	}
	return 0
}

// Close closes the runner's Lua state.
func (r *luaRunner) Close() { r.L.Close() }

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
	return lua51.Message(L, api.Object)
}
