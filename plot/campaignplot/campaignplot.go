// Package campaignplot draws the pictures of a campaign's summary: each
// measurement's distribution as a CDF, one line per outcome of the trials
// that recorded it, into SVG or PNG files that package plot draws. The
// lines come from the summary's histograms, so a merged summary draws the
// same pictures as a single run. residentlua campaign --plot draws with it:
//
//	drawn, err := campaignplot.Draw(sum, "c.svg") // c_latency.svg, c_rounds.svg, ...
//
// It lives beside package plot rather than in package campaign, so that a
// program that runs campaigns without drawing them does not link the
// plotting library.
package campaignplot

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/plot"
)

// maxValues bounds the values a picture's line is drawn from: plot.CDF
// draws about 2000 steps of a line anyway.
const maxValues = 4000

// Paths returns the files Draw draws s's measurements into, by measurement
// name: path itself for a single measurement, and for several one file
// each, path's name with "_" and the measurement's name (made safe for a
// file name: runs of characters other than ASCII letters, digits and "-"
// become "_", and a name that another one already gave is numbered) before
// the extension: "lat.svg" gives "lat_decision_to_retirement.svg".
func Paths(s *campaign.Summary, path string) map[string]string {
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

// Draw draws each of s's measurements as a CDF, one line per outcome of
// the trials that recorded it, into the SVG or PNG files Paths names
// (nothing when no measurement was recorded), and returns the files drawn
// in the order of the measurements' names. Times are drawn on a log-scaled
// axis of seconds (a time of 0 is counted in the legend, never drawn as a
// small time), counts on a linear one labelled with the measurement's
// name.
func Draw(s *campaign.Summary, path string) ([]string, error) {
	if err := plot.CheckFormat(path); err != nil {
		return nil, err
	}
	paths := Paths(s, path)
	var drawn []string
	for _, name := range slices.Sorted(maps.Keys(s.Measurements)) {
		if err := DrawMeasurement(s, name, paths[name]); err != nil {
			return drawn, err
		}
		drawn = append(drawn, paths[name])
	}
	return drawn, nil
}

// DrawMeasurement draws the picture of s's measurement name (one of
// Paths's) into file, as Draw does.
func DrawMeasurement(s *campaign.Summary, name, file string) error {
	m := s.Measurements[name]
	if m == nil {
		return fmt.Errorf("no measurement %q to draw", name)
	}
	xLabel := name + " (seconds, log scale)"
	if m.Whole {
		xLabel = name
	}
	title := fmt.Sprintf("%s by the trial's outcome (n = %d)", name, m.Count)
	if err := plot.CDF(file, title, xLabel, m.ByOutcome(maxValues), !m.Whole); err != nil {
		return fmt.Errorf("measurement %q: %w", name, err)
	}
	return nil
}
