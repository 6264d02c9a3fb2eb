package luacampaign

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/devices"
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

func TestScriptSameForAnyWorkers(t *testing.T) {
	s := checkSameForWorkers(t, campaign.Config{Trials: 80, Seed: 7, Runners: Script("../campaign/testdata/trial.lua", Options{})})
	if s.Violations != 0 || len(s.Failures) != 0 {
		t.Errorf("failures in a correct trial script:\n%s", s.Text())
	}
	if s.Outcomes["retired"] == 0 || s.Outcomes["quarantined"] == 0 {
		t.Errorf("want both retired and quarantined outcomes:\n%s", s.Text())
	}
	lat := s.Measurements["latency"]
	if lat == nil || lat.Whole || lat.Min <= 0 || lat.Quantile(99) > lat.Max {
		t.Errorf("latency: %+v", lat)
	}
	if r := s.Measurements["rounds"]; r == nil || !r.Whole || r.Count < 40 || r.Min != 1 || r.Max != 4 {
		t.Errorf("rounds: %+v", r)
	}
	if !strings.Contains(s.Text(), "latency") {
		t.Errorf("no latency row in:\n%s", s.Text())
	}
}

func TestShardsMergeToSingleRun(t *testing.T) {
	for _, script := range []string{"../campaign/testdata/trial.lua", "../campaign/testdata/failing.lua"} {
		cfg := campaign.Config{Trials: 41, Seed: 5, Runners: Script(script, Options{}), Workers: 2}
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
			t.Errorf("script %q: four shards merged:\n%s\nwant the single run's:\n%s", script, got, want)
		}
	}
}

func TestMergeWithEmptyIsItself(t *testing.T) {
	s, want := run(t, campaign.Config{Trials: 10, Runners: Script("../campaign/testdata/failing.lua", Options{})})
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
			t.Errorf("merged with an empty summary:\n%s\nwant:\n%s", b, want)
		}
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	s, _ := run(t, campaign.Config{Trials: 20, Runners: Script("../campaign/testdata/trial.lua", Options{}), Shards: 3, Shard: 1})
	want, _ := s.JSON()
	d, err := campaign.Decode(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := d.JSON(); !bytes.Equal(got, want) {
		t.Errorf("decoded summary:\n%s\nwant:\n%s", got, want)
	}
	if _, err := campaign.Decode(strings.NewReader(`{"seed": 1}`)); err == nil {
		t.Error("decoded a summary of no campaign")
	}
}

func TestFailingTrialsAndReplay(t *testing.T) {
	s, _ := run(t, campaign.Config{Trials: 10, Seed: 100, Runners: Script("../campaign/testdata/failing.lua", Options{}), Workers: 3})
	// index 2, 5, 8 call t.fail; 4 and 9 raise.
	want := map[uint64]string{102: "failed", 104: "error", 105: "failed", 108: "failed", 109: "error"}
	if len(s.Failures) != len(want) {
		t.Fatalf("failures %+v, want seeds %v", s.Failures, want)
	}
	for i, f := range s.Failures {
		if i > 0 && f.Seed <= s.Failures[i-1].Seed {
			t.Errorf("failures not sorted by seed: %+v", s.Failures)
		}
		if want[f.Seed] != f.Outcome {
			t.Errorf("seed %d: outcome %q, want %q", f.Seed, f.Outcome, want[f.Seed])
		}
		cmd := "residentlua campaign ../campaign/testdata/failing.lua --seed 100 --trials 10 --replay " + strconv.FormatUint(f.Seed, 10)
		if f.Replay != cmd || !strings.Contains(s.Text(), "  replay: "+cmd+"\n") {
			t.Errorf("seed %d: replay %q, want %q in the text", f.Seed, f.Replay, cmd)
		}
	}
	if f := s.Failures[1]; !strings.Contains(f.Message, "failing.lua:4: boom at 4") {
		t.Errorf("error message %q", f.Message)
	}
	if s.Outcomes["done"] != 5 || s.Outcomes["error"] != 2 || s.Outcomes["failed"] != 3 {
		t.Errorf("outcomes %v", s.Outcomes)
	}
	tr, err := campaign.Replay(context.Background(), campaign.Config{Seed: 100, Trials: 10, Runners: Script("../campaign/testdata/failing.lua", Options{})}, 104)
	if err != nil {
		t.Fatal(err)
	}
	// A replay's report has the error's traceback.
	if tr.Index != 4 || tr.Outcome != "error" || !strings.Contains(tr.Report, "boom at 4\nstack traceback:\n") {
		t.Errorf("replay: %+v", tr)
	}
	if _, err := campaign.Replay(context.Background(), campaign.Config{Seed: 100, Trials: 10, Runners: Script("../campaign/testdata/failing.lua", Options{})}, 110); err == nil ||
		!strings.Contains(err.Error(), "replay seed 110 is not a trial of the campaign, whose seeds are 100..109") {
		t.Errorf("a replay of a seed beyond the campaign: %v", err)
	}
}

func TestScriptErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := campaign.Run(context.Background(), campaign.Config{Trials: 1, Runners: Script(write("none.lua", "x = 1"), Options{})}); err == nil || !strings.Contains(err.Error(), "defines no function trial(t)") {
		t.Errorf("script without trial: %v", err)
	}
	// Every worker loads the script on its own goroutine; none runs a
	// trial unless all loaded it (the script counts its loads and trials
	// in a file, since each worker has its own Lua state).
	counted := filepath.Join(dir, "count")
	flaky := write("flaky.lua", fmt.Sprintf(`local f = io.open(%q, "a"); f:write("load\n"); f:close()
local n = 0; for _ in io.lines(%q) do n = n + 1 end
if n >= 3 then error("the third load fails") end
function trial(t) local f = io.open(%q, "a"); f:write("trial\n"); f:close() end`, counted, counted, counted))
	if _, err := campaign.Run(context.Background(), campaign.Config{Trials: 100, Workers: 4, Runners: Script(flaky, Options{})}); err == nil || !strings.Contains(err.Error(), "the third load fails") {
		t.Errorf("a worker's failed load: %v", err)
	}
	if data, _ := os.ReadFile(counted); strings.Contains(string(data), "trial") {
		t.Errorf("trials ran although a worker could not load the script:\n%s", data)
	}
	if _, err := campaign.Run(context.Background(), campaign.Config{Trials: 1, Runners: Script(write("syntax.lua", "x = = 1"), Options{})}); err == nil || !strings.Contains(err.Error(), "syntax.lua:1:") {
		t.Errorf("syntax error: %v", err)
	}
	bad := write("bad.lua", `function trial(t) t.record("x", -1) end`)
	s, _ := run(t, campaign.Config{Trials: 1, Runners: Script(bad, Options{})})
	if len(s.Failures) != 1 || !strings.Contains(s.Failures[0].Message, "bad argument #2 to 'record' (a value from 0 to 1e+09 expected, got -1)") {
		t.Errorf("record(-1): %+v", s.Failures)
	}
	exit := write("exit.lua", `function trial(t) os.exit(3) end`)
	s, _ = run(t, campaign.Config{Trials: 1, Runners: Script(exit, Options{})})
	if len(s.Failures) != 1 || !strings.Contains(s.Failures[0].Message, "os.exit is not available") {
		t.Errorf("os.exit in a trial: %+v", s.Failures)
	}
	open := write("open.lua", `function trial(t) local s = startup{}; s:submit_gpu(); return {} end`)
	s, _ = run(t, campaign.Config{Trials: 3, Runners: Script(open, Options{}), Workers: 1})
	if len(s.Failures) != 3 || !strings.Contains(s.Failures[0].Message, "trial returned a table value") || s.Violations != 0 {
		t.Errorf("a trial that leaves a session open: %+v", s.Failures)
	}
}

// TestSameWithAndWithoutOnTrial checks that the summary does not depend on
// whether the trials are also streamed to OnTrial, and that the stream
// holds every trial in index order with its measurements.
func TestSameWithAndWithoutOnTrial(t *testing.T) {
	for _, script := range []string{"../campaign/testdata/trial.lua", "../campaign/testdata/failing.lua"} {
		cfg := campaign.Config{Trials: 50, Seed: 3, Runners: Script(script, Options{}), Workers: 3}
		_, want := run(t, cfg)
		var seen []campaign.Trial
		cfg.OnTrial = func(tr campaign.Trial) { seen = append(seen, tr) }
		if _, got := run(t, cfg); !bytes.Equal(got, want) {
			t.Errorf("script %q: with OnTrial:\n%s\nwant the summary without:\n%s", script, got, want)
		}
		records := 0
		for i, tr := range seen {
			if tr.Index != i || tr.Seed != 3+uint64(i) {
				t.Fatalf("script %q: trial %d of the stream is index %d, seed %d", script, i, tr.Index, tr.Seed)
			}
			for _, vs := range tr.Records {
				records += len(vs)
			}
		}
		if len(seen) != 50 || records == 0 {
			t.Errorf("script %q: %d trials streamed, %d records", script, len(seen), records)
		}
	}
}

// TestCancelWithoutOnTrial checks that a stopped run without OnTrial holds
// the first trials: those it finished are those of a run of that many
// trials, but for the few it interrupted (one per worker at most).
func TestCancelWithoutOnTrial(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	s, err := campaign.Run(ctx, campaign.Config{Trials: 100000, Workers: 2, Runners: Script("../campaign/testdata/trial.lua", Options{OnFabric: func(*devices.Fabric) {
		once.Do(func() { time.AfterFunc(50*time.Millisecond, cancel) })
	}})})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Stopped() || s.Trials == 0 || s.Interrupted() > 2 {
		t.Fatalf("stopped=%v after %d trials, %d interrupted", s.Stopped(), s.Trials, s.Interrupted())
	}
	want, _ := run(t, campaign.Config{Trials: s.Trials, Workers: 1, Runners: Script("../campaign/testdata/trial.lua", Options{})})
	missing := 0
	for outcome, n := range want.Outcomes {
		if got := s.Outcomes[outcome]; got > n {
			t.Errorf("outcome %q: %d trials, more than the %d of a run of the first %d", outcome, got, n, s.Trials)
		} else {
			missing += n - got
		}
	}
	if missing != s.Interrupted() {
		t.Errorf("%d trials are not those of the run of the first %d, but %d were interrupted:\n%s\nwant:\n%s", missing, s.Trials, s.Interrupted(), s.Text(), want.Text())
	}
}

// TestTrialFabricReadOnce checks that each trial's fabric is made with
// trial_fabric as the script's loading left it: a trial that changes it
// changes nothing for the next trials, which would otherwise depend on the
// trials their worker ran before.
func TestTrialFabricReadOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "toggle.lua")
	src := `trial_fabric = {timing = "published"}
function trial(t)
  local timing = t.fabric.timing
  if trial_fabric.timing then trial_fabric.timing = nil else trial_fabric.timing = "published" end
  return timing
end`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	if _, err := campaign.Run(context.Background(), campaign.Config{Trials: 4, Workers: 1, Runners: Script(p, Options{}), OnTrial: func(tr campaign.Trial) { got = append(got, tr.Outcome) }}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"published", "published", "published", "published"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the trials' fabrics had timing %v, want %v", got, want)
	}
}
