package bench

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/residentlua/residentlua/campaign/trial"
)

// StandardTrial is the trial of the engine-level trial benchmarks: one
// session of up to 100 rounds with at most one random fault, in simulated
// time, run on its worker's world (package campaign/trial). The table's
// campaign figures run the campaign's built-in trial instead
// (RunBuiltinTrials).
func StandardTrial(seed uint64) trial.Config {
	return trial.Config{Seed: seed, Sessions: 1, Pair: standardPair, MaxFaults: 1}
}

// standardPair is StandardTrial's pair: the built-in exchange of up to 100
// rounds, made once rather than for each trial.
var standardPair trial.Pair = trial.Exchange{Rounds: 100}

// RunTrials runs the standard trials of seeds first..first+n-1 on workers
// goroutines and returns each trial's event digest (by seed order) and the
// trials per second.
func RunTrials(first uint64, n, workers int) (digests []uint64, perSecond float64) {
	digests = make([]uint64, n)
	// Workers take the next seed from a counter: no producer goroutine to
	// share the processors with, and no channel hand-off per trial.
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := trial.NewWorld() // the worker's, renewed for each trial
			defer w.Close()
			var r trial.Result
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				w.Run(StandardTrial(first+uint64(i)), &r)
				digests[i] = r.Digest
			}
		}()
	}
	wg.Wait()
	return digests, float64(n) / time.Since(start).Seconds()
}
