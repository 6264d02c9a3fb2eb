package trial_test

import (
	"fmt"

	"github.com/residentlua/residentlua/campaign/trial"
)

// A campaign: seeded trials, added up; a failed trial is replayed alone by
// running its seed again.
func ExampleRun() {
	var stats trial.Stats
	for seed := uint64(1); seed <= 100; seed++ {
		r := trial.Run(trial.Config{Seed: seed})
		stats.Add(r)
		if !r.OK() {
			fmt.Println(r.Report())
		}
	}
	fmt.Println(stats.Trials, "trials,", stats.Failed, "failed")
	// Output: 100 trials, 0 failed
}
