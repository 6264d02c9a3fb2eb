package plot

import (
	"math"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
)

// linearTicks marks a linear axis where gonum's DefaultTicks does, and
// labels the ticks with as few decimals as they need, the same number for
// every label: 25, 75, 125 rather than 25.00, 75.00, 125.00, and 0.0, 0.5,
// 1.0 rather than 0.00, 0.50, 1.00.
type linearTicks struct{}

// Ticks returns the ticks from min to max.
func (linearTicks) Ticks(min, max float64) []gplot.Tick {
	ticks := gplot.DefaultTicks{}.Ticks(min, max)
	decimals := 0
	for ; decimals < 6; decimals++ {
		if labelsExact(ticks, decimals) {
			break
		}
	}
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'f', decimals, 64)
		}
	}
	return ticks
}

// labelsExact reports whether every labelled tick, written with decimals
// decimals, reads back as its value (to a millionth of the largest).
func labelsExact(ticks []gplot.Tick, decimals int) bool {
	largest := 0.0
	for _, t := range ticks {
		largest = math.Max(largest, math.Abs(t.Value))
	}
	for _, t := range ticks {
		if t.Label == "" {
			continue
		}
		back, _ := strconv.ParseFloat(strconv.FormatFloat(t.Value, 'f', decimals, 64), 64)
		if math.Abs(back-t.Value) > 1e-6*largest {
			return false
		}
	}
	return true
}

// decadeTicks marks a log-scaled axis: a labelled tick at every power of ten
// and unlabelled ones at its multiples 2 to 9. (gonum's LogTicks rounds the
// first decade towards zero and can leave a narrow axis with no label.)
type decadeTicks struct{}

// Ticks returns the ticks from min to max (both positive).
func (decadeTicks) Ticks(min, max float64) []gplot.Tick {
	var ticks []gplot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		decade := math.Pow(10, e)
		ticks = append(ticks, gplot.Tick{Value: decade, Label: decadeLabel(decade)})
		for m := 2.0; m < 10; m++ {
			ticks = append(ticks, gplot.Tick{Value: m * decade})
		}
	}
	return ticks
}

// decadeLabel writes a power of ten as %g does, without the exponent's
// padding zero: 1e-9, 1e-5, 0.0001, 100, 1e+6.
func decadeLabel(decade float64) string {
	s := strconv.FormatFloat(decade, 'g', -1, 64)
	s = strings.Replace(s, "e-0", "e-", 1)
	return strings.Replace(s, "e+0", "e+", 1)
}
