package luaapi

import (
	"fmt"
	"maps"
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/campaign/trial"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/internal/seeds"
	"github.com/residentlua/residentlua/luaprogram"
	"github.com/residentlua/residentlua/programs/exchange"
)

// trialFn is resident.trial{seed=, sessions=, rounds=, credits=, faults=,
// mode=, gpu=, npu=}: one randomized protocol trial (package campaign/trial,
// the harness of the engine's campaign tests) on the module's trial world,
// a fabric of its own checked by its own oracle, renewed for each trial;
// it returns what the trial found. With gpu and
// npu programs, its sessions run them in place of the built-in exchange,
// each given the exchange's shape as args (rounds, credits, slot_bytes).
// Options.OnFabric sees the trial's fabric too.
func (m *Module) trialFn(L *lua.LState) int {
	const name = "trial"
	t := fields(L, 1, name, true, "seed", "sessions", "rounds", "credits", "faults", "mode", "gpu", "npu", "args")
	// Each number is checked as startup checks its own: a value out of range
	// is an invalid error, never a default taken in silence, nor a size
	// that could exhaust memory.
	number := func(key string, def, lo, hi int64) int64 {
		v := intField(L, 1, name, t, key, def)
		if v < lo || v > hi {
			m.invalid(L, name, "%s must be from %d to %d, got %d", key, lo, hi, v)
		}
		return v
	}
	seed := intField(L, 1, name, t, "seed", 1)
	if seed < 1 || seed > seeds.Max {
		m.invalid(L, name, "seed must be a whole number from 1 to 2^53-1 (%d), got %d", seeds.Max, seed)
	}
	sessions := int(number("sessions", 3, 1, maxTrialSessions))
	// Rounds and credits are the built-in exchange's arguments, which a
	// pair given as gpu and npu is shaped by too.
	x := trial.Exchange{
		Rounds:  int(number("rounds", 8, 1, exchange.MaxRounds)),
		Credits: int(number("credits", 4, 1, exchange.MaxCredits)),
	}
	cfg := trial.Config{
		Seed:      uint64(seed),
		Sessions:  sessions,
		MaxFaults: int(number("faults", 3, 0, int64(len(trial.Sites())))),
		Mode:      devices.Simulated,
		OnFabric:  m.opts.OnFabric, // so that a --trace holds every trial
	}
	if cfg.MaxFaults == 0 {
		cfg.MaxFaults = -1 // faults = 0 arms none (the harness reads 0 as its default)
	}
	if v := stringField(L, 1, name, t, "mode", ""); v != "" {
		mode, err := devices.ParseMode(v)
		if err != nil {
			m.raise(L, err)
		}
		cfg.Mode = mode
	}
	gpu, npu := field(t, "gpu"), field(t, "npu")
	if gpu != lua.LNil || npu != lua.LNil {
		g, n := m.asProgram(gpu), m.asProgram(npu)
		if g == nil || n == nil {
			argError(L, 1, name, "gpu and npu go together, each a program (resident.program)")
		}
		x.Programs = m.exchangeShapes(g.prog, n.prog, scalarArgs(L, t, name)).programs(ctxOf(L))
	} else if field(t, "args") != lua.LNil {
		fieldError(L, 1, name, "args", "goes with gpu and npu: they are the arguments of that pair")
	}
	cfg.Pair = x
	if m.trials == nil {
		m.trials = trial.NewWorld()
	}
	var r trial.Result
	m.trials.Run(cfg, &r)
	L.Push(trialTable(L, r))
	return 1
}

// exchangeShapes is the exchangeShapes of gpu and npu with args, kept for
// the script's next trials of the pair (a few pairs: a script's are few).
func (m *Module) exchangeShapes(gpu, npu *luaprogram.Program, args map[string]any) *exchangeShapes {
	key := shapedPair{gpu, npu, ArgsWords(args)}
	if s, ok := m.shapes[key]; ok {
		return s
	}
	if len(m.shapes) >= maxShapedPairs {
		clear(m.shapes)
	}
	if m.shapes == nil {
		m.shapes = map[shapedPair]*exchangeShapes{}
	}
	s := newExchangeShapes(gpu, npu, args)
	m.shapes[key] = s
	return s
}

// shapedPair is a pair with its own arguments, in words.
type shapedPair struct {
	gpu, npu *luaprogram.Program
	args     string
}

// maxShapedPairs bounds the pairs whose shapes a module keeps.
const maxShapedPairs = 16

// maxTrialSessions is the most sessions resident.trial opens in one trial:
// a trial keeps a record of each, so a bound keeps its memory bounded.
const maxTrialSessions = 10_000

// trialTable converts a trial's result to the table resident.trial returns.
func trialTable(L *lua.LState, r trial.Result) *lua.LTable {
	t := L.CreateTable(0, 12)
	t.RawSetString("seed", lua.LNumber(r.Seed))
	t.RawSetString("ok", lua.LBool(r.OK()))
	t.RawSetString("settled", lua.LBool(r.Settled))
	t.RawSetString("events", lua.LNumber(r.Events))
	t.RawSetString("digest", lua.LString(fmt.Sprintf("%016x", r.Digest)))
	t.RawSetString("elapsed", seconds(r.Elapsed))
	t.RawSetString("outcomes", countTable(L, r.Outcomes()))
	t.RawSetString("fired", countTable(L, r.Fired))
	t.RawSetString("faults", stringList(L, r.Faults))
	t.RawSetString("problems", stringList(L, r.Problems))
	vs := L.CreateTable(len(r.Violations), 0)
	for _, v := range r.Violations {
		vt := L.CreateTable(0, 3)
		vt.RawSetString("invariant", lua.LNumber(v.Invariant))
		vt.RawSetString("session", lua.LNumber(v.Session))
		vt.RawSetString("message", lua.LString(v.Message))
		vs.Append(vt)
	}
	t.RawSetString("violations", vs)
	t.RawSetString("report", lua.LString(r.Report()))
	return t
}

// countTable is {[name] = count}.
func countTable(L *lua.LState, counts map[string]int) *lua.LTable {
	t := L.CreateTable(0, len(counts))
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		t.RawSetString(k, lua.LNumber(counts[k]))
	}
	return t
}

// stringList is {s1, s2, ...}.
func stringList(L *lua.LState, list []string) *lua.LTable {
	t := L.CreateTable(len(list), 0)
	for _, s := range list {
		t.Append(lua.LString(s))
	}
	return t
}
