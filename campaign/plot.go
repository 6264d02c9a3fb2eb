package campaign

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/residentlua/residentlua/plot"
)

// maxPlotValues bounds the values a picture's line is drawn from: plot.CDF
// draws about 2000 steps of a line anyway.
const maxPlotValues = 4000

// PlotPaths returns the files Plot draws the measurements into, by
// measurement name: path itself for a single measurement, and for several
// one file each, path's name with "_" and the measurement's name (made safe
// for a file name: runs of characters other than ASCII letters, digits and
// "-" become "_", and a name that another one already gave is numbered)
// before the extension: "lat.svg" gives "lat_decision_to_retirement.svg".
func (s *Summary) PlotPaths(path string) map[string]string {
	names := slices.Sorted(maps.Keys(s.Measurements))
	if len(names) == 1 {
		return map[string]string{names[0]: path}
	}
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	paths := map[string]string{}
	taken := map[string]bool{}
	for _, name := range names {
		safe := safeFileName(name)
		for n := 2; taken[safe]; n++ {
			safe = safeFileName(name) + "_" + strconv.Itoa(n)
		}
		taken[safe] = true
		paths[name] = base + "_" + safe + ext
	}
	return paths
}

// safeFileName is name with each run of characters other than ASCII letters,
// digits and "-" turned into one "_", and no "_" at either end; "m" when
// nothing is left.
func safeFileName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else if !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	if safe := strings.Trim(b.String(), "_"); safe != "" {
		return safe
	}
	return "m"
}

// Plot draws each measurement's distribution as a CDF, one line per outcome
// of the trials that recorded it, into the SVG or PNG files PlotPaths names
// (nothing when no measurement was recorded), and returns the files drawn
// in the order of the measurements' names. Times are drawn on a log-scaled
// axis of seconds (a time of 0 is counted in the legend, never drawn as a
// small time), counts on a linear one labelled with the measurement's
// name. The lines come from the histograms, so a merged summary draws the
// same pictures as a single run.
func (s *Summary) Plot(path string) ([]string, error) {
	if err := plot.CheckFormat(path); err != nil {
		return nil, err
	}
	paths := s.PlotPaths(path)
	var drawn []string
	for _, name := range slices.Sorted(maps.Keys(s.Measurements)) {
		if err := s.PlotMeasurement(name, paths[name]); err != nil {
			return drawn, err
		}
		drawn = append(drawn, paths[name])
	}
	return drawn, nil
}

// PlotMeasurement draws the picture of the measurement name (one of
// PlotPaths's) into file, as Plot does.
func (s *Summary) PlotMeasurement(name, file string) error {
	m := s.Measurements[name]
	if m == nil {
		return fmt.Errorf("no measurement %q to draw", name)
	}
	xLabel := name + " (seconds, log scale)"
	if m.Whole {
		xLabel = name
	}
	title := fmt.Sprintf("%s by the trial's outcome (n = %d)", name, m.Count)
	if err := plot.CDF(file, title, xLabel, m.plotSeries(), !m.Whole); err != nil {
		return fmt.Errorf("measurement %q: %w", name, err)
	}
	return nil
}

// plotSeries is the values of each outcome's line: one line of every value
// when the measurement kept too many outcomes apart.
func (m *Measurement) plotSeries() map[string][]float64 {
	if m.manyOutcomes {
		return map[string][]float64{fmt.Sprintf("all (over %d outcomes)", MaxOutcomes): m.plotValues(m.hist)}
	}
	series := map[string][]float64{}
	for outcome, h := range m.byOutcome {
		if outcome == "" {
			outcome = `""`
		}
		series[outcome] = m.plotValues(h)
	}
	return series
}

// plotValues returns at most maxPlotValues values whose distribution is h's,
// as the measurement's figures show them: every value when h holds that many
// at most, or else the values of evenly spaced ranks (the k-th of n has rank
// ⌈k·total/n⌉), each its bucket's highest value.
func (m *Measurement) plotValues(h *hdrhistogram.Histogram) []float64 {
	total := h.TotalCount()
	n := min(total, maxPlotValues)
	values := make([]float64, 0, n)
	var before int64 // values in the buckets before b
	for _, b := range h.Distribution() {
		for int64(len(values)) < n && (int64(len(values)+1)*total+n-1)/n <= before+b.Count {
			values = append(values, m.value(b.To))
		}
		before += b.Count
	}
	return values
}
