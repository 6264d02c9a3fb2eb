package check_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/engine"
)

// smallBounds keep the built-in scenario's space small enough for a test.
var smallBounds = check.Bounds{Rounds: 1, Credits: 1, Faults: 1, Preemptions: 1}

// TestBuiltinAcceptanceBoundsExhaustedClean is issue 14's acceptance run:
// the built-in scenario with rounds and credits up to 2, one fault and two
// preemptions per run (the defaults), explored to exhaustion with no
// violation and no run cut at the step bound.
func TestBuiltinAcceptanceBoundsExhaustedClean(t *testing.T) {
	rep := check.Check(context.Background(), check.Builtin, check.Options{})
	b := rep.Bounds
	if b.Rounds != 2 || b.Credits != 2 || b.Faults != 1 || b.Preemptions != 2 {
		t.Fatalf("the default bounds are %+v, want rounds 2, credits 2, faults 1, preemptions 2", b)
	}
	if !rep.OK() || !rep.Exhausted || rep.Truncated != 0 {
		t.Fatalf("want an exhausted space with no violation and no run at the step bound:\n%s", rep.String())
	}
	t.Logf("%d schedules, %d distinct states, %v", rep.Schedules, rep.States, rep.Elapsed)
}

// TestBuiltinExhaustedClean explores the built-in scenario exhaustively
// under small bounds and requires no violation.
func TestBuiltinExhaustedClean(t *testing.T) {
	rep := check.Check(context.Background(), check.Builtin, check.Options{Bounds: smallBounds})
	if !rep.OK() || !rep.Exhausted || rep.Truncated != 0 {
		t.Fatalf("want an exhausted space with no violation and no run at the step bound:\n%s", rep.String())
	}
	if rep.Schedules == 0 || rep.States == 0 || rep.Pruned == 0 {
		t.Errorf("want schedules, states and pruned runs: %s", rep.String())
	}
}

// TestCheckCancelled stops a search at once through its context and
// requires a report that says it is not exhausted.
func TestCheckCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls int
	rep := check.Check(ctx, check.Builtin, check.Options{Bounds: smallBounds, ProgressEvery: 1, Progress: func(p check.Progress) {
		calls++
		if p.Schedules >= 10 {
			cancel()
		}
	}})
	if rep.Exhausted || rep.Schedules > 11 || calls == 0 {
		t.Fatalf("cancelled after 10 schedules: exhausted %v, %d schedules, %d progress calls", rep.Exhausted, rep.Schedules, calls)
	}
	if !strings.Contains(rep.String(), "not exhausted") {
		t.Errorf("the report does not say it stopped:\n%s", rep.String())
	}
}

// TestReplayRejectsForeignStrings refuses replay strings that are not one
// of the scenario's schedules.
func TestReplayRejectsForeignStrings(t *testing.T) {
	for _, s := range []string{"", "1.2.3", "x:1", "r1c1f1:1.x", "r1c1f1:999"} {
		if _, err := check.Replay(context.Background(), check.Builtin, s, nil); err == nil {
			t.Errorf("Replay(%q) did not fail", s)
		}
	}
}

// TestReplayOfDefaultSchedule replays the schedule of first alternatives
// and finds the host operations of the first plan.
func TestReplayOfDefaultSchedule(t *testing.T) {
	r, err := check.Replay(context.Background(), check.Builtin, "r1c1f1:", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := stepTexts(r)
	for _, want := range []string{"host chooses the setup: no fault, rounds 1, credits 1", "s1:submit_gpu() = ok", "s1:submit_npu() = ok", "s1:close(0s) = retired"} {
		if !strings.Contains(got, want) {
			t.Errorf("the default schedule lacks %q:\n%s", want, got)
		}
	}
	if len(r.Violations) != 0 {
		t.Errorf("violations %v", r.Violations)
	}
}

// BenchmarkBuiltinScenario explores the built-in scenario under small
// bounds and reports schedules per second.
func BenchmarkBuiltinScenario(b *testing.B) {
	schedules := 0
	for b.Loop() {
		rep := check.Check(context.Background(), check.Builtin, check.Options{Bounds: smallBounds})
		schedules += rep.Schedules
	}
	b.ReportMetric(float64(schedules)/b.Elapsed().Seconds(), "schedules/s")
}

// TestBoundsSet sets each bound within its range, stores 0 faults or
// preemptions as none, and refuses values out of range and unknown names.
func TestBoundsSet(t *testing.T) {
	var b check.Bounds
	for _, name := range check.BoundNames {
		if err := b.Set(name, 1); err != nil {
			t.Errorf("Set(%s, 1): %v", name, err)
		}
	}
	if b != (check.Bounds{Rounds: 1, Credits: 1, Faults: 1, Preemptions: 1, Steps: 1}) {
		t.Errorf("after setting every bound to 1: %+v", b)
	}
	if err := b.Set("faults", 0); err != nil || b.Faults != -1 {
		t.Errorf("Set(faults, 0): %v, Faults %d, want -1 (none)", err, b.Faults)
	}
	if err := b.Set("preemptions", 0); err != nil || b.Preemptions != -1 {
		t.Errorf("Set(preemptions, 0): %v, Preemptions %d, want -1 (none)", err, b.Preemptions)
	}
	for _, c := range []struct {
		name string
		v    int
		want string
	}{
		{"rounds", 0, "rounds must be a whole number from 1 to 1000000, got 0"},
		{"credits", 65, "credits must be a whole number from 1 to 64, got 65"},
		{"faults", -1, "faults must be a whole number from 0 to 100, got -1"},
		{"steps", 2_000_000, "steps must be a whole number from 1 to 1000000, got 2000000"},
		{"depth", 1, "depth is not a bound; the bounds are rounds, credits, faults, preemptions, steps"},
	} {
		if err := b.Set(c.name, c.v); err == nil || err.Error() != c.want {
			t.Errorf("Set(%s, %d): %v, want %q", c.name, c.v, err, c.want)
		}
	}
}

// stepTexts is the text of every step of a replay, a line each.
func stepTexts(r *check.Replayed) string {
	var texts []string
	for _, s := range r.Steps {
		texts = append(texts, s.Text)
	}
	return strings.Join(texts, "\n")
}

// TestLongWaitStopsWithTheSearch runs a scenario whose wait runs an
// exchange of 100,000 rounds in simulated time, and ends the search's
// context as the wait begins: the wait's joins are cancelled, the wait
// returns, and the search stops.
func TestLongWaitStopsWithTheSearch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var waited error
	cancelled := 0
	rep := check.Check(ctx, func(h *check.Host) {
		h.Fabric().Events().Subscribe(func(e devices.Event) {
			switch {
			case e.Kind == engine.EvWait:
				cancel()
			case e.Kind == engine.EvJoin && e.B == engine.JoinCancelled:
				cancelled++
			}
		})
		cfg := exchange.Default()
		cfg.Rounds, cfg.Credits = 100_000, 1
		s, err := h.NewSession(cfg)
		if err != nil {
			t.Error(err)
			return
		}
		_ = s.SubmitGPU()
		_ = s.SubmitNPU()
		_ = s.Start()
		_, waited = s.Wait(time.Hour)
		s.Close(0)
	}, check.Options{Bounds: check.Bounds{Faults: -1, Preemptions: -1, Steps: 1}}) // hashing a state of 100,000 rounds is slow
	if !errors.Is(waited, context.Canceled) || cancelled == 0 {
		t.Errorf("the wait returned %v, with %d joins cancelled; want it stopped by the context", waited, cancelled)
	}
	if rep.Exhausted || rep.Schedules != 1 || !rep.OK() {
		t.Errorf("want one schedule, stopped, no counterexample from the cut run:\n%s", rep.String())
	}
}
