// Package bench measures residentlua's figures beside the floors the machine
// sets, in one run, for cmd/residentbench and for `go test -bench`.
package bench

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Sample summarises repeated measurements of one quantity.
type Sample struct {
	Median float64 `json:"median"`
	Low    float64 `json:"p10"`
	High   float64 `json:"p90"`
	N      int     `json:"n"`
}

// Summarise sorts values and takes their median and 10th/90th percentiles.
func Summarise(values []float64) Sample {
	if len(values) == 0 {
		return Sample{Median: math.NaN(), Low: math.NaN(), High: math.NaN()}
	}
	v := slices.Clone(values)
	slices.Sort(v)
	at := func(q float64) float64 { return v[int(q*float64(len(v)-1)+0.5)] }
	return Sample{Median: at(0.5), Low: at(0.1), High: at(0.9), N: len(v)}
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Figure is one row of the table.
type Figure struct {
	Name     string  `json:"figure"`
	Unit     string  `json:"unit"`
	Value    Sample  `json:"value"`
	Baseline *Sample `json:"baseline,omitempty"`
	// BaselineName says what the baseline is.
	BaselineName string `json:"baseline_name,omitempty"`
	// Ratio is Value/Baseline (or the figure's own ratio, such as a speed-up).
	Ratio float64 `json:"ratio,omitempty"`
	// Goal is the goal in words, such as "≤ 2×".
	Goal string `json:"goal"`
	// Met is nil for figures that are only reported.
	Met *bool `json:"met,omitempty"`
	// Runs is each run's result, in run order, when the figure is the
	// median of several runs of the table (Combine).
	Runs []RunResult `json:"runs,omitempty"`
}

// RunResult is one run's result for a figure of several runs: its ratio (its
// median, for a figure without one) and whether it met the goal.
type RunResult struct {
	Value float64 `json:"value"`
	Met   *bool   `json:"met,omitempty"`
}

// key is what orders a figure's runs: its ratio, or its median without one.
func (f Figure) key() float64 {
	if f.Ratio != 0 {
		return f.Ratio
	}
	return f.Value.Median
}

// Combine makes one table of several runs of it (interleaved repeats in
// one process): each figure is its median run's (the lower of the middle
// two for an even count), ordered by ratio, or by median where it has no
// ratio, with every run's result in Runs. A figure missing from some runs
// is the median of those it is in.
func Combine(tables [][]Figure) []Figure {
	var order []string
	byName := map[string][]Figure{}
	for _, table := range tables {
		for _, f := range table {
			if _, seen := byName[f.Name]; !seen {
				order = append(order, f.Name)
			}
			byName[f.Name] = append(byName[f.Name], f)
		}
	}
	out := make([]Figure, 0, len(order))
	for _, name := range order {
		runs := byName[name]
		sorted := slices.Clone(runs)
		slices.SortStableFunc(sorted, func(a, b Figure) int { return cmp.Compare(a.key(), b.key()) })
		f := sorted[(len(sorted)-1)/2]
		f.Runs = make([]RunResult, len(runs))
		for i, r := range runs {
			f.Runs[i] = RunResult{Value: r.key(), Met: r.Met}
		}
		out = append(out, f)
	}
	return out
}

// MetIn counts the runs that met the figure's goal.
func (f Figure) MetIn() int {
	n := 0
	for _, r := range f.Runs {
		if r.Met != nil && *r.Met {
			n++
		}
	}
	return n
}

func (f *Figure) compare(baseline Sample, name string, ratio float64, goal string, met bool) {
	f.Baseline, f.BaselineName, f.Ratio, f.Goal, f.Met = &baseline, name, ratio, goal, &met
}

// Row formats the figure as a table row.
func (f Figure) Row() []string {
	val := fmt.Sprintf("%.3g %s (p10 %.3g, p90 %.3g, n=%d)", f.Value.Median, f.Unit, f.Value.Low, f.Value.High, f.Value.N)
	base, ratio, met := "—", "—", "report"
	if f.Baseline != nil {
		base = fmt.Sprintf("%.3g %s (%s)", f.Baseline.Median, f.Unit, f.BaselineName)
	}
	if f.Ratio != 0 {
		ratio = fmt.Sprintf("%.2f", f.Ratio)
	}
	if f.Met != nil {
		met = map[bool]string{true: "met", false: "NOT met"}[*f.Met]
	}
	return []string{f.Name, val, base, ratio, f.Goal, met}
}
