package campaign

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/png" // image.DecodeConfig reads PNG
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

func TestPlotValuesAreEveryValueWhenFew(t *testing.T) {
	m := measure([]float64{3, 1, 2, 2, 7}, []string{"ok"})
	got := m.plotValues(m.byOutcome["ok"])
	if want := []float64{1, 2, 2, 3, 7}; !slices.Equal(got, want) {
		t.Errorf("plotValues = %v, want %v", got, want)
	}
	times := measure([]float64{0, 1.5e-6, 0.25}, []string{"ok"})
	got = times.plotValues(times.hist)
	if len(got) != 3 || got[0] != 0 || got[1] < 1.5e-6 || got[1] > 1.5015e-6 || got[2] != 0.25 {
		t.Errorf("times: plotValues = %v, want 0 (never a made-up 1 ns), then within 0.1%% of 1.5µs, then 0.25 (the maximum)", got)
	}
}

func TestPlotValuesThinEvenlyInRank(t *testing.T) {
	var values []float64
	for i := 1; i <= 10*maxPlotValues; i++ {
		values = append(values, float64(i))
	}
	m := measure(values, []string{"ok"})
	got := m.plotValues(m.hist)
	if len(got) != maxPlotValues {
		t.Fatalf("%d values, want %d", len(got), maxPlotValues)
	}
	// The k-th is the value of rank 10k, to the histogram's 3 digits.
	for k, v := range got {
		if want := float64(10 * (k + 1)); v < want || v > want*1.001 {
			t.Fatalf("value %d is %v, want %v to 0.1%%", k+1, v, want)
		}
	}
}

func TestOutcomeHistogramsHoldEveryValue(t *testing.T) {
	s := checkSameForWorkers(t, Config{Trials: 80, Seed: 7, Runners: sessions})
	for name, m := range s.Measurements {
		var total int64
		for _, h := range m.byOutcome {
			total += h.TotalCount()
		}
		if total != m.Count || len(m.byOutcome) == 0 {
			t.Errorf("%s: %d outcomes hold %d values, the count is %d", name, len(m.byOutcome), total, m.Count)
		}
	}
	rounds := s.Measurements["rounds"]
	if got, want := slices.Sorted(maps.Keys(rounds.byOutcome)), slices.Sorted(maps.Keys(s.Outcomes)); !slices.Equal(got, want) {
		t.Errorf("rounds by outcome %v, want every outcome %v", got, want)
	}
}

func TestTooManyOutcomesKeepTheOverallHistogram(t *testing.T) {
	outcomes := make([]string, MaxOutcomes+1)
	for i := range outcomes {
		outcomes[i] = fmt.Sprint("o", i)
	}
	m := measure([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, outcomes)
	if !m.manyOutcomes || m.byOutcome != nil || m.Count != 13 {
		t.Errorf("%d outcomes: many=%v, %d histograms, count %d", len(outcomes), m.manyOutcomes, len(m.byOutcome), m.Count)
	}
	// Two halves of at most MaxOutcomes outcomes each merge into too many.
	a, b := measure([]float64{1, 2, 3, 4, 5, 6}, outcomes[:6]), measure([]float64{7, 8, 9, 10, 11, 12, 13}, outcomes[6:])
	a.merge(b)
	ja, _ := a.MarshalJSON()
	jm, _ := m.MarshalJSON()
	if !bytes.Equal(ja, jm) {
		t.Errorf("merged halves:\n%s\nwant the whole:\n%s", ja, jm)
	}
	if got := slices.Collect(maps.Keys(m.plotSeries())); len(got) != 1 || !strings.HasPrefix(got[0], "all (over ") {
		t.Errorf("series %v, want one line of all the values", got)
	}
}

func TestDecodeChecksOutcomeHistograms(t *testing.T) {
	s, _ := run(t, Config{Trials: 20, Runners: sessions})
	b, _ := s.JSON()
	// Drop the histograms by outcome of the first measurement.
	i := bytes.Index(b, []byte(`"by_outcome": {`))
	j := i + bytes.Index(b[i:], []byte("}"))
	bad := slices.Concat(b[:i], []byte(`"by_outcome": {`), b[j:])
	if _, err := Decode(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "by_outcome: the histograms hold 0 values, the count says") {
		t.Errorf("a summary without histograms by outcome: err = %v", err)
	}
}

func TestPlotPaths(t *testing.T) {
	s := &Summary{Measurements: map[string]*Measurement{"decision to retirement": nil}}
	if got := s.PlotPaths("out/p.svg"); got["decision to retirement"] != "out/p.svg" {
		t.Errorf("one measurement: %v, want the file itself", got)
	}
	s.Measurements = map[string]*Measurement{"decision to retirement": nil, "a/b": nil, "a b": nil, "µs": nil, "x-1": nil}
	want := map[string]string{
		"a b": "out/p_a_b.png", "a/b": "out/p_a_b_2.png", "decision to retirement": "out/p_decision_to_retirement.png",
		"x-1": "out/p_x-1.png", "µs": "out/p_s.png",
	}
	if got := s.PlotPaths("out/p.png"); !maps.Equal(got, want) {
		t.Errorf("PlotPaths = %v, want %v", got, want)
	}
}

func TestPlotDrawsAPictureAMeasurement(t *testing.T) {
	s, _ := run(t, Config{Trials: 40, Seed: 7, Runners: sessions})
	dir := t.TempDir()
	drawn, err := s.Plot(filepath.Join(dir, "c.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "c_latency.svg"), filepath.Join(dir, "c_rounds.svg")}; !slices.Equal(drawn, want) {
		t.Fatalf("drew %v, want %v", drawn, want)
	}
	// Latency is recorded by retired trials alone, rounds by every trial.
	for i, wants := range [][]string{{"<title>latency by the trial&#39;s outcome (n = ", "latency (seconds, log scale)", "retired"}, {"<title>rounds by the trial&#39;s outcome (n = ", "\nrounds\n", "retired", "quarantined"}} {
		svg, err := os.ReadFile(drawn[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range append(wants, "<svg") {
			if !bytes.Contains(svg, []byte(want)) {
				t.Errorf("%s has no %q", drawn[i], want)
			}
		}
	}
	drawn, err = s.Plot(filepath.Join(dir, "c.png"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(drawn[1])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(f)
	// 16 cm x 10 cm at plot.DPI.
	if err != nil || format != "png" || cfg.Width != 605 || cfg.Height != 378 {
		t.Errorf("%s: %s %dx%d (%v), want a png of 605x378", drawn[1], format, cfg.Width, cfg.Height, err)
	}
	if _, err := s.Plot(filepath.Join(dir, "c.gif")); err == nil || !strings.Contains(err.Error(), "unknown picture format") {
		t.Errorf("a .gif: err = %v", err)
	}
	empty, err := Run(context.Background(), Config{Trials: 2, Runners: Func("none", func(_ context.Context, t *Trial) error { t.Outcome = "x"; return nil })})
	if err != nil {
		t.Fatal(err)
	}
	if drawn, err := empty.Plot(filepath.Join(dir, "none.svg")); len(drawn) != 0 || err != nil {
		t.Errorf("no measurements: drew %v, %v", drawn, err)
	}
}
