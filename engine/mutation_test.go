package engine_test

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/engine"
)

var mutation = flag.Bool("mutation", false, "run TestMutationScore: each broken rule against a campaign of -trials.broken trials and the checker with its default bounds (minutes per rule)")

// TestMutationScore breaks each rule in turn and prints, as a table for
// docs/checking.md, whether a campaign of -trials.broken trials (3,000)
// and the checker with its default bounds (those of residentlua check)
// caught it: the first trial that reported the rule's invariant, and the
// checker's shortest counterexample's length, schedules and time. It fails
// when either missed one. Each rule is a subtest, so that the rules can run
// in processes of their own, one per core (the search runs on one core):
//
//	go test -c -o engine.test ./engine
//	./engine.test -test.run 'TestMutationScore/^abort_after_RUN' -mutation -test.v -test.timeout 2h
//
// It takes minutes per rule, so it runs only when asked.
func TestMutationScore(t *testing.T) {
	if !*mutation {
		t.Skip("the mutation score takes minutes per rule; run it with -mutation")
	}
	var rows []string
	for _, c := range brokenRules {
		t.Run(c.name, func(t *testing.T) {
			row := mutationRow(t, c)
			t.Log(row)
			rows = append(rows, row)
		})
	}
	t.Logf("\n| broken rule | invariant | campaign (%d trials): first trial to report it | checker (defaults): counterexample length | schedules | time |\n|---|---|---|---|---|---|\n%s",
		*campaignBroken, strings.Join(rows, "\n"))
}

// mutationRow runs the campaign and the checker with rule c broken and
// says what each found, as a row of TestMutationScore's table.
func mutationRow(t *testing.T, c brokenRuleCase) string {
	_, first := campaignWithRule(c.rule, *campaignBase, *campaignBroken, c.inv, true)
	campaign := "missed"
	if first != 0 {
		campaign = fmt.Sprintf("trial %d", first-*campaignBase+1)
	} else {
		t.Errorf("a campaign of %d trials did not report invariant %d", *campaignBroken, c.inv)
	}
	restore := engine.BreakRule(c.rule)
	rep := check.Check(context.Background(), check.Builtin, check.Options{})
	restore()
	checker := "missed"
	if i := slices.IndexFunc(rep.Counterexamples, func(cx check.Counterexample) bool { return cx.Invariant == c.inv }); i >= 0 {
		checker = fmt.Sprintf("%d (replay %s)", rep.Counterexamples[i].Length(), rep.Counterexamples[i].Replay)
	} else {
		t.Errorf("the checker with its defaults did not report invariant %d:\n%s", c.inv, rep.String())
	}
	return fmt.Sprintf("| %s | %d | %s | %s | %d (exhausted %v) | %v |", c.name, c.inv, campaign, checker, rep.Schedules, rep.Exhausted, rep.Elapsed.Round(1e8))
}
