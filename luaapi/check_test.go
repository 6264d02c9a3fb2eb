package luaapi

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/check"
)

// smallestReplay is a replay string of the built-in exchange of one round
// and one credit: its head, with the exchange's digest, then choices.
func smallestReplay(choices string) string {
	return "f1p" + check.Exchange{Rounds: 1, Credits: 1}.Pair().Digest + ":" + choices
}

// TestCheckBuiltin explores the built-in scenario under small bounds and
// reads the report's figures.
func TestCheckBuiltin(t *testing.T) {
	h := sim(t)
	h.run(`r = resident.check{rounds = 1, credits = 1, faults = 0, preemptions = 1}`)
	if got := h.str(`table.concat({tostring(r.ok), tostring(r.exhausted), #r.counterexamples, r.scenario_errors, r.truncated, type(r.elapsed)}, " ")`); got != "true true 0 0 0 number" {
		t.Errorf("ok, exhausted, counterexamples, scenario errors, truncated, elapsed: %s", got)
	}
	if h.eval("r.schedules > 1 and r.states > 1 and r.pruned > 0") != lua.LTrue {
		t.Errorf("schedules %s, states %s, pruned %s", h.str("r.schedules"), h.str("r.states"), h.str("r.pruned"))
	}
	if got := h.str("r.report"); !strings.Contains(got, "faults <= 0, preemptions <= 1") || !strings.Contains(got, "no invariant broken") {
		t.Errorf("report:\n%s", got)
	}
}

// TestCheckNewBounds gives resident.check the sessions and misuse bounds
// and prune = false: the report says them, the search with one session
// and no misuse explores fewer schedules than with the defaults, and
// without pruning it hashes no state and finds the same (nothing).
func TestCheckNewBounds(t *testing.T) {
	h := sim(t)
	h.run(`small = {rounds = 1, credits = 1, faults = 0, preemptions = 0}
r = resident.check(small)
small.sessions, small.misuse = 1, false
one = resident.check(small)
small.prune = false
np = resident.check(small)`)
	if got := h.str("r.report"); !strings.Contains(got, "steps <= 200, sessions <= 2, misuse on") {
		t.Errorf("the defaults' report:\n%s", got)
	}
	if got := h.str("one.report"); !strings.Contains(got, "sessions <= 1, misuse off") {
		t.Errorf("report with sessions 1 and misuse off:\n%s", got)
	}
	if h.eval("one.ok and r.ok and one.schedules < r.schedules") != lua.LTrue {
		t.Errorf("one session, no misuse: %s schedules; the defaults: %s", h.str("one.schedules"), h.str("r.schedules"))
	}
	if h.eval("np.ok and np.exhausted and np.states == 0 and np.schedules > one.schedules") != lua.LTrue {
		t.Errorf("without pruning: ok %s, %s states, %s schedules (with pruning %s)", h.str("tostring(np.ok)"), h.str("np.states"), h.str("np.schedules"), h.str("one.schedules"))
	}
	if got := h.str("np.report"); !strings.Contains(got, "without pruning: no state hashed") {
		t.Errorf("report without pruning:\n%s", got)
	}
}

// TestCheckReplay replays a schedule of the built-in scenario: its steps
// in words, no violation. The replay string records the built-in
// exchange's arguments: with others, it is refused, naming both.
func TestCheckReplay(t *testing.T) {
	h := sim(t)
	h.run(`r = resident.check{rounds = 1, credits = 1, replay = "` + smallestReplay("2.0.1") + `"}`)
	if got := h.str(`tostring(r.ok) .. " " .. #r.violations .. " " .. table.concat(r.steps, "|")`); !strings.HasPrefix(got, "true 0 host chooses the setup: fault npu.dispatch 50%1*error(rejected), rounds 1, credits 1|") ||
		!strings.Contains(got, "|fault npu.dispatch fires (50%)|") || !strings.Contains(got, "|s1:submit_npu() = error: device: dispatch: npu0 rejected the dispatch: rejected|") {
		t.Errorf("replay: %s", got)
	}
	msg := h.fails(`resident.check{replay = "` + smallestReplay("2.0.1") + `"}`)
	for _, want := range []string{"was made by the programs whose digest is " + check.Exchange{Rounds: 1, Credits: 1}.Pair().Digest, "not by the built-in exchange, rounds <= 2, credits <= 2 (digest "} {
		if !strings.Contains(msg, want) {
			t.Errorf("a replay on another exchange: %s, want %q", msg, want)
		}
	}
}

// TestCheckScenarioScript checks a scenario script: the search hides its
// prints, a replay shows them.
func TestCheckScenarioScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.lua")
	script := "function scenario(c)\n  local s = startup{}\n  s:submit_gpu(); s:submit_npu()\n  if c.choose(2) == 0 then pcall(s.start, s) else s:abort() end\n  print('closed', s:close(1))\n  c.reset()\nend\n"
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	h := sim(t)
	h.run(`r = resident.check{scenario = ` + strconv.Quote(path) + `, faults = 0}`)
	if got := h.str(`tostring(r.ok) .. " " .. tostring(r.exhausted) .. " " .. r.scenario_errors`); got != "true true 0" {
		t.Errorf("ok, exhausted, scenario errors: %s", got)
	}
	if out := h.stdout.String(); out != "" {
		t.Errorf("the search printed %q", out)
	}
	h.run(`x = resident.check{scenario = ` + strconv.Quote(path) + `, replay = "f0p` + check.Exchange{}.Pair().Digest + `:1"}`)
	if out := h.stdout.String(); out != "closed\tretired\n" {
		t.Errorf("the replay printed %q", out)
	}
	if got := h.str(`table.concat(x.steps, "|")`); !strings.Contains(got, "s1:abort() = ok") {
		t.Errorf("replay steps: %s", got)
	}
}

// TestCheckBadArguments raises Lua's usual errors for bad arguments, never
// a Go panic.
func TestCheckBadArguments(t *testing.T) {
	h := sim(t)
	for code, want := range map[string]string{
		`resident.check(3)`:                             "bad argument #1 to 'check' (table expected, got number)",
		`resident.check{depth = 3}`:                     "bad argument #1 to 'check' (unknown field 'depth'; fields are scenario, replay, programs, args, rounds, credits, faults, preemptions, steps, sessions, misuse, prune)",
		`resident.check{sessions = 4}`:                  "bad argument #1 to 'check' (field 'sessions': sessions must be a whole number from 1 to 3, got 4)",
		`resident.check{misuse = 2}`:                    "bad argument #1 to 'check' (field 'misuse': misuse must be 0 (off) or 1 (on), got 2)",
		`resident.check{misuse = "on"}`:                 "bad argument #1 to 'check' (field 'misuse': true, false, 1 or 0 expected, got string)",
		`resident.check{prune = 0}`:                     "bad argument #1 to 'check' (field 'prune': boolean expected, got number)",
		`resident.check{replay = "f1:", prune = false}`: "bad argument #1 to 'check' (field 'prune': does not go with replay: a replay runs one schedule, and prunes nothing)",
		`resident.check{rounds = 0}`:                    "bad argument #1 to 'check' (field 'rounds': rounds must be a whole number from 1 to 1000000, got 0)",
		`resident.check{credits = 1.5}`:                 "bad argument #1 to 'check' (field 'credits': number has no integer representation, got 1.5)",
		`resident.check{preemptions = "2"}`:             "bad argument #1 to 'check' (field 'preemptions': number expected, got string)",
		`resident.check{faults = 101}`:                  "bad argument #1 to 'check' (field 'faults': faults must be a whole number from 0 to 100, got 101)",
		`resident.check{replay = "f1:", steps = 5}`:     "bad argument #1 to 'check' (field 'steps': does not go with replay: the replay string fixes the schedule and its bounds",
		`resident.check{replay = ""}`:                   "bad argument #1 to 'check' (field 'replay': give the replay string a counterexample printed",
		`resident.check{scenario = ""}`:                 "bad argument #1 to 'check' (field 'scenario': give a scenario script's file name",
		`resident.check{replay = 7}`:                    "bad argument #1 to 'check' (field 'replay': string expected, got number)",
		`resident.check{rounds = 1, credits = 1, replay = "` + smallestReplay("999") + `"}`: `invalid: check: replay "` + smallestReplay("999") + `": choice 1 is 999 but has only 14 alternatives there`,
		`resident.check{scenario = "/nonexistent/file.lua"}`:                                "resident.check: cannot open /nonexistent/file.lua: no such file or directory",
	} {
		if got := h.fails(code); !strings.Contains(got, want) {
			t.Errorf("%s: %s, want %q", code, got, want)
		}
	}
}

// TestCheckSandbox refuses a scenario script in a sandboxed state, which
// may not read files, and checks the built-in scenario there.
func TestCheckSandbox(t *testing.T) {
	h := newHarness(t, Options{Sandbox: true})
	h.run(`r = require "resident"; ok, err = pcall(r.check, {scenario = "testdata/scenario.lua"})`)
	if got := h.str("not ok and tostring(err)"); !strings.HasPrefix(got, "unsupported: check: a scenario script is a file, which this sandboxed state may not read") {
		t.Errorf("a scenario in a sandbox: %s", got)
	}
	if got := h.str(`r.check{rounds = 1, credits = 1, replay = "` + smallestReplay("") + `"}.ok`); got != "true" {
		t.Errorf("the built-in scenario in a sandbox: %s", got)
	}
}

// TestCheckInterrupted calls resident.check with the state's context
// ended (Ctrl-C in the command): the search stops at once and raises an
// error that says how far it came.
func TestCheckInterrupted(t *testing.T) {
	h := sim(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fn := h.eval("resident.check")
	h.L.SetContext(ctx)
	err := h.L.CallByParam(lua.P{Fn: fn, Protect: true}, h.L.NewTable())
	h.L.RemoveContext()
	if err == nil || !strings.Contains(err.Error(), "resident.check interrupted before the end of the bounded space (schedules explored: 0,") || strings.Contains(err.Error(), internalError) {
		t.Errorf("a check with its context ended: %v", err)
	}
}

// TestCheckingDocs runs the Lua examples of docs/checking.md that show
// their output, as TestDocs runs those of docs/lua-api.md.
func TestCheckingDocs(t *testing.T) {
	const path = "../docs/checking.md"
	n := 0
	for _, ex := range docExamples(t, path) {
		if !ex.hasOutput {
			continue
		}
		n++
		h := newHarness(t, Options{Config: simConfig(), Globals: true})
		if err := h.L.DoString(ex.code); err != nil {
			t.Fatalf("%s:%d: %v\n%s", path, ex.line, err, ex.code)
		}
		if got := h.stdout.String(); got != ex.output {
			t.Errorf("%s:%d: output\n%s\nwant\n%s", path, ex.line, got, ex.output)
		}
	}
	if n == 0 {
		t.Fatalf("%s has no Lua example with its output", path)
	}
}

// TestCheckPairOfOwn checks a pair of one's own through resident.check:
// without the arguments its buffers need, no session is made and the call
// raises the programs' error rather than returning a pass; with them, it
// explores, and the report counts the runs that decided RUN and retired.
// A replay string of the pair carries its digest and replays only with it.
func TestCheckPairOfOwn(t *testing.T) {
	h := sim(t)
	h.run(`g = resident.program{file = "../examples/ring/ring_gpu.lua"}
n = resident.program{file = "../examples/ring/ring_npu.lua"}`)
	msg := h.fails(`resident.check{programs = {g, n}, faults = 0, sessions = 1, misuse = false, preemptions = 0}`)
	for _, want := range []string{"no schedule made a session", "ring_gpu.lua: buffers: ", "field 'slots' (a nil value)", "the programs never ran"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q: %s", want, msg)
		}
	}
	h.run(`r = resident.check{programs = {g, n}, args = {slots = 1, msgs = 2, words = 1}, faults = 0, sessions = 1, misuse = false, preemptions = 0}`)
	if h.eval("r.ok and r.exhausted and r.decided > 0 and r.retired > 0 and r.made >= r.decided") != lua.LTrue {
		t.Errorf("report:\n%s", h.str("r.report"))
	}
	if msg := h.fails(`resident.check{programs = {g, n}, args = {slots = 1}, rounds = 2}`); !strings.Contains(msg, "field 'rounds': rounds is the built-in exchange's argument, not this pair's") {
		t.Errorf("rounds with args: %s", msg)
	}
	if msg := h.fails(`resident.check{args = {slots = 1}}`); !strings.Contains(msg, "goes with programs") {
		t.Errorf("args without programs: %s", msg)
	}
}
