package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/residentlua/residentlua/internal/bench"
)

// tableWidth is the most columns the default table takes.
const tableWidth = 100

// writeWide writes every column of the figures (figure, value with p10,
// p90 and n, baseline, ratio, goal, met), each as wide as it needs.
func writeWide(w io.Writer, figures []bench.Figure) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "figure\tvalue\tbaseline (same run)\tratio\tgoal\tmet"
	if repeatedRuns(figures) {
		header += "\truns met\teach run"
	}
	fmt.Fprintln(tw, header)
	for _, f := range figures {
		row := f.Row()
		line := strings.Join(row[:], "\t")
		if repeatedRuns(figures) {
			var each []string
			for _, r := range f.Runs {
				each = append(each, fmt.Sprintf("%.3g", r.Value))
			}
			line += "\t" + runsMet(f) + "\t" + strings.Join(each, " ")
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// repeatedRuns reports whether the figures combine several runs.
func repeatedRuns(figures []bench.Figure) bool {
	return len(figures) > 0 && len(figures[0].Runs) > 1
}

// runsMet is "k/N" for a figure with a goal over N runs, "—" for one that
// is only reported.
func runsMet(f bench.Figure) string {
	if f.Met == nil {
		return "—"
	}
	return fmt.Sprintf("%d/%d", f.MetIn(), len(f.Runs))
}

// writeNarrow writes the figures in at most tableWidth columns: figure,
// median, ratio to the baseline, goal and met, the figure's name wrapped
// onto more lines where it must be; -wide shows the rest.
func writeNarrow(w io.Writer, figures []bench.Figure) error {
	header := []string{"figure", "median", "ratio", "goal", "met"}
	if repeatedRuns(figures) {
		header = append(header, "runs met")
	}
	rows := make([][]string, len(figures))
	for i, f := range figures {
		full := f.Row()
		ratio := "—"
		if f.Ratio != 0 {
			ratio = fmt.Sprintf("%.2f×", f.Ratio)
		}
		rows[i] = []string{f.Name, fmt.Sprintf("%.3g %s", f.Value.Median, f.Unit), ratio, f.Goal, full[5]}
		if repeatedRuns(figures) {
			rows[i] = append(rows[i], runsMet(f))
		}
	}
	widths := make([]int, len(header))
	for c := range header {
		for _, r := range append([][]string{header}, rows...) {
			widths[c] = max(widths[c], utf8.RuneCountInString(r[c]))
		}
	}
	const gap = "  "
	rest := 0
	for _, wd := range widths[1:] {
		rest += len(gap) + wd
	}
	widths[0] = max(min(widths[0], tableWidth-rest), 20)
	var b strings.Builder
	for _, r := range append([][]string{header}, rows...) {
		names := wrap(r[0], widths[0])
		for i, name := range names {
			line := pad(name, widths[0])
			if i == 0 {
				for c := 1; c < len(r); c++ {
					line += gap + pad(r[c], widths[c])
				}
			}
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	if repeatedRuns(figures) {
		fmt.Fprintf(&b, "each row is the median of %d runs (by ratio); runs met: how many met the goal; -wide lists each run's ratio\n", len(figures[0].Runs))
	}
	b.WriteString("ratio: the median over its baseline's, in this run; -wide adds the baselines, p10, p90 and n\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// pad is s with spaces to width columns.
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(width-utf8.RuneCountInString(s), 0))
}

// wrap breaks s into lines of at most width columns at spaces (a word
// longer than width gets a line of its own).
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}
