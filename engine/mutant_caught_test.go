//go:build mutant

package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/campaign/trial"
	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/luaapi"
	"github.com/residentlua/residentlua/trace"
)

// This file is built only into a mutant's test binary (go test -tags
// mutant, which TestMutantsAreCaught runs): it fails unless the mutant is
// caught.

var mutantReportFile = flag.String("mutant.report", "", "where TestMutantCaught writes what caught the mutant, as JSON, for TestMutantsAreCaught to check with the engine correct")

// checkBounds are small bounds under which every mutant shows, with the
// smallest exchange (checkExchange).
var checkBounds = check.Bounds{Faults: 1, Preemptions: 1}

// TestMutantCaught requires of the mutant this binary was built as (its
// name given by -mutant) that a campaign of TestCampaign's trials report
// the invariant it breaks within -trials.broken trials; that the model
// checker report it with a counterexample of at most 8 host operations and
// choices whose replay string reproduces the same violation; that the
// search find the same with and without pruning; and that the scenario
// tests written for its rule pass. It logs how many random trials the
// mutant needs (the median over -check.seeds campaigns), for
// docs/checking.md, and with -mutation checks it with the checker at its
// defaults too.
func TestMutantCaught(t *testing.T) {
	for name := range mutantScenarioTests {
		if _, err := readMutant(name); err != nil {
			t.Errorf("mutantScenarioTests lists %q: %v", name, err)
		}
	}
	m, err := readMutant(engine.MutantName())
	if err != nil {
		t.Fatal(err)
	}
	var rep mutantReport
	t.Run("campaign", func(t *testing.T) {
		stats, first := campaignCatching(*campaignBase, *campaignBroken, m.invariant, !*campaignAll)
		t.Logf("%d trials, %d failed, violations %v; invariant %d first reported by the trial of seed %d",
			stats.Trials, stats.Failed, stats.Violations, m.invariant, first)
		if first == 0 {
			t.Fatalf("%d trials reported no violation of invariant %d (%s); violations %v",
				stats.Trials, m.invariant, oracle.Invariant(m.invariant), stats.Violations)
		}
		rep.CampaignSeed = first
	})
	t.Run("trace", func(t *testing.T) {
		if rep.CampaignSeed == 0 {
			t.Fatal("the campaign caught nothing: no trace to validate")
		}
		traceCatches(t, rep.CampaignSeed, m.invariant)
	})
	t.Run("checker", func(t *testing.T) {
		rep.Replay = checkerCatches(t, m.invariant)
	})
	t.Run("pruning", func(t *testing.T) {
		found := pruningAgrees(t, pruneBounds)
		if !slices.ContainsFunc(found, func(s string) bool { return strings.HasPrefix(s, fmt.Sprintf("invariant %d ", m.invariant)) }) {
			t.Errorf("the mutant's invariant %d was not found: %v", m.invariant, found)
		}
	})
	for _, sc := range mutantScenarioTests[m.name] {
		t.Run(sc.name, sc.test)
	}
	if *mutation {
		rep.Row = mutationRow(t, m)
	}
	if t.Failed() {
		return
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*mutantReportFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// traceCatches requires that the trace of the campaign's trial of seed,
// written as residentlua --events writes it, be caught by the trace
// validator with the invariant the oracle reported, inv; or, for
// invariant 15, which no trace can judge, that the validator list it as
// not checked.
func traceCatches(t *testing.T, seed uint64, inv int) {
	var buf bytes.Buffer
	rec := trace.NewRecorder(&buf)
	trial.Run(trial.Config{Seed: seed, OnFabric: rec.Attach})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := trace.Validate(trace.Input{Name: "mutant.jsonl", R: &buf})
	if err != nil {
		t.Fatalf("the trace of seed %d is not one: %v", seed, err)
	}
	if inv == 15 {
		if !slices.ContainsFunc(r.Unchecked, func(u trace.Unchecked) bool { return u.Invariant == 15 }) {
			t.Errorf("invariant 15 is not listed as not checked:\n%s", r)
		}
		return
	}
	if !slices.ContainsFunc(r.Violations, func(v trace.Violation) bool { return v.Invariant == inv }) {
		t.Errorf("the trace of seed %d, whose trial broke invariant %d, validates without it:\n%s", seed, inv, r)
	}
}

// checkerCatches requires the model checker, under checkBounds, to report
// invariant inv with a counterexample of at most 8 steps whose replay
// reproduces the violation, and returns the replay string.
func checkerCatches(t *testing.T, inv int) string {
	rep := check.Check(context.Background(), checkExchange.Scenario(check.Builtin), check.Options{Bounds: checkBounds, Pair: checkExchange.Pair()})
	i := slices.IndexFunc(rep.Counterexamples, func(cx check.Counterexample) bool { return cx.Invariant == inv })
	if i < 0 {
		t.Fatalf("the checker did not report invariant %d (%s):\n%s", inv, oracle.Invariant(inv), rep.String())
	}
	cx := rep.Counterexamples[i]
	if cx.Length() > 8 {
		t.Errorf("the counterexample has %d host operations and choices, want at most 8:\n%s", cx.Length(), cx)
	}
	replayed, err := check.ReplayPair(context.Background(), checkExchange.Scenario(check.Builtin), checkExchange.Pair(), cx.Replay, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(replayed.Violations, func(v oracle.Violation) bool {
		return v.Invariant == inv && v.Message == cx.Violation.Message
	}) {
		t.Errorf("replaying %s gave violations %v, want %v", cx.Replay, replayed.Violations, cx.Violation)
	}
	t.Logf("found in %d schedules (%v), counterexample of length %d, replay %s; random trials needed (median of %d campaigns): %s\n%s",
		rep.Schedules, rep.Elapsed.Round(1e6), cx.Length(), cx.Replay, *checkSeeds, randomTrialsNeeded(inv, *checkSeeds), cx)
	return cx.Replay
}

// campaignCatching runs up to trials trials of seeds base, base+1, ... and
// returns their figures and the seed of the first trial that reported
// invariant inv (0 if none), stopping there when stop is true.
func campaignCatching(base uint64, trials, inv int, stop bool) (stats trial.Stats, first uint64) {
	for i := range trials {
		r := trial.Run(trial.Config{Seed: base + uint64(i)})
		stats.Add(r)
		if first == 0 && slices.ContainsFunc(r.Violations, func(v oracle.Violation) bool { return v.Invariant == inv }) {
			first = r.Seed
			if stop {
				break
			}
		}
	}
	return stats, first
}

// randomTrialsNeeded is the median, over campaigns of seed bases 1,
// 1+10000, ..., of how many random trials it takes to report invariant
// inv; "> N" when a campaign of -trials.broken trials never did.
func randomTrialsNeeded(inv, campaigns int) string {
	limit := *campaignBroken
	var needed []int
	for c := range campaigns {
		stats, first := campaignCatching(uint64(1+c*10000), limit, inv, true)
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

// mutationRow runs the checker at its defaults (those of residentlua
// check) on the mutant, and says what the campaign and it found, as a row
// of the mutation score table.
func mutationRow(t *testing.T, m mutant) string {
	_, first := campaignCatching(*campaignBase, *campaignBroken, m.invariant, true)
	campaign := "missed"
	if first != 0 {
		campaign = fmt.Sprintf("%d", first-*campaignBase+1)
	}
	rep := check.Check(context.Background(), check.Builtin, check.Options{})
	checker := "missed"
	if i := slices.IndexFunc(rep.Counterexamples, func(cx check.Counterexample) bool { return cx.Invariant == m.invariant }); i >= 0 {
		checker = fmt.Sprintf("%d (replay %s)", rep.Counterexamples[i].Length(), rep.Counterexamples[i].Replay)
	} else {
		t.Errorf("the checker with its defaults did not report invariant %d:\n%s", m.invariant, rep.String())
	}
	return fmt.Sprintf("| %s | %d | %s | %s | %d (exhausted %v) | %v |", m.rule, m.invariant, campaign, checker, rep.Schedules, rep.Exhausted, rep.Elapsed.Round(1e8))
}

// mutantScenarioTests are further tests of package engine_test that a
// mutant must fail, by the mutant's name.
var mutantScenarioTests = map[string][]struct {
	name string
	test func(*testing.T)
}{
	"run-with-one-accepted": {{"lua scenario", luaScenarioCatchesEarlyRun}},
}

// luaScenarioCatchesEarlyRun checks a Lua scenario on an engine that
// accepts RUN with one participant: the checker must find the early start
// (TestCheckerLuaScenario checks that it finds nothing with the engine
// correct).
func luaScenarioCatchesEarlyRun(t *testing.T) {
	sc, err := luaapi.LoadScenario(context.Background(), "../luaapi/testdata/early_start.lua", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := check.Check(context.Background(), sc.Run, check.Options{})
	if len(rep.Counterexamples) == 0 || rep.Counterexamples[0].Invariant != 2 {
		t.Fatalf("want invariant 2 broken:\n%s", rep.String())
	}
	if cx := rep.Counterexamples[0]; cx.Length() != 4 || cx.Replay != "f1:1" {
		t.Errorf("want the counterexample of 4 steps (startup, submit_gpu, the choice, start) replayed by f1:1:\n%s", cx)
	}
}
