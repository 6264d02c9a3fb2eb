package trial

import (
	"runtime"
	"testing"
)

// maxTrialBytes is what a default built-in trial may allocate, as a
// campaign's worker runs it: less than 2 KB.
const maxTrialBytes = 2000

// A default built-in trial, run as a campaign's worker runs it (RunInto,
// one result reused, no lines), allocates less than maxTrialBytes on
// average, measured over many trials after a warm-up has filled the
// recycled fabrics, oracles and workspaces.
func TestDefaultTrialAllocatesUnder2KB(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop a share of what it is given, so recycled fabrics, oracles and workspaces are made anew and a trial allocates several times more")
	}
	var r Result
	run := func(from, n int) {
		for seed := from; seed < from+n; seed++ {
			if RunInto(Config{Seed: uint64(seed), NoOps: true}, &r); !r.OK() {
				t.Fatalf("seed %d failed", seed)
			}
		}
	}
	run(1, 200) // warm-up
	const trials = 2000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	run(201, trials)
	runtime.ReadMemStats(&after)
	perTrial := (after.TotalAlloc - before.TotalAlloc) / trials
	t.Logf("%d B per trial over %d trials", perTrial, trials)
	if perTrial >= maxTrialBytes {
		t.Errorf("a default trial allocates %d B on average, want less than %d (profile BenchmarkRunInto with -memprofile)", perTrial, maxTrialBytes)
	}
}
