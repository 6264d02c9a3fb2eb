package engine_test

import (
	"context"
	"flag"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/luaapi"
)

var checkSeeds = flag.Int("check.seeds", 5, "campaigns (seed bases) TestCheckerCatchesBrokenRules runs for the median of random trials each broken rule needs")

// checkBounds are small bounds under which every broken rule shows.
var checkBounds = check.Bounds{Rounds: 1, Credits: 1, Faults: 1, Preemptions: 1}

// TestCheckerCatchesBrokenRules builds the engine with one rule broken at a
// time (BreakRule, the test-only hook of export_test.go) and requires the
// model checker to report the invariant the rule keeps, with a
// counterexample of at most 8 host operations and choices whose replay
// string reproduces the same violation. Beside it, it logs how many random
// campaign trials the same bug needs (the median over -check.seeds
// campaigns), for docs/checking.md.
//
// Under the race detector, which makes a search ten times as slow, it
// checks one rule that needs no fault, under checkBounds without faults:
// .ci/run runs it whole in a step of its own, without the detector.
func TestCheckerCatchesBrokenRules(t *testing.T) {
	rules, bounds := brokenRules, checkBounds
	if raceEnabled {
		i := slices.IndexFunc(brokenRules, func(c brokenRuleCase) bool { return c.rule == engine.RunWithOneAccepted })
		rules, bounds.Faults = brokenRules[i:i+1], -1
	}
	for _, c := range rules {
		t.Run(c.name, func(t *testing.T) {
			restore := engine.BreakRule(c.rule)
			defer restore()
			rep := check.Check(context.Background(), check.Builtin, check.Options{Bounds: bounds})
			i := slices.IndexFunc(rep.Counterexamples, func(cx check.Counterexample) bool { return cx.Invariant == c.inv })
			if i < 0 {
				t.Fatalf("the checker did not report invariant %d (%s):\n%s", c.inv, engine.Invariant(c.inv), rep.String())
			}
			cx := rep.Counterexamples[i]
			if cx.Length() > 8 {
				t.Errorf("the counterexample has %d host operations and choices, want at most 8:\n%s", cx.Length(), cx)
			}
			replayed, err := check.Replay(context.Background(), check.Builtin, cx.Replay, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(replayed.Violations, func(v engine.Violation) bool {
				return v.Invariant == c.inv && v.Message == cx.Violation.Message
			}) {
				t.Errorf("replaying %s gave violations %v, want %v", cx.Replay, replayed.Violations, cx.Violation)
			}
			restore()
			if clean, err := check.Replay(context.Background(), check.Builtin, cx.Replay, nil); err != nil || len(clean.Violations) > 0 {
				t.Errorf("with no rule broken, replaying %s gave %v (error %v), want no violation", cx.Replay, clean.Violations, err)
			}
			trials := randomTrialsNeeded(c.rule, c.inv, *checkSeeds)
			t.Logf("found in %d schedules (%v), counterexample of length %d, replay %s; random trials needed (median of %d campaigns): %s\n%s",
				rep.Schedules, rep.Elapsed.Round(1e6), cx.Length(), cx.Replay, *checkSeeds, trials, cx)
		})
	}
}

// randomTrialsNeeded is the median, over campaigns of seed bases 1,
// 1+10000, ..., of how many random trials (engine/trial, TestCampaign's)
// it takes to report invariant inv with rule broken; "> N" when a campaign
// of -trials.broken trials never did.
func randomTrialsNeeded(rule engine.BrokenRule, inv, campaigns int) string {
	limit := *campaignBroken
	var needed []int
	for c := range campaigns {
		stats, first := campaignWithRule(rule, uint64(1+c*10000), limit, inv, true)
		n := limit + 1
		if first != 0 {
			n = stats.Trials
		}
		needed = append(needed, n)
	}
	sort.Ints(needed)
	m := needed[len(needed)/2]
	if m > limit {
		return "> " + strconv.Itoa(limit)
	}
	return strconv.Itoa(m)
}

// TestCheckerLuaScenarioCatchesEarlyRun checks a Lua scenario with the
// engine built to accept RUN with one participant: the checker must find
// the early start, and report nothing with every rule kept.
func TestCheckerLuaScenarioCatchesEarlyRun(t *testing.T) {
	sc, err := luaapi.LoadScenario(context.Background(), "../luaapi/testdata/early_start.lua", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep := check.Check(context.Background(), sc.Run, check.Options{}); !rep.OK() {
		t.Fatalf("with every rule kept:\n%s", rep.String())
	}
	defer engine.BreakRule(engine.RunWithOneAccepted)()
	rep := check.Check(context.Background(), sc.Run, check.Options{})
	if len(rep.Counterexamples) == 0 || rep.Counterexamples[0].Invariant != 2 {
		t.Fatalf("want invariant 2 broken:\n%s", rep.String())
	}
	if cx := rep.Counterexamples[0]; cx.Length() != 4 || cx.Replay != "r2c2f1:1" {
		t.Errorf("want the counterexample of 4 steps (startup, submit_gpu, the choice, start) replayed by r2c2f1:1:\n%s", cx)
	}
}
