package check_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/check"
)

// smallBounds keep the built-in scenario's space small enough for a test.
var smallBounds = check.Bounds{Rounds: 1, Credits: 1, Faults: 1, Preemptions: 1}

// TestBuiltinAcceptanceBoundsExhaustedClean is the checker's acceptance run:
// the built-in scenario with rounds and credits up to 2, one fault and two
// preemptions per run (the defaults), explored to exhaustion with no
// violation and no run cut at the step bound.
//
// Under the race detector, which makes it ten times as slow, it explores
// the defaults with one credit: .ci/run runs it with the defaults whole in
// a step of its own, without the detector.
func TestBuiltinAcceptanceBoundsExhaustedClean(t *testing.T) {
	var opts check.Options
	credits := 2
	if raceEnabled {
		opts.Bounds.Credits, credits = 1, 1
	}
	rep := check.Check(context.Background(), check.Builtin, opts)
	b := rep.Bounds
	if b.Rounds != 2 || b.Credits != credits || b.Faults != 1 || b.Preemptions != 2 {
		t.Fatalf("the bounds are %+v, want the defaults: rounds 2, credits 2 (1 under the race detector), faults 1, preemptions 2", b)
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
		if _, err := check.Replay(check.Builtin, s, nil); err == nil {
			t.Errorf("Replay(%q) did not fail", s)
		}
	}
}

// TestReplayOfDefaultSchedule replays the schedule of first alternatives
// and finds the host operations of the first plan.
func TestReplayOfDefaultSchedule(t *testing.T) {
	r, err := check.Replay(check.Builtin, "r1c1f1:", nil)
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

// TestLuaScenario explores the Lua scenario of docs/checking.md
// exhaustively and requires no violation, and its default schedule to
// replay with the host operations the script makes.
func TestLuaScenario(t *testing.T) {
	ls, err := check.LoadLuaScenario("testdata/scenario.lua", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	rep := check.Check(context.Background(), ls.Scenario, check.Options{Bounds: check.Bounds{Rounds: 2, Credits: 2, Faults: -1}})
	if !rep.OK() || !rep.Exhausted || rep.ScenarioErrors != 0 || rep.Schedules < 4 {
		t.Fatalf("want at least 4 schedules, exhausted, no violation nor error:\n%s", rep.String())
	}
	r, err := check.Replay(ls.Scenario, "r2c2f0:0.1", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := stepTexts(r)
	for _, want := range []string{"s1:submit_gpu() = ok", "s1:abort() = ok", "s1:wait(0s)", "s1:close(1s)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the replay lacks %q:\n%s", want, got)
		}
	}
}

// TestLuaScenarioErrors reports a script without scenario, and counts a
// scenario's own errors.
func TestLuaScenarioErrors(t *testing.T) {
	dir := t.TempDir()
	none := filepath.Join(dir, "none.lua")
	bad := filepath.Join(dir, "bad.lua")
	if err := os.WriteFile(none, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("function scenario(s) error('broken scenario') end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := check.LoadLuaScenario(none, io.Discard); err == nil || !strings.Contains(err.Error(), "scenario(s)") {
		t.Errorf("loading a script without scenario: %v", err)
	}
	ls, err := check.LoadLuaScenario(bad, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	rep := check.Check(context.Background(), ls.Scenario, check.Options{})
	if rep.ScenarioErrors != 1 || !strings.Contains(rep.ScenarioError, "broken scenario") {
		t.Errorf("want one scenario error about a broken scenario, got %d: %q", rep.ScenarioErrors, rep.ScenarioError)
	}
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

// TestInterruptibleStopsALoop cancels the search from inside a run of a
// Lua scenario that then loops for ever: the run stops, the search ends
// not exhausted, and the cut run is not counted as the scenario's error.
func TestInterruptibleStopsALoop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loop.lua")
	if err := os.WriteFile(path, []byte("function scenario(s) cancel() while true do end end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ls, err := check.LoadLuaScenario(path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ls.L.SetGlobal("cancel", ls.L.NewFunction(func(*lua.LState) int { cancel(); return 0 }))
	rep := check.Check(ctx, ls.Interruptible(ctx), check.Options{})
	if rep.Exhausted || rep.Schedules != 1 || rep.ScenarioErrors != 0 {
		t.Errorf("want one schedule, not exhausted, no scenario error:\n%s", rep.String())
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
