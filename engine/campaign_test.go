package engine_test

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/campaign/trial"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/fault"
)

var (
	campaignTrials = flag.Int("trials", 300, "randomized trials TestCampaign runs (the full campaign is 10000)")
	campaignBase   = flag.Uint64("campaign.seed", 1, "seed of TestCampaign's first trial; trial i uses seed+i")
	campaignReplay = flag.Uint64("campaign.replay", 0, "replay only the trial with this seed, printing its host operations")
	campaignRT     = flag.Int("trials.realtime", 30, "randomized trials TestCampaignRealTime runs on the real-time executor")
)

// TestCampaign runs seeded randomized trials (random host operation orders,
// random faults at random sites, simulated time) and requires of each that
// the oracle saw no violation, every session ended retired or quarantined,
// and nothing is charged after the devices were reset. A failure prints the
// seed and the flag that replays it.
func TestCampaign(t *testing.T) {
	t.Parallel()
	if *campaignReplay != 0 {
		r := trial.Run(trial.Config{Seed: *campaignReplay})
		t.Log("\n" + r.Report())
		if !r.OK() {
			t.Fatalf("trial %s", r)
		}
		return
	}
	var stats trial.Stats
	start := time.Now()
	for i := range *campaignTrials {
		seed := *campaignBase + uint64(i)
		r := trial.Run(trial.Config{Seed: seed})
		stats.Add(r)
		if !r.OK() && stats.Failed <= 3 {
			t.Errorf("trial failed; replay with: go test ./engine -run Campaign -campaign.replay=%d\n%s", seed, r.Report())
		}
	}
	t.Logf("%s (wall %v)", stats.String(), time.Since(start).Round(time.Millisecond))
	if stats.Failed > 0 {
		t.Fatalf("%d of %d trials failed; seeds %v", stats.Failed, stats.Trials, stats.FailedSeeds)
	}
	// The campaign must actually reach both endings, the faults, and the
	// protocol's hard paths.
	if *campaignTrials >= 300 {
		campaignCovers(t, &stats)
	}
}

// campaignCovers fails unless the trials reached every ending and path that
// makes the campaign worth running.
func campaignCovers(t *testing.T, stats *trial.Stats) {
	t.Helper()
	for _, k := range []string{"retired", "quarantined"} {
		if stats.Outcomes[k] == 0 {
			t.Errorf("no session ended %s in %d trials; the campaign does not reach that path", k, stats.Trials)
		}
	}
	for _, k := range []string{"reject after peer accepted", "poisoned", "check passed", "check failed", "quarantine released"} {
		if stats.Paths[k] == 0 {
			t.Errorf("no trial went through %q in %d trials", k, stats.Trials)
		}
	}
	for _, k := range []string{"budget", "busy", "device", "publish"} {
		if stats.ErrorKinds[k] == 0 {
			t.Errorf("no host operation returned a %s error in %d trials", k, stats.Trials)
		}
	}
	for _, site := range fault.Sites() {
		fired := 0
		for k, n := range stats.Fired {
			if strings.HasPrefix(k, site.String()+" ") && !strings.HasSuffix(k, " off") {
				fired += n
			}
		}
		if fired == 0 {
			t.Errorf("no fault fired at %s in %d trials", site, stats.Trials)
		}
	}
}

// TestCampaignRealTime runs trials on the real-time executor, where the
// devices run on their own threads: the interleavings are not replayable,
// but the oracle must be just as silent.
func TestCampaignRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time trials take wall-clock time")
	}
	var stats trial.Stats
	for i := range *campaignRT {
		seed := *campaignBase + uint64(i)
		r := trial.Run(trial.Config{Seed: seed, Mode: devices.RealTime})
		stats.Add(r)
		if !r.OK() && stats.Failed <= 3 {
			t.Errorf("real-time trial failed (real time does not replay exactly; the seed gives the same faults and host operations): seed %d\n%s", seed, r.Report())
		}
	}
	t.Log(stats.String())
}

// TestCampaignReplays checks that a trial is a function of its seed: the
// same seed gives the same events, byte for byte, and the same operations.
func TestCampaignReplays(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 7, 12345, 1 << 40} {
		a, b := trial.Run(trial.Config{Seed: seed}), trial.Run(trial.Config{Seed: seed})
		if a.Digest != b.Digest || a.Events != b.Events || len(a.Ops) != len(b.Ops) {
			t.Fatalf("seed %d gave %d events (digest %#x) then %d (digest %#x)", seed, a.Events, a.Digest, b.Events, b.Digest)
		}
		for i := range a.Ops {
			if a.Ops[i] != b.Ops[i] {
				t.Fatalf("seed %d: operation %d was %q then %q", seed, i, a.Ops[i], b.Ops[i])
			}
		}
	}
	if a, b := trial.Run(trial.Config{Seed: 1}), trial.Run(trial.Config{Seed: 2}); a.Digest == b.Digest {
		t.Errorf("seeds 1 and 2 gave the same events")
	}
}
