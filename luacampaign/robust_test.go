package luacampaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/campaign"
)

// luaScript is the trial script src as a campaign's trials.
func luaScript(t *testing.T, src string) campaign.Runners {
	return Script(writeScript(t, src), Options{})
}

// writeScript writes a trial script into a temporary directory.
func writeScript(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "trial.lua")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOsExitIsAnError checks that os.exit raises an error in every form: at
// the script's top level (which then cannot load) and through a copy kept
// before trial(t) runs.
func TestOsExitIsAnError(t *testing.T) {
	_, err := campaign.Run(context.Background(), campaign.Config{Trials: 3, Runners: luaScript(t, "os.exit(9)\nfunction trial(t) end")})
	if err == nil || !strings.Contains(err.Error(), "os.exit is not available") {
		t.Errorf("top-level os.exit: %v", err)
	}
	s := run(t, campaign.Config{Trials: 5, Workers: 2, Runners: luaScript(t,
		"local exit = os.exit\nfunction trial(t) if t.index == 3 then exit(0) end end")})
	if s.Trials != 5 || len(s.Failures) != 1 || !strings.Contains(s.Failures[0].Message, "os.exit is not available") {
		t.Errorf("os.exit kept in a local: %d trials, failures %+v", s.Trials, s.Failures)
	}
}

// TestOutcomeAndMeasurementNames checks what a trial may name: an outcome
// or a measurement of at most 64 bytes of UTF-8, and no outcome the
// campaign gives itself. t.fail with a table has no address in its message.
func TestOutcomeAndMeasurementNames(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`return "\255ok"`, "is not valid UTF-8"},
		{`return string.rep("x", 65)`, "is 65 bytes long; give a name of at most 64 bytes"},
		{`return "error"`, `trial returned "error", an outcome the campaign keeps for its own verdicts`},
		{`return "interrupted"`, `trial returned "interrupted"`},
		{`t.record("\255", 1)`, "measurement name \"\\xff\" is not valid UTF-8"},
		{`t.record(string.rep("y", 70), 1)`, "is 70 bytes long"},
		{`t.fail({})`, "t.fail called with a table value"},
	} {
		s := run(t, campaign.Config{Trials: 2, Runners: luaScript(t, "function trial(t) "+c.body+" end")})
		if len(s.Failures) != 2 || !strings.Contains(s.Failures[0].Message, c.want) || strings.Contains(s.Failures[0].Message, "0x") {
			t.Errorf("%s: failures %+v, want %q", c.body, s.Failures, c.want)
		}
	}
	s := run(t, campaign.Config{Trials: 2, Runners: luaScript(t, `function trial(t) return string.rep("é", 32) end`)})
	if s.Outcomes[strings.Repeat("é", 32)] != 2 {
		t.Errorf("a 64-byte outcome: %v", s.Outcomes)
	}
}

// TestMeasurementNamesCapped checks that a run records at most
// MaxMeasurements names: the trial that records one more fails with a
// clear error, and the run stops, saying why.
func TestMeasurementNamesCapped(t *testing.T) {
	s := run(t, campaign.Config{Trials: 3000, Workers: 2, MaxMeasurements: 30, Runners: luaScript(t, `function trial(t) t.record("m" .. t.index, 1) end`)})
	if !s.Stopped() || !strings.Contains(s.StopReason, `t.record: a campaign records at most 30 measurement names, and "m`) || len(s.Measurements) > 30 {
		t.Fatalf("%d names, stopped=%v (%q)", len(s.Measurements), s.Stopped(), s.StopReason)
	}
}

// TestTrialFabricChecked checks that trial_fabric is refused before any
// trial runs when it asks for another mode or seed, or for options
// resident.fabric refuses, and that a trial may not make a real-time
// fabric.
func TestTrialFabricChecked(t *testing.T) {
	for _, c := range []struct{ fabric, want string }{
		{`{mode = "realtime"}`, "trial_fabric.mode: a campaign's trials always run in simulated time"},
		{`{mode = "sim"}`, "trial_fabric.mode"},
		{`{seed = 5}`, "trial_fabric.seed"},
		{`{timing = "bogus"}`, "trial_fabric: "},
		{`{gpu = {backend = "nonesuch"}}`, "trial_fabric: "},
		{`{timing = print}`, "trial_fabric.timing is a function value"},
		{`"sim"`, "trial_fabric is a string value"},
	} {
		dir := t.TempDir()
		counted := filepath.Join(dir, "trials")
		script := writeScript(t, "trial_fabric = "+c.fabric+"\nfunction trial(t) io.open('"+counted+"', 'a'):write('x') end")
		_, err := campaign.Run(context.Background(), campaign.Config{Trials: 5, Workers: 2, Runners: Script(script, Options{})})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("trial_fabric = %s: %v, want %q", c.fabric, err, c.want)
		}
		if _, err := os.Stat(counted); err == nil {
			t.Errorf("trial_fabric = %s: trials ran", c.fabric)
		}
	}
	s := run(t, campaign.Config{Trials: 2, Runners: luaScript(t, `function trial(t) resident.fabric{mode = "realtime"} end`)})
	if len(s.Failures) != 2 || !strings.Contains(s.Failures[0].Message, "only a simulated fabric can be made here") {
		t.Errorf("a real-time fabric in a trial: %+v", s.Failures)
	}
}

// TestStateKeptBetweenTrialsIsNoticed checks that a run with several
// workers warns when trials run again on fresh Lua states end otherwise,
// and that a script without such state gets no warning. Each worker's first
// trial is early and every later one late, so that however the trials fall
// to the two workers (one may start only as the other finishes), one of the
// last three, which the run does again, ran after another on its worker.
func TestStateKeptBetweenTrialsIsNoticed(t *testing.T) {
	s := run(t, campaign.Config{Trials: 40, Workers: 2, Runners: luaScript(t, `n = 0
function trial(t) n = n + 1; return n > 1 and "late" or "early" end`)})
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], `returned "late", then "early"`) ||
		!strings.Contains(s.Warnings[0], "keeps state from one trial to the next") {
		t.Errorf("warnings %q", s.Warnings)
	}
	if s := run(t, campaign.Config{Trials: 40, Workers: 2, Runners: Script("../campaign/testdata/trial.lua", Options{})}); len(s.Warnings) != 0 {
		t.Errorf("warnings for a script without state: %q", s.Warnings)
	}
}

// TestTrialFabricSameInEveryWorker checks that a trial_fabric that comes
// out otherwise in one worker's Lua state (here only the state whose
// rename claims a file, which exactly one can, asks for published timing)
// is refused before any trial runs.
func TestTrialFabricSameInEveryWorker(t *testing.T) {
	dir := t.TempDir()
	claim, claimed, trials := filepath.Join(dir, "claim"), filepath.Join(dir, "claimed"), filepath.Join(dir, "trials")
	if err := os.WriteFile(claim, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	script := luaScript(t, fmt.Sprintf(`trial_fabric = {timing = os.rename(%q, %q) and "published" or "ideal"}
function trial(t) io.open(%q, "a"):write("x") end`, claim, claimed, trials))
	_, err := campaign.Run(context.Background(), campaign.Config{Trials: 10, Workers: 3, Runners: script})
	if err == nil || !strings.Contains(err.Error(), "the script's trial_fabric came out differently in two workers' Lua states") {
		t.Errorf("trial_fabric that differs between workers: %v", err)
	}
	if _, err := os.Stat(trials); err == nil {
		t.Error("trials ran")
	}
}
