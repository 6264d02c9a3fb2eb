package campaign

import (
	"context"
	"strings"

	"github.com/residentlua/residentlua/campaign/trial"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
)

// Builtin runs the built-in trial: campaign/trial's randomized protocol trial
// (three sessions of up to 8 rounds, up to three random faults, random host
// operations, checked by the oracle), on a simulated fabric with the
// trial's seed. onFabric, when not nil, is called with each trial's fabric
// before the trial uses it (a replay's trace). A trial's outcome is "ok",
// "violation", "problem" (a contract break the oracle does not watch) or
// "unsettled" (something was left held after the trial): every one but
// "ok" a failure. It records "elapsed", the fabric's time in seconds.
func Builtin(onFabric func(*devices.Fabric)) Runners { return builtinRunners{onFabric} }

// builtinRunners makes the built-in trial's runners.
type builtinRunners struct{ onFabric func(*devices.Fabric) }

func (b builtinRunners) NewRunner(context.Context, uint64) (Runner, error) {
	return &builtinRunner{onFabric: b.onFabric, world: trial.NewWorld()}, nil
}

// Describe leaves s as it is: a summary that names no script and no Go
// trial is one of built-in trials.
func (builtinRunners) Describe(*Summary) error { return nil }

// builtinRunner runs campaign/trial's randomized protocol trial.
type builtinRunner struct {
	onFabric func(*devices.Fabric)
	world    *trial.World // the worker's, renewed for each trial
	report   bool         // write each trial's report (a replay; a campaign needs none, and it costs)
	// res is the result of the trial running, whose maps and slices each
	// trial reuses; a Trial's Fired refers to it until publish copies it.
	res trial.Result
}

func (b *builtinRunner) Run(_ context.Context, t *Trial) error {
	r := &b.res
	b.world.Run(trial.Config{Seed: t.Seed, OnFabric: b.onFabric, NoOps: !b.report}, r)
	t.Violations = len(r.Violations)
	t.Fired = r.Fired
	countSessions(t, r.Sessions)
	t.Reached, t.Unreached = reachOf(r.Sessions)
	if b.report {
		t.Report = r.Report()
	}
	if err := t.Record("elapsed", r.Elapsed.Seconds()); err != nil {
		return err
	}
	switch {
	case len(r.Violations) > 0:
		t.Outcome, t.Message = "violation", r.Violations[0].Error()
	case len(r.Problems) > 0:
		t.Outcome, t.Message = "problem", r.Problems[0]
	case !r.Settled:
		t.Outcome, t.Message = "unsettled", "not settled after the resets"
	}
	if t.Outcome != "ok" {
		t.Failed = true
		t.Message += " (" + faultList(r.Faults) + ")"
	}
	return nil
}

// countSessions counts a built-in trial's sessions by how they ended
// (as trial.Result.Outcomes does) into t.Sessions, which it reuses.
func countSessions(t *Trial, sessions []trial.Session) {
	if t.Sessions == nil {
		t.Sessions = make(map[string]int, 3)
	}
	for _, s := range sessions {
		name := "not made"
		if s.ID != 0 {
			name = s.Outcome.String()
		}
		t.Sessions[name]++
	}
}

// reachOf is how far a built-in trial's sessions came, and why none was
// decided RUN when none was: the first error of making one.
func reachOf(sessions []trial.Session) (Reached, string) {
	reached, why := ReachNone, ""
	for _, s := range sessions {
		switch {
		case s.ID == 0:
			if why == "" {
				why = s.Err
			}
		case s.Decision == oracle.StartupRun && s.Outcome == engine.Retired:
			return ReachRetired, ""
		case s.Decision == oracle.StartupRun:
			reached = ReachDecided
		default:
			reached = max(reached, ReachMade)
		}
	}
	if reached >= ReachDecided {
		why = ""
	}
	return reached, why
}

func (b *builtinRunner) Close() { b.world.Close() }

// faultList names a built-in trial's armed faults for a failure's message.
func faultList(faults []string) string {
	if len(faults) == 0 {
		return "no faults"
	}
	return "faults " + strings.Join(faults, ", ")
}
