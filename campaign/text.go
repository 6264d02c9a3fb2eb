package campaign

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxListedFailures is how many failures Text lists; the JSON lists all.
const maxListedFailures = 100

// Text is the summary as the command prints it: what ran, the outcomes,
// the built-in trials' sessions and faults, the violations, a table of the
// measurements, and each failure with the command that replays it (none for
// a Go trial).
func (s *Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "campaign: %d %s, seeds %d..%d", s.Campaign, s.trials(), s.Seed, s.Seed+uint64(s.Campaign)-1)
	if s.Func == "" {
		b.WriteString(", simulated time") // a Go trial runs on whatever it makes
	}
	b.WriteString("\n")
	if s.Shard != nil {
		fmt.Fprintf(&b, "%s of %d: %d trials\n", ShardWords(s.Shard.Have), s.Shard.Of, s.Planned)
	}
	if s.Stopped() {
		fmt.Fprintf(&b, "stopped after %d of %d trials", s.Trials-s.Interrupted(), s.Planned)
		if n := s.Interrupted(); n > 0 {
			fmt.Fprintf(&b, "; %s interrupted", plural(n, "trial", "trials"))
		}
		b.WriteString("\n")
	}
	writeCounts(&b, "trials by outcome", s.Outcomes)
	writeCounts(&b, "sessions by how they ended", s.Sessions)
	writeCounts(&b, "faults fired, by site and action", s.Fired)
	s.writeReach(&b)
	fmt.Fprintf(&b, "oracle violations: %d\n", s.Violations)
	s.writeMeasurements(&b)
	fmt.Fprintf(&b, "failures: %d\n", len(s.Failures))
	for i, f := range s.Failures {
		if i == maxListedFailures {
			fmt.Fprintf(&b, "... and %d more (the --summary file lists every one)\n", len(s.Failures)-i)
			break
		}
		fmt.Fprintf(&b, "FAIL seed %d (%s): %s\n", f.Seed, f.Outcome, f.Message)
		if f.Replay != "" {
			fmt.Fprintf(&b, "  replay: %s\n", f.Replay)
		}
	}
	return b.String()
}

// plural is n with the noun, singular for 1: "1 trial", "2 trials".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// ShardWords names shards: "shard 2", "shards 0, 1 and 3".
func ShardWords(have []int) string {
	words := make([]string, len(have))
	for i, k := range have {
		words[i] = strconv.Itoa(k)
	}
	if len(words) == 1 {
		return "shard " + words[0]
	}
	return "shards " + strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// writeCounts lists counts under a title, the largest first; nothing when
// there are none.
func writeCounts(b *strings.Builder, title string, counts map[string]int) {
	if len(counts) == 0 {
		return
	}
	keys := slices.SortedFunc(maps.Keys(counts), func(x, y string) int {
		return cmp.Or(cmp.Compare(counts[y], counts[x]), cmp.Compare(x, y))
	})
	b.WriteString(title + ":\n")
	for _, k := range keys {
		fmt.Fprintf(b, "%8d  %s\n", counts[k], k)
	}
}

// writeMeasurements is the table of the measurements, by name.
func (s *Summary) writeMeasurements(b *strings.Builder) {
	if len(s.Measurements) == 0 {
		return
	}
	rows := [][]string{{"measurement", "count", "mean", "min", "p50", "p90", "p99", "p99.9", "max"}}
	for _, name := range slices.Sorted(maps.Keys(s.Measurements)) {
		m := s.Measurements[name]
		mean, exact, bucket := formatTime(m.Mean()), formatExactTime, formatTime
		if m.Whole {
			// A whole number's percentile is the whole number below its
			// bucket's highest value, as the JSON has it.
			mean, exact, bucket = formatCount(m.Mean()), formatExactCount, formatExactCount
		}
		rows = append(rows, []string{name, strconv.FormatInt(m.Count, 10), mean, exact(m.Min),
			bucket(m.Quantile(50)), bucket(m.Quantile(90)), bucket(m.Quantile(99)), bucket(m.Quantile(99.9)), exact(m.Max)})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	b.WriteString("measurements (count: values recorded; min and max exact, the rest from an HDR histogram to 3 significant digits; times with their unit, whole numbers as counts):\n")
	for _, r := range rows {
		b.WriteString(" ")
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(" " + c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteString("\n")
	}
}

// round3 rounds v to 3 significant digits.
func round3(v float64) float64 {
	if v == 0 {
		return 0
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return f
}

// formatCount shows a count to 3 significant digits: 3, 2.5, 1230.
func formatCount(v float64) string {
	v = round3(v)
	if v >= 1e15 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// formatExactCount shows a whole number exactly: 2048.
func formatExactCount(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// formatExactTime shows seconds exactly, to the nanosecond (the unit of the
// histograms), with an SI prefix: 54.123µs, 1.5s, 812ns.
func formatExactTime(v float64) string {
	ns := math.Round(v * nanos)
	if ns == 0 || ns >= 1e18 {
		return formatTime(v)
	}
	n := int64(ns)
	for _, u := range []struct {
		scale int64
		name  string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}} {
		if n >= u.scale {
			whole, frac := strconv.FormatInt(n/u.scale, 10), strconv.FormatInt(u.scale+n%u.scale, 10)[1:]
			if frac = strings.TrimRight(frac, "0"); frac != "" {
				whole += "." + frac
			}
			return whole + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "ns"
}

// formatTime shows seconds to 3 significant digits with an SI prefix:
// 812ns, 1.5µs, 23.4ms, 2s; far below a nanosecond, in exponent form
// (1e-291ns), so a column stays a few characters wide.
func formatTime(v float64) string {
	v = round3(v)
	if v == 0 {
		return "0s"
	}
	scale, unit := 1e-9, "ns"
	for _, u := range []struct {
		scale float64
		name  string
	}{{1, "s"}, {1e-3, "ms"}, {1e-6, "µs"}} {
		if v >= u.scale {
			scale, unit = u.scale, u.name
			break
		}
	}
	x := round3(v / scale)
	if ax := math.Abs(x); ax >= 1e4 || ax < 1e-3 { // a short number, never hundreds of zeros
		return strconv.FormatFloat(x, 'g', 3, 64) + unit
	}
	return strconv.FormatFloat(x, 'f', -1, 64) + unit
}
