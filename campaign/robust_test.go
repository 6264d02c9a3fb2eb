package campaign_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/luacampaign"
)

// blockAt is a Go trial that returns "fine" but for the trial of index,
// which waits until ctx ends or release is closed.
func blockAt(index int, release <-chan struct{}) campaign.Runners {
	return campaign.Func("block", func(ctx context.Context, t *campaign.Trial) error {
		if t.Index == index {
			select {
			case <-ctx.Done():
				return context.Cause(ctx)
			case <-release:
			}
		}
		t.Outcome = "fine"
		return nil
	})
}

// hangs are campaigns of trials that return "fine" but the one of index
// 1, which does not end until its context does: a Go trial that waits on
// it, and Lua trials that loop, spin on the clock, or raise an error whose
// __tostring loops.
func hangs() map[string]campaign.Runners {
	lua := func(name string) campaign.Runners {
		return luacampaign.Script("testdata/hang_"+name+".lua", luacampaign.Options{})
	}
	return map[string]campaign.Runners{"Go": blockAt(1, nil), "Lua loop": lua("loop"), "Lua slow": lua("slow"), "Lua __tostring": lua("tostring")}
}

// TestTrialTimeout checks that a trial that does not end in its time limit
// is stopped and recorded as a "timeout" failure while the others run, and
// that its replay stops it too.
func TestTrialTimeout(t *testing.T) {
	for kind, hang := range hangs() {
		s, _ := run(t, campaign.Config{Trials: 6, Workers: 2, Seed: 10, Runners: hang, TrialTimeout: 300 * time.Millisecond})
		if s.Outcomes["fine"] != 5 || s.Outcomes[campaign.OutcomeTimeout] != 1 || len(s.Failures) != 1 || s.Stopped() {
			t.Errorf("%s: %v, failures %+v", kind, s.Outcomes, s.Failures)
			continue
		}
		if f := s.Failures[0]; f.Seed != 11 || f.Outcome != campaign.OutcomeTimeout || !strings.Contains(f.Message, "time limit of 300ms") ||
			(s.Script != "") != strings.Contains(f.Replay, "--replay 11") {
			t.Errorf("%s: failure %+v", kind, f)
		}
		// A second of wall time: loading a script on a loaded machine under
		// the race detector takes a good part of 100ms, which a limit must
		// leave to the trial.
		tr, err := campaign.Replay(context.Background(), campaign.Config{Trials: 6, Seed: 10, Runners: hang, TrialTimeout: time.Second}, 11)
		if err != nil || tr.Outcome != campaign.OutcomeTimeout || !strings.HasPrefix(tr.Report, tr.Message+"\n") {
			t.Errorf("%s: replay of the trial that runs past its limit: %+v, %v", kind, tr, err)
		}
	}
}

// TestCancelInterruptsTrialsInFlight checks that cancelling the run stops
// a trial that would never end, which is recorded as "interrupted", and
// that the trials that finished are all in the summary.
func TestCancelInterruptsTrialsInFlight(t *testing.T) {
	for kind, hang := range hangs() {
		ctx, cancel := context.WithCancel(context.Background())
		var p campaign.Progress
		go func() {
			for n, _ := p.Counts(); n < 49; n, _ = p.Counts() {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
		}()
		var streamed []campaign.Trial
		s, err := campaign.Run(ctx, campaign.Config{Trials: 50, Workers: 2, Runners: hang, Progress: &p, TrialTimeout: -1,
			OnTrial: func(tr campaign.Trial) { streamed = append(streamed, tr) }})
		if err != nil {
			t.Fatal(err)
		}
		if s.Trials != 50 || s.Outcomes["fine"] != 49 || s.Interrupted() != 1 || !s.Stopped() || len(s.Failures) != 0 {
			t.Fatalf("%s: %d trials, outcomes %v, failures %+v", kind, s.Trials, s.Outcomes, s.Failures)
		}
		if len(streamed) != 50 || streamed[1].Outcome != campaign.OutcomeInterrupted || !strings.Contains(streamed[1].Message, "stopped") {
			t.Errorf("%s: %d trials streamed; the second %+v", kind, len(streamed), streamed[1])
		}
		if !strings.Contains(s.Text(), "stopped after 49 of 50 trials; 1 trial interrupted\n") {
			t.Errorf("%s: the text does not say it stopped:\n%s", kind, s.Text())
		}
	}
}

// slowRunners are runners whose making waits until ctx ends.
type slowRunners struct{}

func (slowRunners) NewRunner(ctx context.Context, _ uint64) (campaign.Runner, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (slowRunners) Describe(*campaign.Summary) error { return nil }

// TestRunnerMadeUnderTheTimeLimit checks that making a runner is bounded
// as a trial is: its error says it ran past the limit.
func TestRunnerMadeUnderTheTimeLimit(t *testing.T) {
	_, err := campaign.Run(context.Background(), campaign.Config{Trials: 2, Workers: 2, Runners: slowRunners{}, TrialTimeout: 50 * time.Millisecond})
	if err == nil || err.Error() != "the trials' runner (a script's top level) ran past the time limit of 50ms of wall time (--trial-timeout) before any trial ran, and was stopped: a script's top level should only define things; or give a longer --trial-timeout" {
		t.Errorf("a runner that takes too long to make: %v", err)
	}
}

// TestMeasurementNamesCapped checks that a run records at most
// MaxMeasurements names: the trial that records one more fails with a
// clear error, and the run stops, saying why.
func TestMeasurementNamesCapped(t *testing.T) {
	s, _ := run(t, campaign.Config{Trials: 3000, Workers: 2, MaxMeasurements: 30, Runners: campaign.Func("names", func(_ context.Context, t *campaign.Trial) error {
		return t.Record(fmt.Sprint("m", t.Index), 1)
	})})
	if !s.Stopped() || !strings.Contains(s.StopReason, `t.record: a campaign records at most 30 measurement names, and "m`) || len(s.Measurements) > 30 {
		t.Fatalf("%d names, stopped=%v (%q)", len(s.Measurements), s.Stopped(), s.StopReason)
	}
}

// TestStateKeptBetweenTrialsIsNoticed checks that a run with several
// workers warns when trials run again on fresh runners end otherwise, and
// that a trial without such state gets no warning.
func TestStateKeptBetweenTrialsIsNoticed(t *testing.T) {
	var mu sync.Mutex
	seen := map[uint64]bool{}
	remembering := campaign.Func("remembering", func(_ context.Context, t *campaign.Trial) error {
		mu.Lock()
		defer mu.Unlock()
		if t.Outcome = "first"; seen[t.Seed] {
			t.Outcome = "again"
		}
		seen[t.Seed] = true
		return nil
	})
	s, _ := run(t, campaign.Config{Trials: 40, Workers: 2, Runners: remembering})
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], `seed 38 returned "first", then "again"`) ||
		!strings.Contains(s.Warnings[0], "each on a fresh runner") || !strings.Contains(s.Warnings[0], "keep a trial's state in the function's locals") {
		t.Errorf("warnings %q", s.Warnings)
	}
	if s, _ := run(t, campaign.Config{Trials: 40, Workers: 2, Runners: sessions}); len(s.Warnings) != 0 {
		t.Errorf("warnings for a trial without state: %q", s.Warnings)
	}
}

// TestBackPressure checks that while one trial holds up the in-order
// stream, the workers stop after a bounded number of trials rather than
// keep every later one in memory.
func TestBackPressure(t *testing.T) {
	release := make(chan struct{})
	var p campaign.Progress
	result := make(chan *campaign.Summary)
	go func() {
		s, _ := campaign.Run(context.Background(), campaign.Config{Trials: 20000, Workers: 2, Runners: blockAt(0, release), Progress: &p, TrialTimeout: -1,
			OnTrial: func(campaign.Trial) {}})
		result <- s
	}()
	// Wait until the count stops growing while trial 0 runs.
	last := -1
	for n, _ := p.Counts(); n != last; n, _ = p.Counts() {
		last = n
		time.Sleep(300 * time.Millisecond)
	}
	if limit := campaign.MaxPending(2); last > limit || last < 10 {
		t.Errorf("%d trials finished while the first held the stream; want a few, at most %d", last, limit)
	}
	close(release)
	if s := <-result; s.Trials != 20000 || s.Outcomes["fine"] != 20000 {
		t.Errorf("the run did not finish once the first trial returned: %d trials, %v", s.Trials, s.Outcomes)
	}
}

// TestLongMessagesAreBounded checks that a campaign keeps at most
// MaxMessage bytes of a trial's message, saying how long it was, whether
// the trial returned it as an error or failed with it, and that a replay
// keeps it whole.
func TestLongMessagesAreBounded(t *testing.T) {
	long := strings.Repeat("é", 300_000) // 600,000 bytes, cut at a character's start
	runners := campaign.Func("long", func(ctx context.Context, tr *campaign.Trial) error {
		if tr.Index%2 == 0 {
			return fmt.Errorf("boom %s", long)
		}
		tr.Failed, tr.Message = true, "failed "+long
		return nil
	})
	var streamed []campaign.Trial
	s, _ := run(t, campaign.Config{Trials: 4, Workers: 2, Seed: 1, Runners: runners, OnTrial: func(tr campaign.Trial) { streamed = append(streamed, tr) }})
	if len(s.Failures) != 4 || len(streamed) != 4 {
		t.Fatalf("%d failures, %d streamed trials, want 4 of each", len(s.Failures), len(streamed))
	}
	for i, f := range s.Failures {
		whole := "boom " + long
		if f.Seed%2 == 0 { // index odd
			whole = "failed " + long
		}
		for what, msg := range map[string]string{"summary": f.Message, "streamed": streamed[i].Message} {
			head, tail, ok := strings.Cut(msg, "\n... (cut to ")
			if !ok || len(head) > campaign.MaxMessage || len(head) < campaign.MaxMessage-1 || !strings.HasPrefix(whole, head) ||
				tail != fmt.Sprintf("%d of its %d bytes; the trial's replay prints it whole)", len(head), len(whole)) {
				t.Errorf("%s message of seed %d (%d bytes) is not the message cut with its length: ...%q", what, f.Seed, len(msg), msg[max(0, len(msg)-120):])
			}
		}
	}
	tr, err := campaign.Replay(context.Background(), campaign.Config{Trials: 4, Seed: 1, Runners: runners}, 1)
	if err != nil || tr.Message != "boom "+long || !strings.HasPrefix(tr.Report, tr.Message) {
		t.Errorf("replay kept %d bytes of the message, %v; want the %d bytes whole", len(tr.Message), err, len("boom "+long))
	}
}
