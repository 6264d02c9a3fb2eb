package luaapi

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/luaprogram"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/engine/oracle"
)

// checkFn is resident.check{scenario=, programs=, args=, rounds=,
// credits=, faults=, preemptions=, steps=, sessions=, misuse=, prune=,
// replay=}: the model checker (package check) on the built-in scenario or
// a scenario script. Rounds and credits are the built-in exchange's
// arguments (check.Exchange), the others the search's bounds.
// Without replay it explores every schedule within the bounds and returns
// the report's figures and counterexamples; with replay it reruns that one
// schedule and returns its steps and violations. The search stops when the
// state's context ends (Ctrl-C in the command), raising an error that says
// how far it came.
func (m *Module) checkFn(L *lua.LState) int {
	const name = "check"
	known := append(append(append([]string{"scenario", "replay", "programs", "args"}, check.ExchangeNames()...), check.BoundNames()...), "prune")
	t := fields(L, 1, name, true, known...)
	var x check.Exchange
	for _, key := range check.ExchangeNames() {
		if field(t, key) == lua.LNil {
			continue
		}
		if err := x.Set(key, int(intField(L, 1, name, t, key, 0))); err != nil {
			fieldError(L, 1, name, key, err.Error())
		}
	}
	var bounds check.Bounds
	var given string
	for _, key := range check.BoundNames() {
		v := field(t, key)
		if v == lua.LNil {
			continue
		}
		n := 0
		switch b, ok := v.(lua.LBool); {
		case ok && key == "misuse":
			if b {
				n = 1
			}
		case key == "misuse" && v.Type() != lua.LTNumber:
			fieldError(L, 1, name, key, "true, false, 1 or 0 expected, got "+valueTypeName(v))
		default:
			n = int(intField(L, 1, name, t, key, 0))
		}
		if err := bounds.Set(key, n); err != nil {
			fieldError(L, 1, name, key, err.Error())
		}
		given = key
	}
	noPrune := !boolField(L, 1, name, t, "prune") && field(t, "prune") != lua.LNil
	replay := stringField(L, 1, name, t, "replay", "")
	if replay == "" && field(t, "replay") != lua.LNil {
		fieldError(L, 1, name, "replay", "give the replay string a counterexample printed, such as f1:2.0.1")
	}
	if replay != "" && given != "" {
		fieldError(L, 1, name, given, "does not go with replay: the replay string fixes the schedule and its bounds (the pair's arguments, rounds and credits or args, are given as for the search)")
	}
	if replay != "" && field(t, "prune") != lua.LNil {
		fieldError(L, 1, name, "prune", "does not go with replay: a replay runs one schedule, and prunes nothing")
	}
	path := stringField(L, 1, name, t, "scenario", "")
	if path == "" && field(t, "scenario") != lua.LNil {
		fieldError(L, 1, name, "scenario", "give a scenario script's file name, or leave scenario out for the built-in scenario")
	}
	if path != "" && m.opts.Sandbox {
		m.raise(L, failure.Errorf(failure.Unsupported, name, "a scenario script is a file, which this sandboxed state may not read; leave scenario out for the built-in one"))
	}
	ctx := ctxOf(L)
	scenario, pair := x.Scenario(check.Builtin), x.Pair()
	if field(t, "programs") != lua.LNil {
		if path != "" {
			fieldError(L, 1, name, "programs", "goes with the built-in scenario; a scenario script makes its sessions of programs itself")
		}
		scenario, pair = m.checkPair(L, t, x)
	} else if field(t, "args") != lua.LNil {
		fieldError(L, 1, name, "args", "goes with programs: they are the arguments of that pair")
	}
	if path != "" {
		// A search runs the script thousands of times: its prints show in
		// a replay only.
		out := io.Discard
		if replay != "" {
			out = m.stdout
		}
		sc, err := loadScenario(ctx, path, out)
		if err != nil {
			raiseString(L, "resident.check: %s", err.Error())
		}
		scenario, pair = ScriptChecked(sc, x)
	}
	if replay != "" {
		r, err := check.ReplayPair(ctx, scenario, pair, replay, m.opts.OnFabric)
		if err != nil {
			m.invalid(L, name, "%s", err.Error())
		}
		L.Push(replayedTable(L, r))
		return 1
	}
	rep := check.Check(ctx, scenario, check.Options{Bounds: bounds, NoPrune: noPrune, Pair: pair})
	switch {
	case rep.Nondeterministic != "":
		raiseString(L, "resident.check: %s", rep.Nondeterministic)
	case rep.Vacuous() != "":
		raiseString(L, "resident.check: %s", rep.Vacuous())
	case !rep.Exhausted:
		raiseString(L, "resident.check interrupted before the end of the bounded space (schedules explored: %d, distinct states: %d, invariants found broken by then: %d)",
			rep.Schedules, rep.States, len(rep.Counterexamples))
	}
	L.Push(reportTable(L, &rep))
	return 1
}

// checkPair reads resident.check's programs = {GPU, NPU} (two programs of
// resident.program) and args = {k = v, ...} (numbers, strings and
// booleans): the built-in scenario with that pair, and the pair's name and
// digest for the replay strings. With args, the pair runs with those
// alone, and the exchange's rounds and credits are refused; without, it is
// shaped like the exchange with x.
func (m *Module) checkPair(L *lua.LState, t *lua.LTable, x check.Exchange) (check.Scenario, check.Pair) {
	const name = "check"
	pt, ok := field(t, "programs").(*lua.LTable)
	var gpu, npu *programValue
	if ok && pt.Len() == 2 {
		gpu, npu = m.asProgram(pt.RawGetInt(1)), m.asProgram(pt.RawGetInt(2))
	}
	if gpu == nil || npu == nil {
		fieldError(L, 1, name, "programs", "give {GPU, NPU}: the GPU program and the NPU program, each made by resident.program")
	}
	args := scalarArgs(L, t, name)
	if args != nil {
		for _, key := range check.ExchangeNames() {
			if field(t, key) != lua.LNil {
				fieldError(L, 1, name, key, key+" is the built-in exchange's argument, not this pair's: give it in args if the pair takes it")
			}
		}
	}
	// The programs' steps are bounded by their instruction budget, not by
	// the script's context: once it ends the search, the checker reruns
	// what it found to describe it, and programs stopped at once would make
	// that rerun differ (reported as not deterministic).
	return PairChecked(context.WithoutCancel(ctxOf(L)), gpu.prog, npu.prog, args, x)
}

// PairChecked is the built-in scenario of the checker run on gpu and npu,
// and the pair its reports and replay strings name: with args (their own
// arguments, numbers, strings and booleans by name), the pair runs with
// those alone; with args nil, each session is shaped like the built-in
// exchange (rounds, credits and slot_bytes as args) up to x. ctx ends the
// programs' Lua code.
func PairChecked(ctx context.Context, gpu, npu *luaprogram.Program, args map[string]any, x check.Exchange) (check.Scenario, check.Pair) {
	pair := PairIdentity(gpu, npu, args, x)
	if args == nil {
		return x.Scenario(check.BuiltinWith(ExchangeShaped(ctx, gpu, npu, nil))), pair
	}
	return check.BuiltinOf(pair.Name, PairOf(ctx, gpu, npu, args)), pair
}

// ScriptChecked is a scenario script's scenario run with x, the built-in
// exchange's arguments it reads as c.rounds and c.credits, and the pair
// its replay strings record: the built-in exchange with x, which a run of
// the script need not make a session of (check.Pair.Optional).
func ScriptChecked(sc check.Scenario, x check.Exchange) (check.Scenario, check.Pair) {
	pair := x.Pair()
	pair.Optional = true
	return x.Scenario(sc), pair
}

// scalarArgs reads field args of table t, argument 1 of function name: a
// pair's own arguments, numbers, strings and booleans by name; nil when
// not given.
func scalarArgs(L *lua.LState, t *lua.LTable, name string) map[string]any {
	at := field(t, "args")
	if at == lua.LNil {
		return nil
	}
	tt, ok := at.(*lua.LTable)
	if !ok {
		fieldError(L, 1, name, "args", "table of the pair's arguments by name expected, got "+valueTypeName(at))
	}
	args := map[string]any{}
	tt.ForEach(func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok {
			fieldError(L, 1, name, "args", "an argument's name must be a string, got "+k.String())
		}
		switch v := v.(type) {
		case lua.LNumber:
			args[string(ks)] = float64(v)
		case lua.LString:
			args[string(ks)] = string(v)
		case lua.LBool:
			args[string(ks)] = bool(v)
		default:
			fieldError(L, 1, name, "args", "argument "+string(ks)+" must be a number, a string or a boolean, got "+valueTypeName(v))
		}
	})
	return args
}

// PairIdentity is what the checker's replay strings record of gpu and npu
// with args: their names, and a digest of their texts and arguments; with
// args nil, the pair is shaped like the built-in exchange with x, whose
// arguments are then the pair's.
func PairIdentity(gpu, npu *luaprogram.Program, args map[string]any, x check.Exchange) check.Pair {
	words := ArgsWords(args)
	if args == nil {
		words = "shaped as the built-in exchange, " + x.Words()
	}
	pair := check.Pair{Name: filepath.Base(gpu.Name()) + "," + filepath.Base(npu.Name()), Digest: check.PairDigest(gpu.Text(), npu.Text(), words), OwnArgs: args != nil}
	if args != nil {
		pair.Name += " with " + words
	} else {
		pair.Name += " " + words
	}
	return pair
}

// ArgsWords is args as "k=v" in name order: what a pair's name and digest
// say of its arguments.
func ArgsWords(args map[string]any) string {
	parts := make([]string, 0, len(args))
	for _, k := range slices.Sorted(maps.Keys(args)) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, args[k]))
	}
	return strings.Join(parts, ",")
}

// loadScenario loads a scenario script (LoadScenario) as a check.Scenario.
// It is set by init: a scenario opens the module in a state of its own, so
// loading one reads the list of the module's functions, which holds
// resident.check, and a package-level reference here would make that
// list's initialization refer to itself.
var loadScenario func(ctx context.Context, path string, stdout io.Writer) (check.Scenario, error)

func init() {
	loadScenario = func(ctx context.Context, path string, stdout io.Writer) (check.Scenario, error) {
		sc, err := LoadScenario(ctx, path, stdout)
		if err != nil {
			return nil, err
		}
		return sc.Run, nil
	}
}

// reportTable converts a search's report to the table resident.check
// returns.
func reportTable(L *lua.LState, r *check.Report) *lua.LTable {
	t := L.CreateTable(0, 12)
	t.RawSetString("ok", lua.LBool(r.OK()))
	t.RawSetString("schedules", lua.LNumber(r.Schedules))
	t.RawSetString("states", lua.LNumber(r.States))
	t.RawSetString("pruned", lua.LNumber(r.Pruned))
	t.RawSetString("truncated", lua.LNumber(r.Truncated))
	t.RawSetString("exhausted", lua.LBool(r.Exhausted))
	t.RawSetString("elapsed", seconds(r.Elapsed))
	t.RawSetString("scenario_errors", lua.LNumber(r.ScenarioErrors))
	t.RawSetString("made", lua.LNumber(r.Made))
	t.RawSetString("decided", lua.LNumber(r.Decided))
	t.RawSetString("retired", lua.LNumber(r.Retired))
	if r.ScenarioError != "" {
		t.RawSetString("scenario_error", lua.LString(r.ScenarioError))
	}
	cxs := L.CreateTable(len(r.Counterexamples), 0)
	for _, cx := range r.Counterexamples {
		c := L.CreateTable(0, 7)
		c.RawSetString("invariant", lua.LNumber(cx.Invariant))
		c.RawSetString("violation", lua.LString(cx.Violation.Error()))
		c.RawSetString("replay", lua.LString(cx.Replay))
		c.RawSetString("length", lua.LNumber(cx.Length()))
		c.RawSetString("steps", stepList(L, cx.Steps))
		c.RawSetString("events", stringList(L, cx.Events))
		c.RawSetString("text", lua.LString(cx.String()))
		cxs.Append(c)
	}
	t.RawSetString("counterexamples", cxs)
	t.RawSetString("report", lua.LString(r.String()))
	return t
}

// replayedTable converts a replayed schedule to the table resident.check
// returns with replay.
func replayedTable(L *lua.LState, r *check.Replayed) *lua.LTable {
	t := L.CreateTable(0, 3)
	t.RawSetString("ok", lua.LBool(len(r.Violations) == 0))
	t.RawSetString("steps", stepList(L, r.Steps))
	t.RawSetString("violations", violationList(L, r.Violations))
	return t
}

// stepList is a schedule's steps in words.
func stepList(L *lua.LState, steps []check.Step) *lua.LTable {
	t := L.CreateTable(len(steps), 0)
	for _, s := range steps {
		t.Append(lua.LString(s.Text))
	}
	return t
}

// violationList is {{invariant=, session=, message=, events={...}}, ...}.
func violationList(L *lua.LState, vs []oracle.Violation) *lua.LTable {
	t := L.CreateTable(len(vs), 0)
	for _, v := range vs {
		vt := L.CreateTable(0, 4)
		vt.RawSetString("invariant", lua.LNumber(v.Invariant))
		vt.RawSetString("session", lua.LNumber(v.Session))
		vt.RawSetString("message", lua.LString(v.Message))
		vt.RawSetString("events", stringList(L, check.FormatEvents(v.Events)))
		t.Append(vt)
	}
	return t
}
