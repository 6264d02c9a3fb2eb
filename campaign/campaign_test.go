package campaign_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/luacampaign"
)

// run runs cfg and returns its summary's JSON and text.
func run(t *testing.T, cfg campaign.Config) (*campaign.Summary, []byte) {
	t.Helper()
	s, err := campaign.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return s, append(b, s.Text()...)
}

// checkSameForWorkers runs cfg with 1, 2 and 4 workers and checks that the
// summaries are byte for byte the same; it returns the one-worker summary.
func checkSameForWorkers(t *testing.T, cfg campaign.Config) *campaign.Summary {
	t.Helper()
	cfg.Workers = 1
	want, wantBytes := run(t, cfg)
	for _, w := range []int{2, 4} {
		cfg.Workers = w
		if _, got := run(t, cfg); !bytes.Equal(got, wantBytes) {
			t.Errorf("workers %d: summary differs from one worker's:\n%s\nwant:\n%s", w, got, wantBytes)
		}
	}
	return want
}

// session is a Go trial shaped like a session's: a random number of rounds,
// retired or quarantined, with a latency when it retired; everything
// follows from the seed.
func session(_ context.Context, t *campaign.Trial) error {
	r := rand.New(rand.NewPCG(t.Seed, 0))
	rounds := 1 + r.IntN(4)
	if err := t.Record("rounds", float64(rounds)); err != nil {
		return err
	}
	if r.IntN(3) == 0 {
		t.Outcome = "quarantined"
		return nil
	}
	t.Outcome = "retired"
	return t.Record("latency", float64(1+r.IntN(1000))*1e-6)
}

// sessions is a campaign of session.
var sessions = campaign.Func("session", session)

// failing is a Go trial that fails on purpose: every third fails itself,
// every fifth returns an error.
var failing = campaign.Func("failing", func(_ context.Context, t *campaign.Trial) error {
	if err := t.Record("index", float64(t.Index)); err != nil {
		return err
	}
	if t.Index%5 == 4 {
		return fmt.Errorf("boom at %d", t.Index)
	}
	if t.Index%3 == 2 {
		t.Failed, t.Message = true, "unlucky "+strconv.FormatUint(t.Seed, 10)
	}
	t.Outcome = "done"
	return nil
})

// kinds are a campaign of each kind of trial: the built-in trial, Go trials
// and Lua trial scripts, each correct and failing.
func kinds() map[string]campaign.Runners {
	return map[string]campaign.Runners{
		"built-in":    nil,
		"Go":          sessions,
		"failing Go":  failing,
		"Lua":         luacampaign.Script("testdata/trial.lua", luacampaign.Options{}),
		"failing Lua": luacampaign.Script("testdata/failing.lua", luacampaign.Options{}),
	}
}

func TestBuiltinSameForAnyWorkers(t *testing.T) {
	s := checkSameForWorkers(t, campaign.Config{Trials: 60, Seed: 1000})
	if s.Trials != 60 || s.Outcomes["ok"] == 0 || len(s.Sessions) == 0 || len(s.Fired) == 0 {
		t.Errorf("summary counts nothing useful:\n%s", s.Text())
	}
	if m := s.Measurements["elapsed"]; m == nil || m.Count != 60 {
		t.Errorf("elapsed not recorded once per trial: %+v", m)
	}
}

// TestGoTrialSameForAnyWorkers runs a campaign of a trial written in Go: its
// summary does not depend on the workers, names the trial, and holds its
// outcomes and measurements.
func TestGoTrialSameForAnyWorkers(t *testing.T) {
	s := checkSameForWorkers(t, campaign.Config{Trials: 80, Seed: 7, Runners: sessions})
	if s.Func != "session" || s.Script != "" || s.Violations != 0 || len(s.Failures) != 0 {
		t.Errorf("summary of a correct Go trial:\n%s", s.Text())
	}
	if s.Outcomes["retired"] == 0 || s.Outcomes["quarantined"] == 0 || s.Outcomes["retired"]+s.Outcomes["quarantined"] != 80 {
		t.Errorf("want retired and quarantined outcomes only: %v", s.Outcomes)
	}
	lat := s.Measurements["latency"]
	if lat == nil || lat.Whole || lat.Min <= 0 || lat.Quantile(99) > lat.Max || lat.Count != int64(s.Outcomes["retired"]) {
		t.Errorf("latency: %+v", lat)
	}
	if r := s.Measurements["rounds"]; r == nil || !r.Whole || r.Count != 80 || r.Min != 1 || r.Max != 4 {
		t.Errorf("rounds: %+v", r)
	}
	if text := s.Text(); !strings.HasPrefix(text, "campaign: 80 trials of session, seeds 7..86\n") || !strings.Contains(text, "latency") {
		t.Errorf("text:\n%s", text)
	}
}

// TestScriptSameForAnyWorkers runs a campaign of a Lua trial script: its
// summary does not depend on the workers, and holds the outcomes and
// measurements the script gives.
func TestScriptSameForAnyWorkers(t *testing.T) {
	s := checkSameForWorkers(t, campaign.Config{Trials: 80, Seed: 7, Runners: kinds()["Lua"]})
	if s.Script != "testdata/trial.lua" || s.Violations != 0 || len(s.Failures) != 0 {
		t.Errorf("failures in a correct trial script:\n%s", s.Text())
	}
	if s.Outcomes["retired"] == 0 || s.Outcomes["quarantined"] == 0 {
		t.Errorf("want both retired and quarantined outcomes:\n%s", s.Text())
	}
	if r := s.Measurements["rounds"]; r == nil || !r.Whole || r.Count < 40 || r.Min != 1 || r.Max != 4 {
		t.Errorf("rounds: %+v", r)
	}
}

func TestShardsMergeToSingleRun(t *testing.T) {
	for kind, runners := range kinds() {
		cfg := campaign.Config{Trials: 41, Seed: 5, Runners: runners, Workers: 2}
		_, want := run(t, cfg)
		var merged *campaign.Summary = &campaign.Summary{}
		for k := range 4 {
			cfg.Shard, cfg.Shards = k, 4
			s, _ := run(t, cfg)
			var err error
			if merged, err = campaign.Merge(merged, s); err != nil {
				t.Fatal(err)
			}
		}
		b, _ := merged.JSON()
		if got := append(b, merged.Text()...); !bytes.Equal(got, want) {
			t.Errorf("%s: four shards merged:\n%s\nwant the single run's:\n%s", kind, got, want)
		}
	}
}

func TestMergeRefusesOverlapAndOtherCampaigns(t *testing.T) {
	a, _ := run(t, campaign.Config{Trials: 4, Shards: 2, Shard: 0})
	b, _ := run(t, campaign.Config{Trials: 4, Shards: 2, Shard: 0})
	if _, err := campaign.Merge(a, b); err == nil || !strings.Contains(err.Error(), "shard 0") {
		t.Errorf("merging a shard with itself: err = %v", err)
	}
	c, _ := run(t, campaign.Config{Trials: 4, Seed: 2, Shards: 2, Shard: 1})
	if _, err := campaign.Merge(a, c); err == nil || !strings.Contains(err.Error(), "different campaigns") {
		t.Errorf("merging different seeds: err = %v", err)
	}
	g, _ := run(t, campaign.Config{Trials: 4, Shards: 2, Shard: 1, Runners: sessions})
	if _, err := campaign.Merge(a, g); err == nil || !strings.Contains(err.Error(), `their Go trials differ ("" and "session")`) {
		t.Errorf("merging built-in trials with a Go trial's: err = %v", err)
	}
	h, _ := run(t, campaign.Config{Trials: 4, Shards: 2, Shard: 0, Runners: campaign.Func("other", session)})
	if _, err := campaign.Merge(h, g); err == nil || !strings.Contains(err.Error(), "Go trials differ") {
		t.Errorf("merging two Go trials: err = %v", err)
	}
}

func TestMergeWithEmptyIsItself(t *testing.T) {
	for kind, runners := range kinds() {
		s, want := run(t, campaign.Config{Trials: 10, Runners: runners})
		for _, m := range []func() (*campaign.Summary, error){
			func() (*campaign.Summary, error) { return campaign.Merge(s, &campaign.Summary{}) },
			func() (*campaign.Summary, error) { return campaign.Merge(&campaign.Summary{}, s) },
		} {
			got, err := m()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := got.JSON()
			if b = append(b, got.Text()...); !bytes.Equal(b, want) {
				t.Errorf("%s: merged with an empty summary:\n%s\nwant:\n%s", kind, b, want)
			}
		}
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	for _, runners := range kinds() {
		s, _ := run(t, campaign.Config{Trials: 20, Runners: runners, Shards: 3, Shard: 1})
		want, _ := s.JSON()
		d, err := campaign.Decode(bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := d.JSON(); !bytes.Equal(got, want) {
			t.Errorf("decoded summary:\n%s\nwant:\n%s", got, want)
		}
	}
	if _, err := campaign.Decode(strings.NewReader(`{"seed": 1}`)); err == nil {
		t.Error("decoded a summary of no campaign")
	}
}

// TestFailuresAndReplay checks the failures of a Go trial and of a script
// that fail alike (an error, a failure they found themselves), each listed
// by seed, the script's with the command that replays it (a Go trial has
// no command line), and the replay of one seed, with the report each gives
// of an error.
func TestFailuresAndReplay(t *testing.T) {
	for _, c := range []struct {
		kind, boom, replay, report string
	}{
		{"failing Go", "boom at 4", "", "boom at 4\nmeasurements:\n  index: 4"},
		{"failing Lua", "testdata/failing.lua:4: boom at 4", "residentlua campaign testdata/failing.lua --seed 100 --trials 10 --replay ", "boom at 4\nstack traceback:\n"},
	} {
		runners := kinds()[c.kind]
		s, _ := run(t, campaign.Config{Trials: 10, Seed: 100, Runners: runners, Workers: 3})
		// index 2, 5, 8 fail themselves; 4 and 9 raise or return an error.
		want := map[uint64]string{102: "failed", 104: "error", 105: "failed", 108: "failed", 109: "error"}
		if len(s.Failures) != len(want) {
			t.Fatalf("%s: failures %+v, want seeds %v", c.kind, s.Failures, want)
		}
		for i, f := range s.Failures {
			if i > 0 && f.Seed <= s.Failures[i-1].Seed {
				t.Errorf("%s: failures not sorted by seed: %+v", c.kind, s.Failures)
			}
			replay := ""
			if c.replay != "" {
				replay = c.replay + strconv.FormatUint(f.Seed, 10)
			}
			if want[f.Seed] != f.Outcome || f.Replay != replay || strings.Contains(s.Text(), "  replay: ") != (replay != "") {
				t.Errorf("%s: seed %d: outcome %q and replay %q, want %q and %q in the text", c.kind, f.Seed, f.Outcome, f.Replay, want[f.Seed], replay)
			}
		}
		if f := s.Failures[1]; !strings.HasSuffix(f.Message, c.boom) || !strings.Contains(s.Text(), "FAIL seed 104 (error): "+f.Message+"\n") {
			t.Errorf("%s: error message %q, want %q", c.kind, f.Message, c.boom)
		}
		if f := s.Failures[0]; f.Message != "unlucky 102" {
			t.Errorf("%s: a failure the trial found: message %q", c.kind, f.Message)
		}
		if s.Outcomes["done"] != 5 || s.Outcomes["error"] != 2 || s.Outcomes["failed"] != 3 {
			t.Errorf("%s: outcomes %v", c.kind, s.Outcomes)
		}
		tr, err := campaign.Replay(context.Background(), campaign.Config{Seed: 100, Trials: 10, Runners: runners}, 104)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Index != 4 || tr.Outcome != "error" || !strings.Contains(tr.Report, c.report) {
			t.Errorf("%s: replay: %+v, want a report with %q", c.kind, tr, c.report)
		}
		if _, err := campaign.Replay(context.Background(), campaign.Config{Seed: 100, Trials: 10, Runners: runners}, 110); err == nil ||
			!strings.Contains(err.Error(), "replay seed 110 is not a trial of the campaign, whose seeds are 100..109") {
			t.Errorf("%s: a replay of a seed beyond the campaign: %v", c.kind, err)
		}
	}
}

// TestGoTrialVerdicts checks what a Go trial's t says once it returns:
// violations fail it, an outcome the campaign keeps or a bad name is an
// error, and a measurement out of range is refused.
func TestGoTrialVerdicts(t *testing.T) {
	for _, c := range []struct {
		trial            func(context.Context, *campaign.Trial) error
		outcome, message string
	}{
		{func(_ context.Context, t *campaign.Trial) error { t.Violations = 2; return nil }, "violation", "the trial found 2 violations"},
		{func(_ context.Context, t *campaign.Trial) error {
			t.Violations, t.Message = 1, "invariant 3"
			return nil
		}, "violation", "invariant 3"},
		{func(_ context.Context, t *campaign.Trial) error { t.Outcome = "timeout"; return nil }, "error", `the trial's outcome is "timeout", one the campaign keeps for its own verdicts (error, violation, failed, timeout, interrupted)`},
		{func(_ context.Context, t *campaign.Trial) error { t.Outcome = "\xff"; return nil }, "error", `the trial's outcome "\xff" is not valid UTF-8`},
		{func(_ context.Context, t *campaign.Trial) error { return t.Record("x", -1) }, "error", `measurement "x": -1 is not a value from 0 to 1e+09`},
		{func(_ context.Context, t *campaign.Trial) error { return t.Record("", 1) }, "error", "a measurement needs a name"},
		{func(_ context.Context, t *campaign.Trial) error { return t.Record(strings.Repeat("y", 70), 1) }, "error", "is 70 bytes long"},
		{func(_ context.Context, t *campaign.Trial) error { t.Outcome = ""; return nil }, "ok", ""},
	} {
		s, _ := run(t, campaign.Config{Trials: 1, Runners: campaign.Func("verdict", c.trial)})
		if s.Outcomes[c.outcome] != 1 || (c.message != "") != (len(s.Failures) == 1) ||
			c.message != "" && !strings.Contains(s.Failures[0].Message, c.message) {
			t.Errorf("want outcome %q and message %q: %v, %+v", c.outcome, c.message, s.Outcomes, s.Failures)
		}
	}
	if _, err := campaign.Run(context.Background(), campaign.Config{Trials: 1, Runners: campaign.Func("", session)}); err == nil || !strings.Contains(err.Error(), "a Go trial needs a name") {
		t.Errorf("a Go trial without a name: %v", err)
	}
}

// TestRunnersThatCannotBeMade checks that no trial runs unless every
// worker's runner was made, and that the error is campaign.Run's.
func TestRunnersThatCannotBeMade(t *testing.T) {
	var made, trials atomic.Int64
	r := brokenRunners{made: &made, trials: &trials, failAt: 3}
	if _, err := campaign.Run(context.Background(), campaign.Config{Trials: 100, Workers: 4, Runners: r}); err == nil || err.Error() != "the third runner fails" {
		t.Errorf("Run: %v", err)
	}
	if made.Load() != 4 || trials.Load() != 0 {
		t.Errorf("%d runners made, %d trials run; want 4 and none", made.Load(), trials.Load())
	}
	if _, err := campaign.Run(context.Background(), campaign.Config{Trials: 1, Runners: badDescription{}}); err == nil || !strings.Contains(err.Error(), "describe their trials wrongly: both a script") {
		t.Errorf("a description of both a script and a Go trial: %v", err)
	}
}

// brokenRunners counts the runners it makes, the failAt-th failing, and
// the trials its runners run.
type brokenRunners struct {
	made, trials *atomic.Int64
	failAt       int64
}

func (b brokenRunners) NewRunner(ctx context.Context, seed uint64) (campaign.Runner, error) {
	if b.made.Add(1) == b.failAt {
		return nil, errors.New("the third runner fails")
	}
	counting := campaign.Func("counting", func(context.Context, *campaign.Trial) error { b.trials.Add(1); return nil })
	return counting.NewRunner(ctx, seed)
}

func (brokenRunners) Describe(*campaign.Summary) error { return nil }

// badDescription runs Go trials but names a script too.
type badDescription struct{}

func (badDescription) NewRunner(ctx context.Context, seed uint64) (campaign.Runner, error) {
	return sessions.NewRunner(ctx, seed)
}

func (badDescription) Describe(s *campaign.Summary) error {
	s.Func, s.Script = "x", "x.lua"
	return nil
}

func TestCancelStopsAfterTrialsInFlight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var seen []int
	s, err := campaign.Run(ctx, campaign.Config{Trials: 1000, Workers: 2, OnTrial: func(tr campaign.Trial) {
		seen = append(seen, tr.Index)
		if tr.Index == 9 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Stopped() || s.Trials < 10 || s.Trials > 500 || len(seen) != s.Trials {
		t.Fatalf("stopped=%v after %d trials (%d seen)", s.Stopped(), s.Trials, len(seen))
	}
	for i, idx := range seen {
		if idx != i {
			t.Fatalf("trials not the first ones in order: %v", seen)
		}
	}
	if want := "stopped after " + strconv.Itoa(s.Trials) + " of 1000 trials\n"; !strings.Contains(s.Text(), want) {
		t.Errorf("no %q in:\n%s", want, s.Text())
	}
}

// TestSameWithAndWithoutOnTrial checks that the summary does not depend on
// whether the trials are also streamed to OnTrial, and that the stream
// holds every trial in index order with its measurements.
func TestSameWithAndWithoutOnTrial(t *testing.T) {
	for kind, runners := range kinds() {
		cfg := campaign.Config{Trials: 50, Seed: 3, Runners: runners, Workers: 3}
		_, want := run(t, cfg)
		var seen []campaign.Trial
		cfg.OnTrial = func(tr campaign.Trial) { seen = append(seen, tr) }
		if _, got := run(t, cfg); !bytes.Equal(got, want) {
			t.Errorf("%s: with OnTrial:\n%s\nwant the summary without:\n%s", kind, got, want)
		}
		records := 0
		for i, tr := range seen {
			if tr.Index != i || tr.Seed != 3+uint64(i) {
				t.Fatalf("%s: trial %d of the stream is index %d, seed %d", kind, i, tr.Index, tr.Seed)
			}
			for _, vs := range tr.Records {
				records += len(vs)
			}
		}
		if len(seen) != 50 || records == 0 {
			t.Errorf("%s: %d trials streamed, %d records", kind, len(seen), records)
		}
	}
}

func TestProgressCountsTrialsAndFailures(t *testing.T) {
	var p campaign.Progress
	s, _ := run(t, campaign.Config{Trials: 10, Seed: 100, Runners: failing, Workers: 3, Progress: &p})
	if trials, failures := p.Counts(); trials != 10 || failures != s.Failed() || failures == 0 {
		t.Errorf("progress counts %d trials, %d failures; the summary %d, %d", trials, failures, s.Trials, s.Failed())
	}
}

// TestTinyMeasurementsPrintShort checks that a measurement far below a
// nanosecond prints as a short number, so the table stays narrow.
func TestTinyMeasurementsPrintShort(t *testing.T) {
	s, _ := run(t, campaign.Config{Trials: 2, Workers: 1, Seed: 1, Runners: campaign.Func("tiny", func(ctx context.Context, tr *campaign.Trial) error {
		return tr.Record("tiny", 1e-300)
	})})
	text := s.Text()
	if !strings.Contains(text, "1e-291ns") {
		t.Errorf("the table does not show 1e-300 s as 1e-291ns:\n%s", text)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "  ") && len(line) > 120 {
			t.Errorf("a table line is %d columns wide: %q", len(line), line[:120])
		}
	}
}
