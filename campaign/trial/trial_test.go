package trial

import (
	"maps"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
)

// TestRunDefaults checks that the zero Config is the campaign's trial: seed
// 1, three sessions, and a result that replays with the same events.
func TestRunDefaults(t *testing.T) {
	r := Run(Config{})
	if r.Seed != 1 || len(r.Sessions) != 3 {
		t.Fatalf("Run(Config{}) ran seed %d with %d sessions, want seed 1 with 3", r.Seed, len(r.Sessions))
	}
	full := Run(Config{Seed: 1, Sessions: 3, Rounds: 8, Credits: 4, MaxFaults: 3, Mode: devices.Simulated})
	if r.Digest != full.Digest || r.Events != full.Events {
		t.Errorf("the zero Config gave %d events (digest %#x), its defaults spelled out %d (digest %#x)", r.Events, r.Digest, full.Events, full.Digest)
	}
	if !r.OK() {
		t.Errorf("the default trial failed:\n%s", r.Report())
	}
	if !strings.HasPrefix(r.String(), "seed 1: ") {
		t.Errorf("String() = %q, want it to start with the seed", r.String())
	}
}

// TestRunNoFaults checks that a negative MaxFaults arms none.
func TestRunNoFaults(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		if r := Run(Config{Seed: seed, MaxFaults: -1}); len(r.Faults) != 0 || len(r.Fired) != 0 {
			t.Fatalf("seed %d with MaxFaults -1 armed %v and fired %v", seed, r.Faults, r.Fired)
		}
	}
}

// TestStats checks that Stats adds results up and keeps the failed seeds.
func TestStats(t *testing.T) {
	ok := Result{Seed: 4, Settled: true, Sessions: []Session{{ID: 1, Outcome: engine.Retired}, {}}, Fired: map[string]int{"gpu.run hang": 1}}
	bad := Result{Seed: 9, Settled: true, Sessions: []Session{{ID: 2, Outcome: engine.Quarantined}}, Violations: []oracle.Violation{{Invariant: 10}}, ErrorKinds: map[string]int{"busy": 2}}
	var s Stats
	s.Add(ok)
	s.Add(bad)
	if s.Trials != 2 || s.Failed != 1 || len(s.FailedSeeds) != 1 || s.FailedSeeds[0] != 9 {
		t.Fatalf("after one good and one failed trial: %d trials, %d failed, seeds %v", s.Trials, s.Failed, s.FailedSeeds)
	}
	want := "2 trials, 1 failed; sessions {not made=1 quarantined=1 retired=1}; errors {busy=2}; faults fired {gpu.run hang=1}; paths {}; violations {10=1}; failed seeds [9]"
	if got := s.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
}

// TestRunIntoReuses checks that trials run one after another into one
// Result give what Run gives each alone, and that NoOps leaves out only
// the host operations' lines.
func TestRunIntoReuses(t *testing.T) {
	var reused Result
	for seed := uint64(1); seed <= 30; seed++ {
		want := Run(Config{Seed: seed})
		RunInto(Config{Seed: seed}, &reused)
		if got, wantText := reused.Report(), want.Report(); got != wantText {
			t.Fatalf("seed %d run into a reused result:\n%s\nwant, as Run gives it:\n%s", seed, got, wantText)
		}
		if !maps.Equal(reused.Fired, want.Fired) || !maps.Equal(reused.ErrorKinds, want.ErrorKinds) || !maps.Equal(reused.Paths, want.Paths) || reused.Digest != want.Digest {
			t.Fatalf("seed %d run into a reused result counted fired %v, errors %v, paths %v (digest %#x); Run: %v, %v, %v (%#x)",
				seed, reused.Fired, reused.ErrorKinds, reused.Paths, reused.Digest, want.Fired, want.ErrorKinds, want.Paths, want.Digest)
		}
		RunInto(Config{Seed: seed, NoOps: true}, &reused)
		if len(reused.Ops) != 0 || reused.Digest != want.Digest || !maps.Equal(reused.ErrorKinds, want.ErrorKinds) || len(reused.Sessions) != len(want.Sessions) {
			t.Fatalf("seed %d with NoOps: %d operation lines, digest %#x, errors %v, %d sessions; want none, %#x, %v, %d",
				seed, len(reused.Ops), reused.Digest, reused.ErrorKinds, len(reused.Sessions), want.Digest, want.ErrorKinds, len(want.Sessions))
		}
	}
}
