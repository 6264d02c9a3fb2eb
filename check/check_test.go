package check_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// smallBounds keep the built-in scenario's space small enough for a test,
// with the smallest exchange (smallest).
var smallBounds = check.Bounds{Faults: 1, Preemptions: 1}

// smallest is the built-in scenario with the smallest built-in exchange:
// one round and one credit.
var smallest = check.Exchange{Rounds: 1, Credits: 1}.Scenario(check.Builtin)

// TestBuiltinAcceptanceBoundsExhaustedClean is the checker's acceptance run:
// the built-in scenario with its default bounds (rounds and credits up to
// 2, one fault and two preemptions per run, two sessions, misuse on),
// explored to exhaustion with no violation and no run cut at the step
// bound.
//
// Under the race detector, which makes a search ten times as slow, it
// explores raceBounds: .ci/run runs it with the defaults whole in a step
// of its own, without the detector.
func TestBuiltinAcceptanceBoundsExhaustedClean(t *testing.T) {
	var opts check.Options
	want := check.Bounds{Faults: 1, Preemptions: 2, Steps: 200, Sessions: 2, Misuse: 1}
	scenario := check.Builtin
	if raceEnabled {
		opts.Bounds, scenario = raceBounds, smallest
		want = check.Bounds{Faults: 0, Preemptions: 1, Steps: 200, Sessions: 2, Misuse: 1}
	}
	rep := check.Check(context.Background(), scenario, opts)
	if rep.Bounds != want {
		t.Fatalf("the bounds are %+v, want %+v", rep.Bounds, want)
	}
	if !rep.OK() || !rep.Exhausted || rep.Truncated != 0 {
		t.Fatalf("want an exhausted space with no violation and no run at the step bound:\n%s", rep.String())
	}
	t.Logf("%d schedules, %d distinct states, %v", rep.Schedules, rep.States, rep.Elapsed)
}

// raceBounds are what the searches of the whole built-in scenario explore
// under the race detector, with the smallest exchange (smallest): no fault
// and one preemption, with the default sessions and misuse, so that the
// racing close and the shared sessions run under the detector in seconds.
var raceBounds = check.Bounds{Faults: -1, Preemptions: 1}

// TestBuiltinExhaustedClean explores the built-in scenario exhaustively
// under small bounds (raceBounds under the race detector; .ci/run runs it
// whole without) and requires no violation.
func TestBuiltinExhaustedClean(t *testing.T) {
	bounds := smallBounds
	if raceEnabled {
		bounds = raceBounds
	}
	rep := check.Check(context.Background(), smallest, check.Options{Bounds: bounds})
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
	rep := check.Check(ctx, smallest, check.Options{Bounds: smallBounds, ProgressEvery: 1, Progress: func(p check.Progress) {
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
	for _, s := range []string{"", "1.2.3", "x:1", "f1:1.x", "f1:999", "r1c1f1:1"} {
		if _, err := check.Replay(context.Background(), smallest, s, nil); err == nil {
			t.Errorf("Replay(%q) did not fail", s)
		}
	}
}

// TestReplayOfDefaultSchedule replays the schedule of first alternatives
// and finds the host operations of the first plan.
func TestReplayOfDefaultSchedule(t *testing.T) {
	r, err := check.Replay(context.Background(), smallest, "f1:", nil)
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
		rep := check.Check(context.Background(), smallest, check.Options{Bounds: smallBounds})
		schedules += rep.Schedules
	}
	b.ReportMetric(float64(schedules)/b.Elapsed().Seconds(), "schedules/s")
}

// TestBoundsSet sets each bound within its range, stores 0 faults or
// preemptions as none, and refuses values out of range and unknown names.
func TestBoundsSet(t *testing.T) {
	var b check.Bounds
	for _, name := range check.BoundNames() {
		if err := b.Set(name, 1); err != nil {
			t.Errorf("Set(%s, 1): %v", name, err)
		}
	}
	if b != (check.Bounds{Faults: 1, Preemptions: 1, Steps: 1, Sessions: 1, Misuse: 1}) {
		t.Errorf("after setting every bound to 1: %+v", b)
	}
	if err := b.Set("faults", 0); err != nil || b.Faults != -1 {
		t.Errorf("Set(faults, 0): %v, Faults %d, want -1 (none)", err, b.Faults)
	}
	if err := b.Set("preemptions", 0); err != nil || b.Preemptions != -1 {
		t.Errorf("Set(preemptions, 0): %v, Preemptions %d, want -1 (none)", err, b.Preemptions)
	}
	if err := b.Set("misuse", 0); err != nil || b.Misuse != -1 {
		t.Errorf("Set(misuse, 0): %v, Misuse %d, want -1 (off)", err, b.Misuse)
	}
	for _, c := range []struct {
		name string
		v    int
		want string
	}{
		{"faults", -1, "faults must be a whole number from 0 to 100, got -1"},
		{"steps", 2_000_000, "steps must be a whole number from 1 to 1000000, got 2000000"},
		{"sessions", 4, "sessions must be a whole number from 1 to 3, got 4"},
		{"sessions", 0, "sessions must be a whole number from 1 to 3, got 0"},
		{"misuse", 2, "misuse must be 0 (off) or 1 (on), got 2"},
		{"depth", 1, "depth is not a bound; the bounds are faults, preemptions, steps, sessions, misuse"},
		{"rounds", 1, "rounds is not a bound; the bounds are faults, preemptions, steps, sessions, misuse"},
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

// TestNondeterministicScenario runs scenarios that are not functions of
// their choices: the search stops at the first run whose replay of an
// earlier run's prefix meets another choice, and says where.
func TestNondeterministicScenario(t *testing.T) {
	for _, c := range []struct {
		name     string
		scenario func(runs int, h *check.Host)
		want     string
	}{
		{"the number of alternatives varies", func(runs int, h *check.Host) {
			h.Choose(2+runs%2, "a choice whose alternatives vary")
		}, "replaying the choices f1:1 of an earlier run, choice 1 had 2 alternatives (a host choice), where the earlier run had 3 (a host choice)"},
		{"the kind varies", func(runs int, h *check.Host) {
			if runs == 1 {
				h.Choose(2, "first")
				h.Choose(2, "second")
				return
			}
			cfg := exchange.Default()
			cfg.Rounds, cfg.Credits = 1, 1
			s, _ := h.NewSession(cfg)
			_ = s.SubmitGPU()
			_ = s.SubmitNPU()
			_ = s.Start()
			_, _ = s.Wait(time.Second)
		}, "choice 1 had 2 alternatives (when a release lands), where the earlier run had 2 (a host choice)"},
		{"the operations vary", func(runs int, h *check.Host) {
			h.Record(fmt.Sprintf("an operation that returned %d", runs), nil)
			h.Choose(2, "a choice after it")
		}, "replaying the choices f1:1 of an earlier run, the host's operations or their results before choice 1 differed from the earlier run's"},
		{"the scenario ends early", func(runs int, h *check.Host) {
			if runs == 1 {
				h.Choose(2, "first")
				h.Choose(2, "second")
			}
		}, "replaying the choices f1:0.1 of an earlier run, the scenario ended after 0 choices, where the earlier run went on to choice 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			runs := 0
			rep := check.Check(context.Background(), func(h *check.Host) { runs++; c.scenario(runs, h) }, check.Options{})
			if !strings.HasPrefix(rep.Nondeterministic, "scenario is not deterministic: ") || !strings.Contains(rep.Nondeterministic, c.want) {
				t.Errorf("Nondeterministic = %q, want it to say %q", rep.Nondeterministic, c.want)
			}
			if rep.Exhausted || rep.Schedules != 2 {
				t.Errorf("want the search stopped at the second run, not exhausted:\n%s", rep.String())
			}
			contains := "bounded space not exhausted (stopped: the scenario is not deterministic)"
			if !strings.Contains(rep.String(), contains) || !strings.Contains(rep.String(), rep.Nondeterministic) {
				t.Errorf("the report does not say it:\n%s", rep.String())
			}
		})
	}
}

// TestDeterministicScenariosPass runs the built-in scenario, whose runs are
// functions of their choices, and finds no nondeterminism.
func TestDeterministicScenariosPass(t *testing.T) {
	rep := check.Check(context.Background(), smallest, check.Options{Bounds: check.Bounds{Faults: -1, Preemptions: 1}})
	if rep.Nondeterministic != "" || !rep.Exhausted {
		t.Errorf("the built-in scenario: %s", rep.String())
	}
}

// TestParseReplayValidatesBounds refuses replay strings whose bounds are
// out of the ranges the bound flags take, and reads those in range.
func TestParseReplayValidatesBounds(t *testing.T) {
	for s, want := range map[string]string{
		"f-1:":                   `replay "f-1:": faults must be a whole number from 0 to 100, got -1; give the string a counterexample printed`,
		"f101:2":                 `faults must be a whole number from 0 to 100, got 101`,
		"f99999999999999999999:": `faults 99999999999999999999 is out of range`,
		"f1x:0":                  `does not begin with f<faults>`,
		"f+1:0":                  `does not begin with f<faults>`,
		"f1pabc:0":               `does not begin with f<faults>`,
		"r1c1f1:0":               `does not begin with f<faults>`,
	} {
		if _, _, _, err := check.ParseReplay(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseReplay(%q): %v, want %q", s, err, want)
		}
	}
	b, digest, values, err := check.ParseReplay("f0p0123abcd:5.0")
	if err != nil || b.Faults != -1 || digest != "0123abcd" || len(values) != 2 {
		t.Errorf("ParseReplay(f0p0123abcd:5.0) = %+v, %q, %v, %v", b, digest, values, err)
	}
}

// TestExchangeSet sets the built-in exchange's arguments within their
// ranges and refuses others; the bounds know neither.
func TestExchangeSet(t *testing.T) {
	var x check.Exchange
	for _, name := range check.ExchangeNames() {
		if err := x.Set(name, 3); err != nil {
			t.Errorf("Set(%s, 3): %v", name, err)
		}
	}
	if x != (check.Exchange{Rounds: 3, Credits: 3}) {
		t.Errorf("after setting both to 3: %+v", x)
	}
	for _, c := range []struct {
		name string
		v    int
		want string
	}{
		{"rounds", 0, "rounds must be a whole number from 1 to 1000000, got 0"},
		{"credits", 65, "credits must be a whole number from 1 to 64, got 65"},
		{"faults", 1, "faults is not an argument of the built-in exchange; its arguments are rounds, credits"},
	} {
		if err := x.Set(c.name, c.v); err == nil || err.Error() != c.want {
			t.Errorf("Set(%s, %d): %v, want %q", c.name, c.v, err, c.want)
		}
	}
	var b check.Bounds
	if err := b.Set("credits", 1); err == nil {
		t.Error("Bounds.Set(credits, 1) did not fail: credits are the built-in exchange's argument")
	}
}

// TestReplayRefusesAnotherPair: a search of a pair (Options.Pair) records
// the pair's digest in its replay strings, which replay on that pair and
// are refused, naming both, on the built-in exchange with other arguments
// or on a scenario that records no pair.
func TestReplayRefusesAnotherPair(t *testing.T) {
	one, two := check.Exchange{Rounds: 1, Credits: 1}, check.Exchange{Rounds: 2, Credits: 1}
	if one.Pair().Digest == two.Pair().Digest || one.Pair().Digest != (check.Exchange{Rounds: 1, Credits: 1}).Pair().Digest {
		t.Fatalf("the exchange's digests: %v, %v", one.Pair(), two.Pair())
	}
	if got, want := (check.Exchange{}).Pair().Name, "the built-in exchange, rounds <= 2, credits <= 2"; got != want {
		t.Errorf("the default exchange is named %q, want %q", got, want)
	}
	rep := check.Check(context.Background(), one.Scenario(forgedSecondDecision), check.Options{Bounds: check.Bounds{Faults: -1}, Pair: one.Pair()})
	if len(rep.Counterexamples) != 1 {
		t.Fatalf("want one counterexample:\n%s", rep.String())
	}
	replay := rep.Counterexamples[0].Replay
	if want := "f0p" + one.Pair().Digest + ":"; !strings.HasPrefix(replay, want) || !strings.Contains(rep.String(), "pair: the built-in exchange, rounds <= 1, credits <= 1 (digest "+one.Pair().Digest+")\n") {
		t.Fatalf("want the replay string to begin with %s and the report to name the pair:\n%s", want, rep.String())
	}
	if r, err := check.ReplayPair(context.Background(), one.Scenario(forgedSecondDecision), one.Pair(), replay, nil); err != nil || len(r.Violations) != 1 {
		t.Errorf("replayed on its pair: %v, %v; want the violation", r, err)
	}
	_, err := check.ReplayPair(context.Background(), two.Scenario(forgedSecondDecision), two.Pair(), replay, nil)
	if want := "was made by the programs whose digest is " + one.Pair().Digest + ", not by the built-in exchange, rounds <= 2, credits <= 1 (digest " + two.Pair().Digest + ")"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("replayed on another exchange: %v, want %q", err, want)
	}
	_, err = check.Replay(context.Background(), forgedSecondDecision, replay, nil)
	if want := "not by a scenario that records no pair"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("replayed on no pair: %v, want %q", err, want)
	}
}

// TestBuiltinWithHugeBounds explores the built-in scenario with an exchange
// of 896 million setups: the search starts at once, in little memory, and
// stops when its context ends; the setups replay by number, the first
// ones and the last.
func TestBuiltinWithHugeBounds(t *testing.T) {
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(context.Background())
	huge := check.Exchange{Rounds: 1_000_000, Credits: 64}.Scenario(check.Builtin)
	rep := check.Check(ctx, huge, check.Options{ProgressEvery: 1, Progress: func(p check.Progress) {
		if p.Schedules >= 20 {
			cancel()
		}
	}})
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if rep.Exhausted || rep.Schedules < 20 {
		t.Errorf("want a search of the huge exchange stopped after 20 schedules:\n%s", rep.String())
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 200<<20 {
		t.Errorf("20 schedules allocated %d MiB", grew>>20)
	}
	for replay, want := range map[string]string{
		"f1:5":         "host chooses the setup: no fault, rounds 1, credits 6",
		"f1:895999999": "host chooses the setup: fault memory.alloc 50%1*error(no memory), rounds 1000000, credits 64",
	} {
		r, err := check.Replay(context.Background(), huge, replay, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := stepTexts(r); !strings.Contains(got, want) {
			t.Errorf("replay %s:\n%s\nwant %q", replay, got, want)
		}
	}
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
		h.Fabric().Events().Subscribe(func(e *event.Event) {
			switch {
			case e.Kind == oracle.EvWait:
				cancel()
			case e.Kind == oracle.EvJoin && oracle.JoinResult(e.B) == oracle.JoinCancelled:
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

// TestMaxStates bounds the states a search remembers: past the bound it
// remembers no more and prunes less, so it runs more schedules, and finds
// what it would have found.
func TestMaxStates(t *testing.T) {
	bounds := check.Bounds{Faults: -1, Preemptions: 1}
	full := check.Check(context.Background(), smallest, check.Options{Bounds: bounds})
	most := full.States * 3 / 4
	capped := check.Check(context.Background(), smallest, check.Options{Bounds: bounds, MaxStates: most})
	if full.StatesFull || !capped.StatesFull || capped.States != most {
		t.Fatalf("uncapped: full %v, %d states; capped at %d: full %v, %d states", full.StatesFull, full.States, most, capped.StatesFull, capped.States)
	}
	if !capped.Exhausted || !capped.OK() || capped.Schedules <= full.Schedules {
		t.Errorf("capped: want exhausted, no violation and more schedules than %d:\n%s", full.Schedules, capped.String())
	}
	if !strings.Contains(capped.String(), fmt.Sprintf("the search remembered %d distinct states, its most, and no more after", most)) {
		t.Errorf("the report does not say it:\n%s", capped.String())
	}
}

// racingClose is a scenario of one session whose wait of 1 s a close
// joining for 1 s, in another host thread, races.
func racingClose(h *check.Host) {
	cfg := exchange.Default()
	cfg.Rounds, cfg.Credits = 1, 1
	s, err := h.NewSession(cfg)
	if err != nil {
		return
	}
	_, _ = s.SubmitGPU(), s.SubmitNPU()
	_ = s.Start()
	s.WaitRacingClose(time.Second, time.Second)
	h.ResetDevices()
}

// TestWaitRacingClose explores a close that races a wait from another host
// thread: no violation, and every place the close may begin is a choice,
// each a preemption, so that with none allowed the close begins only once
// the wait has returned. A replay in which it begins at the first step of
// the wait shows the wait ended busy and the close, joining for its own
// timeout, releasing the session.
func TestWaitRacingClose(t *testing.T) {
	rep := check.Check(context.Background(), racingClose, check.Options{Bounds: check.Bounds{Faults: -1, Preemptions: 1}})
	if !rep.OK() || !rep.Exhausted || rep.Nondeterministic != "" {
		t.Fatalf("want an exhausted, deterministic search with no violation:\n%s", rep.String())
	}
	none := check.Check(context.Background(), racingClose, check.Options{Bounds: check.Bounds{Faults: -1, Preemptions: -1}})
	if !none.OK() || none.Schedules >= rep.Schedules {
		t.Errorf("without preemptions: %d schedules, with one %d; want fewer", none.Schedules, rep.Schedules)
	}
	r, err := check.Replay(context.Background(), racingClose, "f0:0.1", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := stepTexts(r)
	for _, want := range []string{
		"host chooses whether s1:close(1s) begins in another thread: now",
		"s1:close(1s) begins in another thread = the wait is ended",
		"s1:wait(1s) = false, error: busy: wait: session 1 was closed during the wait",
		"s1:close(1s) = retired",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the replay lacks %q:\n%s", want, got)
		}
	}
	if len(r.Violations) != 0 {
		t.Errorf("violations %v", r.Violations)
	}
	r, err = check.Replay(context.Background(), racingClose, "f0:", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := stepTexts(r); !strings.Contains(got, "s1:wait(1s) = true, ok") || !strings.Contains(got, "s1:close(1s) = retired") || strings.Contains(got, "begins in another thread =") {
		t.Errorf("the schedule of first alternatives should close after the wait:\n%s", got)
	}
}

// TestReplayStringsCarrySessionsAndMisuse: a counterexample found with
// other sessions or misuse bounds names them in its replay string, which
// then replays with those bounds; strings without them take the defaults.
func TestReplayStringsCarrySessionsAndMisuse(t *testing.T) {
	for s, want := range map[string]check.Bounds{
		"f1:3":       {Faults: 1},
		"f1s1:3":     {Faults: 1, Sessions: 1},
		"f1m0:3":     {Faults: 1, Misuse: -1},
		"f0s3m1:3.1": {Faults: -1, Sessions: 3, Misuse: 1},
	} {
		b, _, _, err := check.ParseReplay(s)
		if err != nil || b != want {
			t.Errorf("ParseReplay(%q) = %+v, %v; want %+v", s, b, err, want)
		}
	}
	for _, s := range []string{"f1s0:", "f1s4:", "f1m2:", "f1m0s1:"} {
		if _, _, _, err := check.ParseReplay(s); err == nil {
			t.Errorf("ParseReplay(%q) did not fail", s)
		}
	}
	rep := check.Check(context.Background(), forgedSecondDecision, check.Options{Bounds: check.Bounds{Faults: -1, Sessions: 1, Misuse: -1}})
	if len(rep.Counterexamples) != 1 || !strings.HasPrefix(rep.Counterexamples[0].Replay, "f0s1m0:") {
		t.Fatalf("want one counterexample replayed by f0s1m0:...:\n%s", rep.String())
	}
}

// forgedSecondDecision breaks invariant 1 when the host chooses so, as an
// engine that decided twice would.
func forgedSecondDecision(h *check.Host) {
	cfg := exchange.Default()
	cfg.Rounds, cfg.Credits = 1, 1
	s, err := h.NewSession(cfg)
	if err != nil {
		return
	}
	_ = s.Abort()
	if h.ChooseAmong("a forgery", []string{"none", "a second decision"}) == 1 {
		h.Fabric().Events().Emit(event.HostActor, s.ID(), oracle.EvDecide, 2, 0, "")
	}
	s.Close(0)
	h.ResetDevices()
}

// TestReportCountsInWords: the report says "1 schedule", "1 distinct
// state" and "1 run" in the singular, and counts other than one in the
// plural.
func TestReportCountsInWords(t *testing.T) {
	one := check.Report{Schedules: 1, States: 1, StatesFull: true, ScenarioErrors: 1, ScenarioError: "boom", Exhausted: true}
	got := one.String()
	for _, want := range []string{"\n1 schedule, 1 distinct state, 0 pruned", "remembered 1 distinct state, its most", "failed in 1 run; the first: boom"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	two := check.Report{Schedules: 2, States: 0, ScenarioErrors: 2, ScenarioError: "boom", Exhausted: true}
	got = two.String()
	for _, want := range []string{"\n2 schedules, 0 distinct states, 0 pruned", "failed in 2 runs; the first: boom"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
}

// TestHostOpensAnyPrograms checks a scenario that makes its sessions of a
// pair it names itself (Host.Open), not of the exchange's configuration:
// the search runs them, the counterexample's steps name the pair, and a
// pair that cannot be prepared is the first error of a search that made no
// session.
func TestHostOpensAnyPrograms(t *testing.T) {
	cfg := exchange.Default()
	cfg.Rounds, cfg.Credits = 2, 1
	scenario := func(programs engine.Programs) check.Scenario {
		return func(h *check.Host) {
			s, err := h.Open(programs, "my pair")
			if err != nil {
				return
			}
			_ = s.SubmitGPU()
			_ = s.SubmitNPU()
			_ = s.Start()
			_, _ = s.Wait(time.Second)
			s.Close(time.Second)
		}
	}
	rep := check.Check(context.Background(), scenario(exchange.Programs(cfg)), check.Options{Bounds: check.Bounds{Faults: -1, Preemptions: 1}})
	if !rep.OK() || !rep.Exhausted || rep.Decided != rep.Schedules || rep.Retired != rep.Schedules {
		t.Fatalf("a session of the pair in every schedule, each retired:\n%s", rep.String())
	}
	r, err := check.Replay(context.Background(), scenario(exchange.Programs(cfg)), "f0:", nil)
	if err != nil || len(r.Steps) == 0 || r.Steps[0].Text != "s1 = session of my pair = ok" {
		t.Fatalf("the replay's first step is %v (%v), want the session of my pair", r.Steps, err)
	}
	refused := func(*devices.Buffer, *devices.Device, *devices.Device, uint64) (*devices.Prepared, *devices.Prepared, error) {
		return nil, nil, errors.New("the pair's buffers cannot be declared")
	}
	rep = check.Check(context.Background(), scenario(refused), check.Options{Bounds: check.Bounds{Faults: -1}})
	if rep.Made != 0 || !strings.Contains(rep.FirstError, "s1: the pair's buffers cannot be declared") {
		t.Fatalf("Made %d, FirstError %q, want none made and the pair's error", rep.Made, rep.FirstError)
	}
}
