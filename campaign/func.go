package campaign

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Func runs a trial written in Go: trial(ctx, t) runs the trial of seed
// t.Seed (index t.Index) and says in t what it found, as a Lua trial
// script does:
//
//   - t.Outcome: how it ended, a name such as "retired" ("ok" unless it
//     sets one), of at most 64 bytes of UTF-8 and none of ReservedOutcomes;
//   - t.Record(name, value): a measurement;
//   - t.Violations: the violations an oracle found, which make the trial a
//     failure of outcome "violation" (t.Message, when set, says which);
//   - t.Failed, with t.Message: a failure the trial found itself (outcome
//     "failed");
//   - an error returned: a failure of outcome "error", or, once ctx has
//     ended, "timeout" or "interrupted": a trial that can run long returns
//     when ctx ends.
//
// Run calls trial from every worker's goroutine at once, so it keeps a
// trial's state in its locals: a trial that depends on an earlier one
// makes the summary depend on the number of workers (Summary.Warnings
// notices). name names the trials in the summary ("trials of name"); as a
// Go trial has no command line, its failures name no replay command, and
// Replay runs one alone.
func Func(name string, trial func(ctx context.Context, t *Trial) error) Runners {
	return funcRunners{name, trial}
}

// funcRunners makes the runners of a trial written in Go.
type funcRunners struct {
	name  string
	trial func(context.Context, *Trial) error
}

// NewRunner is the function itself: it keeps nothing from one trial to the
// next.
func (f funcRunners) NewRunner(context.Context, uint64) (Runner, error) { return funcRunner(f), nil }

// Describe names the trials by the function's name.
func (f funcRunners) Describe(s *Summary) error {
	if f.name == "" {
		return errors.New("campaign: a Go trial needs a name, which the summary names its trials by (campaign.Func's first argument)")
	}
	if err := CheckName("campaign: the Go trial's name", f.name); err != nil {
		return err
	}
	s.Func = f.name
	return nil
}

// funcRunner runs a trial written in Go.
type funcRunner funcRunners

// Run calls the function, then reads its verdict from t: a violation, a
// failure it found, or the outcome it gave.
func (f funcRunner) Run(ctx context.Context, t *Trial) error {
	if err := f.trial(ctx, t); err != nil {
		return err
	}
	switch {
	case t.Violations > 0:
		t.Outcome, t.Failed = OutcomeViolation, true
		if t.Message == "" {
			t.Message = fmt.Sprintf("the trial found %d violations", t.Violations)
		}
	case t.Failed:
		t.Outcome = OutcomeFailed
	case t.Outcome == "":
		t.Outcome = "ok"
	case slices.Contains(reservedOutcomes, t.Outcome):
		return fmt.Errorf("the trial's outcome is %q, one the campaign keeps for its own verdicts (%s); give another, or return an error or set t.Failed to fail the trial",
			t.Outcome, strings.Join(reservedOutcomes, ", "))
	default:
		if err := CheckName("the trial's outcome", t.Outcome); err != nil {
			return err
		}
	}
	if t.Failed && t.Report == "" {
		t.Report = t.Message
	}
	return nil
}

func (funcRunner) Close() {}
