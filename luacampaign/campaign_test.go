package luacampaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/devices"
)

// run runs cfg and returns its summary.
func run(t *testing.T, cfg campaign.Config) *campaign.Summary {
	t.Helper()
	s, err := campaign.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestScriptErrors checks scripts that cannot run (no trial function, a
// load that fails in one worker, a syntax error), and trials whose mistakes
// fail them alone.
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
	s := run(t, campaign.Config{Trials: 1, Runners: Script(bad, Options{})})
	if len(s.Failures) != 1 || !strings.Contains(s.Failures[0].Message, "bad argument #2 to 'record' (a value from 0 to 1e+09 expected, got -1)") {
		t.Errorf("record(-1): %+v", s.Failures)
	}
	exit := write("exit.lua", `function trial(t) os.exit(3) end`)
	s = run(t, campaign.Config{Trials: 1, Runners: Script(exit, Options{})})
	if len(s.Failures) != 1 || !strings.Contains(s.Failures[0].Message, "os.exit is not available") {
		t.Errorf("os.exit in a trial: %+v", s.Failures)
	}
	open := write("open.lua", `function trial(t) local s = startup{}; s:submit_gpu(); return {} end`)
	s = run(t, campaign.Config{Trials: 3, Runners: Script(open, Options{}), Workers: 1})
	if len(s.Failures) != 3 || !strings.Contains(s.Failures[0].Message, "trial returned a table value") || s.Violations != 0 {
		t.Errorf("a trial that leaves a session open: %+v", s.Failures)
	}
}

// TestCancelWithoutOnTrial checks that a stopped run without OnTrial holds
// the first trials: those it finished are those of a run of that many
// trials, but for the few it interrupted (one per worker at most).
func TestCancelWithoutOnTrial(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	// Stopped once trials run on both workers: no trial's fabric is made
	// before every worker has loaded the script, and a stop while one is
	// still loading ends the run with an error instead (a wall-clock
	// delay from the first fabric raced the loading on a busy machine).
	var fabrics atomic.Int32
	s, err := campaign.Run(ctx, campaign.Config{Trials: 100000, Workers: 2, Runners: Script("../campaign/testdata/trial.lua", Options{OnFabric: func(*devices.Fabric) {
		if fabrics.Add(1) == 40 {
			cancel()
		}
	}})})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Stopped() || s.Trials == 0 || s.Interrupted() > 2 {
		t.Fatalf("stopped=%v after %d trials, %d interrupted", s.Stopped(), s.Trials, s.Interrupted())
	}
	want := run(t, campaign.Config{Trials: s.Trials, Workers: 1, Runners: Script("../campaign/testdata/trial.lua", Options{})})
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
