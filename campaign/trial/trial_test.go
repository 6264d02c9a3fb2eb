package trial

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// TestRunDefaults checks that the zero Config is the campaign's trial: seed
// 1, three sessions, and a result that replays with the same events.
func TestRunDefaults(t *testing.T) {
	r := Run(Config{})
	if r.Seed != 1 || len(r.Sessions) != 3 {
		t.Fatalf("Run(Config{}) ran seed %d with %d sessions, want seed 1 with 3", r.Seed, len(r.Sessions))
	}
	full := Run(Config{Seed: 1, Sessions: 3, Pair: Exchange{Rounds: 8, Credits: 4, SlotBytes: 256}, MaxFaults: 3, Mode: devices.Simulated})
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

// A world renewed between two different trials runs each as a fresh world
// does, digest for digest: nothing of the last trial (its fabric's events,
// faults, budget and handles, its oracle's records, its plans, its
// result's maps) carries over. Consecutive trials differ in seed and in
// shape, and a trial whose OnFabric hook sees a fabric of its own comes
// between them. NoOps leaves out only the host operations' lines.
func TestRenewedWorldIsAFreshWorld(t *testing.T) {
	w := NewWorld()
	defer w.Close()
	var reused Result
	// The last shape's sessions forge an allocation the budget never
	// charged: the oracle finds invariant 8 broken, and finds it as a
	// fresh one would only when it was renewed with the fabric (its
	// accounts of the last trial gone, and watching this one's events).
	forged := func(x exchange.Config) engine.Programs {
		prepare := exchange.Programs(x)
		return func(line *devices.Buffer, gpu, npu *devices.Device, owner uint64) (*devices.Prepared, *devices.Prepared, error) {
			gpu.Fabric().Events().Emit(event.HostActor, owner, event.EvAlloc, 0, 64, "forged")
			return prepare(line, gpu, npu, owner)
		}
	}
	shapes := []Config{{}, {Sessions: 5, MaxFaults: 1}, {Pair: Exchange{SlotBytes: 8, Rounds: 2}}, {MaxFaults: -1, Pair: Exchange{Credits: 1}}, {Pair: Exchange{Programs: forged}}}
	for i, seed := range []uint64{1, 2, 30, 7, 7, 11, 1000, 3, 2999, 12, 5, 64} {
		cfg := shapes[i%len(shapes)]
		cfg.Seed = seed
		want := Run(cfg) // on a fresh world
		if x, ok := cfg.Pair.(Exchange); ok && x.Programs != nil && len(want.Violations) == 0 {
			t.Fatalf("seed %d: the forged allocation broke no invariant", seed)
		}
		w.Run(cfg, &reused)
		if got, want := fmt.Sprint(reused.Violations), fmt.Sprint(want.Violations); got != want {
			t.Fatalf("seed %d on a renewed world found violations %s; a fresh world: %s", seed, got, want)
		}
		if got, wantText := reused.Report(), want.Report(); got != wantText {
			t.Fatalf("seed %d on a renewed world:\n%s\nwant, as on a fresh world:\n%s", seed, got, wantText)
		}
		if !maps.Equal(reused.Fired, want.Fired) || !maps.Equal(reused.ErrorKinds, want.ErrorKinds) || !maps.Equal(reused.Paths, want.Paths) || reused.Digest != want.Digest {
			t.Fatalf("seed %d on a renewed world counted fired %v, errors %v, paths %v (digest %#x); a fresh world: %v, %v, %v (%#x)",
				seed, reused.Fired, reused.ErrorKinds, reused.Paths, reused.Digest, want.Fired, want.ErrorKinds, want.Paths, want.Digest)
		}
		cfg.NoOps = true
		w.Run(cfg, &reused)
		if len(reused.Ops) != 0 || reused.Digest != want.Digest || !maps.Equal(reused.ErrorKinds, want.ErrorKinds) || len(reused.Sessions) != len(want.Sessions) {
			t.Fatalf("seed %d with NoOps: %d operation lines, digest %#x, errors %v, %d sessions; want none, %#x, %v, %d",
				seed, len(reused.Ops), reused.Digest, reused.ErrorKinds, len(reused.Sessions), want.Digest, want.ErrorKinds, len(want.Sessions))
		}
		if i%3 == 0 { // a trial on a fabric of its own leaves the world's as it was
			var hooked *devices.Fabric
			w.Run(Config{Seed: seed + 1, OnFabric: func(f *devices.Fabric) { hooked = f }}, &reused)
			if hooked == nil || hooked == w.fabric {
				t.Fatalf("the OnFabric trial ran on the world's fabric")
			}
		}
	}
}

// smallestPair is a pair of one's own as a trial runs it: every session
// runs the exchange of one round and one credit, drawing nothing.
type smallestPair struct{}

func (smallestPair) Draw(_ *rand.Rand, words []byte) (engine.Programs, []byte) {
	x := exchange.Default()
	x.Rounds, x.Credits = 1, 1
	return exchange.Programs(x), append(words, "the smallest exchange"...)
}

func (smallestPair) Need() time.Duration { return 0 }

// TestTrialOfAnyPair runs trials of a pair that is not the built-in
// exchange's drawing: its sessions run, are named by the pair's words, and
// the trials pass; the built-in exchange's sessions are named by the shape
// they drew.
func TestTrialOfAnyPair(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := Run(Config{Seed: seed, Pair: smallestPair{}})
		if !r.OK() || len(r.Sessions) != 3 {
			t.Fatalf("seed %d of the smallest exchange failed, or ran other than 3 sessions:\n%s", seed, r.Report())
		}
		for _, s := range r.Sessions {
			if s.Args != "the smallest exchange" {
				t.Errorf("seed %d: a session's arguments are %q", seed, s.Args)
			}
		}
		if ops := strings.Join(r.Ops, "\n"); !strings.Contains(ops, "s1 new: the smallest exchange\n") && !strings.Contains(ops, "new session the smallest exchange: ") {
			t.Errorf("seed %d: no operation names the pair's session:\n%s", seed, ops)
		}
	}
	shape := regexp.MustCompile(`^[1-8] rounds?, [1-4] credits?, [0-9]+-byte slots on (aql|pm4)$`)
	for _, s := range Run(Config{Seed: 1}).Sessions {
		if !shape.MatchString(s.Args) {
			t.Errorf("a session of the built-in exchange has arguments %q", s.Args)
		}
	}
}
