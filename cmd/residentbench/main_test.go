package main

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/residentlua/residentlua/devices/wait"
	"github.com/residentlua/residentlua/internal/bench"
)

func TestParseWaits(t *testing.T) {
	for name, want := range map[string][]wait.Policy{
		"spin":   {wait.Spin},
		"hybrid": {wait.Hybrid},
		"block":  {wait.Block},
		"all":    {wait.Hybrid, wait.Spin, wait.Block},
		"":       nil, // each table's default
	} {
		got, err := parseWaits(name)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseWaits(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := parseWaits("busy"); err == nil || !strings.Contains(err.Error(), "spin, hybrid, block or all") {
		t.Errorf("parseWaits(\"busy\") = %v; want an error listing the choices", err)
	}
	if got := waitNames(wait.Policies()); got != "hybrid,spin,block" {
		t.Errorf("waitNames = %q", got)
	}
	if got := waitNames(nil); got != "default" {
		t.Errorf("waitNames(nil) = %q, want default", got)
	}
}

// tableFigures are figures as the benchmarks make them, the longest names
// and goals of both tables among them.
var tableFigures = []bench.Figure{
	{Name: "publication latency (wait hybrid)", Unit: "µs", Value: bench.Sample{Median: 1.61, Low: 0.691, High: 3.51, N: 300},
		Baseline: &bench.Sample{Median: 0.361}, BaselineName: "raw round trip", Ratio: 4.46, Goal: "≤ 2×", Met: new(bool)},
	{Name: "CPU-bound loop, 4 independent chains (ceiling), 16 workers", Unit: "units/s", Value: bench.Sample{Median: 1.02e4, N: 7}, Ratio: 1.57, Goal: "report"},
	{Name: "built-in trials, 16 workers", Unit: "trials/s", Value: bench.Sample{Median: 7.15e3, N: 7}, Ratio: 0.39, Goal: "≥ 12.8× (0.8 × cores)", Met: new(bool)},
	{Name: "model checking: built-in scenario", Unit: "schedules/s", Value: bench.Sample{Median: 5.46e3, N: 3}, Goal: "report"},
	{Name: "resident memory after 100000 sessions", Unit: "MiB", Value: bench.Sample{Median: 21.1, N: 1},
		Baseline: &bench.Sample{Median: 20.2}, BaselineName: "after 1000; both past 1772 that fill the event ring", Ratio: 1.04, Goal: "≤ 1.10×", Met: new(bool)},
	{Name: "GPU: exchange cost per round (rounds 1000, kernel's clock, wait spin)", Unit: "µs", Value: bench.Sample{Median: 3.09, N: 7}, Ratio: 1.1, Goal: "≤ 1.2×", Met: new(bool)},
}

func TestTableFitsInAHundredColumns(t *testing.T) {
	var narrow, wide strings.Builder
	if err := writeNarrow(&narrow, tableFigures); err != nil {
		t.Fatal(err)
	}
	if err := writeWide(&wide, tableFigures); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(narrow.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > tableWidth {
			t.Errorf("a line of %d columns:\n%s", n, l)
		}
	}
	for _, f := range tableFigures {
		for _, word := range strings.Fields(f.Name) {
			if !strings.Contains(narrow.String(), word) {
				t.Errorf("the table lost %q of %q:\n%s", word, f.Name, narrow.String())
			}
		}
	}
	contains := func(s string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(s, w) {
				t.Errorf("lacks %q:\n%s", w, s)
			}
		}
	}
	contains(narrow.String(), "figure", "median", "\npublication latency (wait hybrid)", "1.61 µs", "4.46×", "NOT met", "≥ 12.8× (0.8 × cores)", "-wide")
	// -wide is the table of every column, as wide as it needs.
	contains(wide.String(), "baseline (same run)", "1.61 µs (p10 0.691, p90 3.51, n=300)", "0.361 µs (raw round trip)", "(after 1000; both past 1772 that fill the event ring)")
	if utf8.RuneCountInString(strings.Split(wide.String(), "\n")[1]) <= tableWidth {
		t.Errorf("-wide is not the wide table:\n%s", wide.String())
	}
}

func TestNoTableWithoutFigures(t *testing.T) {
	// A backend that cannot open measures nothing: the error, and no table
	// header before it.
	var out strings.Builder
	cannot := func(bench.Options) ([]bench.Figure, error) { return nil, errors.New("unsupported: no GPU") }
	err := run(&out, cannot, writeNarrow, bench.Options{Short: true}, "", "", "")
	if err == nil || strings.Contains(out.String(), "figure") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("err %v, output %q; want the error and no table", err, out.String())
	}
}

// -repeat runs the table again and again and keeps each figure's median
// run, counting the runs that met its goal; a run that fails ends the
// repeats with what came before it.
func TestRepeatedKeepsEachFiguresMedianRun(t *testing.T) {
	ratios := []float64{2.5, 1.4, 1.9, 1.2, 1.7}
	run := 0
	measure := func(bench.Options) ([]bench.Figure, error) {
		r := ratios[run]
		run++
		met := r <= 2
		return []bench.Figure{
			{Name: "exchange round trip (wait spin)", Unit: "µs", Value: bench.Sample{Median: r * 0.3}, Ratio: r, Goal: "≤ 2×", Met: &met},
			{Name: "real-time sessions (rounds 1, ideal)", Unit: "sessions/s", Value: bench.Sample{Median: 1000 * r}, Goal: "report"},
		}, nil
	}
	never := func() bool { return false }
	figures, err := repeated(measure, 5, never, io.Discard)(bench.Options{})
	if err != nil || len(figures) != 2 {
		t.Fatalf("repeated = %v, %v", figures, err)
	}
	ex, rt := figures[0], figures[1]
	if ex.Ratio != 1.7 || ex.MetIn() != 4 || len(ex.Runs) != 5 || ex.Runs[0].Value != 2.5 {
		t.Errorf("exchange: ratio %v, met in %d of %d, runs %+v; want the median 1.7, met in 4 of 5, in run order", ex.Ratio, ex.MetIn(), len(ex.Runs), ex.Runs)
	}
	if rt.Value.Median != 1700 {
		t.Errorf("sessions: median run %v, want 1700 (ordered by median without a ratio)", rt.Value.Median)
	}
	var narrow, wide strings.Builder
	if err := writeNarrow(&narrow, figures); err != nil {
		t.Fatal(err)
	}
	if err := writeWide(&wide, figures); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"runs met", "4/5", "median of 5 runs"} {
		if !strings.Contains(narrow.String(), want) {
			t.Errorf("narrow table lacks %q:\n%s", want, narrow.String())
		}
	}
	if !strings.Contains(wide.String(), "2.5 1.4 1.9 1.2 1.7") {
		t.Errorf("wide table lacks each run's ratio in order:\n%s", wide.String())
	}

	run = 0
	failing := func(o bench.Options) ([]bench.Figure, error) {
		if run == 2 {
			return nil, errors.New("the GPU fell off the bus")
		}
		return measure(o)
	}
	figures, err = repeated(failing, 5, never, io.Discard)(bench.Options{})
	if err == nil || len(figures) != 2 || len(figures[0].Runs) != 2 {
		t.Errorf("a failing third run gave %v, %v; want its error with the two runs before it", figures, err)
	}

	// Stopped (a first Ctrl-C) ends the repeats after the run in progress,
	// with the runs done.
	run = 0
	figures, err = repeated(measure, 5, func() bool { return run == 3 }, io.Discard)(bench.Options{})
	if err != nil || len(figures) != 2 || len(figures[0].Runs) != 3 || run != 3 {
		t.Errorf("stopped after the third run: %v, %v after %d runs; want three runs and no error", figures, err, run)
	}
}
