package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/residentlua/residentlua/bench"
)

// tableWidth is the most columns the default table takes.
const tableWidth = 100

// writeWide writes every column of the figures (figure, value with p10,
// p90 and n, baseline, ratio, goal, met), each as wide as it needs.
func writeWide(w io.Writer, figures []bench.Figure) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tvalue\tbaseline (same run)\tratio\tgoal\tmet")
	for _, f := range figures {
		row := f.Row()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", row[0], row[1], row[2], row[3], row[4], row[5])
	}
	return tw.Flush()
}

// writeNarrow writes the figures in at most tableWidth columns: figure,
// median, ratio to the baseline, goal and met, the figure's name wrapped
// onto more lines where it must be; -wide shows the rest.
func writeNarrow(w io.Writer, figures []bench.Figure) error {
	header := []string{"figure", "median", "ratio", "goal", "met"}
	rows := make([][]string, len(figures))
	for i, f := range figures {
		full := f.Row()
		ratio := "—"
		if f.Ratio != 0 {
			ratio = fmt.Sprintf("%.2f×", f.Ratio)
		}
		rows[i] = []string{f.Name, fmt.Sprintf("%.3g %s", f.Value.Median, f.Unit), ratio, f.Goal, full[5]}
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
