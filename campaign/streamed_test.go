package campaign

import (
	"context"
	"maps"
	"testing"

	"github.com/residentlua/residentlua/campaign/trial"
)

// TestStreamedTrialsKeepTheirCounts checks that the trials OnTrial gets
// keep their own fault counts, although a worker's runner reuses its
// result's maps for its next trial.
func TestStreamedTrialsKeepTheirCounts(t *testing.T) {
	var got []Trial
	if _, err := Run(context.Background(), Config{Trials: 40, Workers: 2, OnTrial: func(tr Trial) { got = append(got, tr) }}); err != nil {
		t.Fatal(err)
	}
	fired := 0
	for _, tr := range got {
		want := trial.Run(trial.Config{Seed: tr.Seed}).Fired
		if !maps.Equal(tr.Fired, want) {
			t.Errorf("seed %d streamed with faults fired %v, want %v", tr.Seed, tr.Fired, want)
		}
		fired += len(want)
	}
	if fired == 0 {
		t.Fatal("no trial fired a fault: the test checks nothing")
	}
}
