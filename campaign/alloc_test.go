package campaign

import (
	"context"
	"maps"
	"testing"

	"github.com/residentlua/residentlua/engine/trial"
)

// fixedRunner is a runner whose trials allocate nothing themselves: every
// trial ends the same way with the same measurements.
type fixedRunner struct{}

func (fixedRunner) Run(_ context.Context, t *Trial) error {
	t.Outcome = "retired"
	if err := t.Record("latency", 1.5e-6); err != nil {
		return err
	}
	return t.Record("rounds", 3)
}

func (fixedRunner) Close() {}

// TestRecordingAllocatesNothing checks that, once a worker has seen a
// trial's outcome and measurements, what the campaign itself does per trial
// (resetting the worker's trial, adding it to the worker's summary and its
// histograms, counting progress) allocates nothing, so that a campaign's
// garbage is its trials' own.
func TestRecordingAllocatesNothing(t *testing.T) {
	w := &worker{r: fixedRunner{}, base: context.Background(), part: &Summary{},
		names: &workerNames{set: newNameSet(2, nil), known: map[string]bool{}}}
	w.part.normalize()
	var p Progress
	i := 0
	runOne := func() {
		w.run(i, uint64(i)+1, false)
		p.count(&w.t)
		i++
	}
	runOne() // the first makes the measurements, their histograms and the map entries
	if n := testing.AllocsPerRun(100, runOne); n != 0 {
		t.Errorf("a trial's recording allocated %v times, want 0", n)
	}
	const want = 102 // the first, AllocsPerRun's warm-up and its 100
	if w.part.Trials != want || w.part.Measurements["rounds"].Count != want {
		t.Errorf("recorded %d trials, %d rounds, want %d of each", w.part.Trials, w.part.Measurements["rounds"].Count, want)
	}
}

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
