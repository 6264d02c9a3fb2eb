package campaign

import "testing"

// fixedRunner is a runner whose trials allocate nothing themselves: every
// trial ends the same way with the same measurements.
type fixedRunner struct{}

func (fixedRunner) run(t *Trial) {
	t.Outcome = "retired"
	t.record("latency", 1.5e-6)
	t.record("rounds", 3)
}

func (fixedRunner) close() {}

// TestRecordingAllocatesNothing checks that, once a worker has seen a
// trial's outcome and measurements, what the campaign itself does per trial
// (resetting the worker's trial, adding it to the worker's summary and its
// histograms, counting progress) allocates nothing, so that a campaign's
// garbage is its trials' own.
func TestRecordingAllocatesNothing(t *testing.T) {
	w := &worker{r: fixedRunner{}, part: &Summary{}}
	w.part.normalize()
	var p Progress
	i := 0
	trial := func() {
		w.run(i, uint64(i)+1, false)
		p.count(&w.t)
		i++
	}
	trial() // the first makes the measurements, their histograms and the map entries
	if n := testing.AllocsPerRun(100, trial); n != 0 {
		t.Errorf("a trial's recording allocated %v times, want 0", n)
	}
	const want = 102 // the first, AllocsPerRun's warm-up and its 100
	if w.part.Trials != want || w.part.Measurements["rounds"].Count != want {
		t.Errorf("recorded %d trials, %d rounds, want %d of each", w.part.Trials, w.part.Measurements["rounds"].Count, want)
	}
}
