package campaign

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// measure records values into a new measurement, each of its outcome.
func measure(values []float64, outcomes []string) *Measurement {
	m := newMeasurement()
	for i, v := range values {
		m.add(v, outcomes[i%len(outcomes)])
	}
	return m
}

func TestByOutcomeIsEveryValueWhenFew(t *testing.T) {
	m := measure([]float64{3, 1, 2, 2, 7, 5}, []string{"ok", ""})
	got := m.ByOutcome(10)
	if len(got) != 2 || !slices.Equal(got["ok"], []float64{2, 3, 7}) || !slices.Equal(got[`""`], []float64{1, 2, 5}) {
		t.Errorf("ByOutcome = %v, want ok: [2 3 7] and \"\": [1 2 5]", got)
	}
	times := measure([]float64{0, 1.5e-6, 0.25}, []string{"ok"})
	values := times.ByOutcome(10)["ok"]
	if len(values) != 3 || values[0] != 0 || values[1] < 1.5e-6 || values[1] > 1.5015e-6 || values[2] != 0.25 {
		t.Errorf("times: ByOutcome = %v, want 0 (never a made-up 1 ns), then within 0.1%% of 1.5µs, then 0.25 (the maximum)", values)
	}
}

func TestByOutcomeThinsEvenlyInRank(t *testing.T) {
	const n = 4000
	var values []float64
	for i := 1; i <= 10*n; i++ {
		values = append(values, float64(i))
	}
	m := measure(values, []string{"ok"})
	got := m.ByOutcome(n)["ok"]
	if len(got) != n {
		t.Fatalf("%d values, want %d", len(got), n)
	}
	// The k-th is the value of rank 10k, to the histogram's 3 digits.
	for k, v := range got {
		if want := float64(10 * (k + 1)); v < want || v > want*1.001 {
			t.Fatalf("value %d is %v, want %v to 0.1%%", k+1, v, want)
		}
	}
}

func TestTooManyOutcomesKeepTheOverallHistogram(t *testing.T) {
	outcomes := make([]string, maxOutcomes+1)
	for i := range outcomes {
		outcomes[i] = fmt.Sprint("o", i)
	}
	m := measure([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, outcomes)
	if !m.manyOutcomes || m.byOutcome != nil || m.Count != 13 {
		t.Errorf("%d outcomes: many=%v, %d histograms, count %d", len(outcomes), m.manyOutcomes, len(m.byOutcome), m.Count)
	}
	// Two halves of at most maxOutcomes outcomes each merge into too many.
	a, b := measure([]float64{1, 2, 3, 4, 5, 6}, outcomes[:6]), measure([]float64{7, 8, 9, 10, 11, 12, 13}, outcomes[6:])
	a.merge(b)
	ja, _ := a.MarshalJSON()
	jm, _ := m.MarshalJSON()
	if !bytes.Equal(ja, jm) {
		t.Errorf("merged halves:\n%s\nwant the whole:\n%s", ja, jm)
	}
	if got := m.ByOutcome(100); len(got) != 1 || len(got["all (over 12 outcomes)"]) != 13 {
		t.Errorf("ByOutcome = %v, want one line of all the values", got)
	}
}
