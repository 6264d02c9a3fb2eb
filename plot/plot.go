// Package plot draws the pictures of residentlua's experiments: the
// distribution of a measurement as a CDF (one line per series, latencies on a
// log-scaled axis) and a figure against a parameter (one line per series).
//
// Pictures are 16 cm x 10 cm: an SVG file says width="453.54pt"
// height="283.46pt"; a PNG file is 605 x 378 pixels (96 dots per inch). The
// format follows the file's extension, .svg or .png. Series are drawn in the
// sorted order of their names, so the same data always gives the same file.
// A file is written to a temporary file in its directory and renamed into
// place: a reader never sees half a picture.
package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The size of every picture.
const (
	Width  = 16 * vg.Centimeter
	Height = 10 * vg.Centimeter
	DPI    = 96 // the resolution of a PNG picture, in dots per inch
)

// formats are the extensions of the picture formats, in the words errors use.
var formats = []string{".svg", ".png"}

// maxCDFPoints bounds the steps a CDF line has: a campaign's million values
// would make an SVG of tens of megabytes for no visible difference (the
// picture is 605 pixels wide).
const maxCDFPoints = 2000

// Point is one point of a line: Y against X.
type Point struct{ X, Y float64 }

// CDF draws each series' empirical distribution as a cumulative
// distribution function, one line per series with a legend, into the SVG or
// PNG file path (16 cm x 10 cm). The x axis is labelled xLabel and is
// log-scaled when logX is set (for latencies; every value must then be 0 or
// more); the y axis is the fraction of values at most x, from 0 to 1.
// Zeros, which a log-scaled axis has no place for, are not moved anywhere:
// the legend counts them ("retired (12 of 40 are 0)") and the line starts
// at their fraction at the axis's left end, as the distribution does (the
// axis is linear when no value at all is above 0). A series of many values
// is drawn through about 2000 of its steps, evenly spaced in rank (the
// picture is 605 pixels wide).
func CDF(path, title, xLabel string, series map[string][]float64, logX bool) error {
	names, err := seriesNames(path, series)
	if err != nil {
		return err
	}
	lo, hi := math.Inf(1), math.Inf(-1) // the positive values' range
	var xs span                         // every value's range
	for _, name := range names {
		for i, v := range series[name] {
			if err := checkValue(name, "value", i, v, false, "x"); err != nil {
				return err
			}
			if logX && v < 0 {
				return fmt.Errorf("plot: series %q: value %d has x = %v, but the x axis is log-scaled and needs values ≥ 0 (zeros are counted in the legend); drop the value or use a linear axis", name, i+1, v)
			}
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			xs.add(v)
		}
	}
	if err := xs.check("x"); err != nil {
		return err
	}
	logX = logX && hi > 0
	var xMin, xMax float64
	if logX {
		xMin, xMax = decades(lo, hi)
	}
	p := newPlot(title, xLabel, "fraction of values ≤ x")
	p.Legend.Top = false // a CDF leaves its lower right corner empty
	for i, name := range names {
		pts := cdfPoints(series[name])
		zeros := countZeros(series[name])
		if logX && zeros > 0 {
			pts = fromAxis(pts, xMin, xMax, float64(zeros)/float64(len(series[name])))
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("plot: series %q: %w", name, err)
		}
		l.StepStyle = plotter.PostStep
		styleLine(l, i)
		p.Add(l)
		p.Legend.Add(name+zerosNote(zeros, len(series[name])), l)
	}
	p.Y.Min, p.Y.Max = 0, 1
	linearAxis(&p.Y)
	if logX {
		logAxis(&p.X)
		p.X.Min, p.X.Max = xMin, xMax
	} else {
		linearAxis(&p.X)
	}
	return save(p, path)
}

// countZeros counts the values that are 0.
func countZeros(values []float64) int {
	n := 0
	for _, v := range values {
		if v == 0 {
			n++
		}
	}
	return n
}

// zerosNote is what a series' legend entry adds about its zeros.
func zerosNote(zeros, n int) string {
	switch {
	case zeros == 0:
		return ""
	case n == 1:
		return " (its one value is 0)"
	case zeros == n:
		return fmt.Sprintf(" (all %d are 0)", n)
	case zeros == 1:
		return fmt.Sprintf(" (1 of %d is 0)", n)
	}
	return fmt.Sprintf(" (%d of %d are 0)", zeros, n)
}

// fromAxis is a CDF's steps on a log-scaled axis from xMin to xMax: the
// steps at 0 give way to one point at the axis's left end at the zeros'
// fraction, and a series of zeros alone is a line at 1 across the axis.
func fromAxis(pts plotter.XYs, xMin, xMax, zeroFraction float64) plotter.XYs {
	out := plotter.XYs{{X: xMin, Y: zeroFraction}}
	for _, pt := range pts {
		if pt.X > 0 {
			out = append(out, pt)
		}
	}
	if len(out) == 1 {
		out = append(out, plotter.XY{X: xMax, Y: zeroFraction})
	}
	return out
}

// Lines draws y against x, one line per series (its points joined in the
// order given, each marked) with a legend, into the SVG or PNG file path
// (16 cm x 10 cm). The axes are labelled xLabel and yLabel and are
// log-scaled when logX or logY is set (every value on such an axis must then
// be positive).
func Lines(path, title, xLabel, yLabel string, series map[string][]Point, logX, logY bool) error {
	names, err := seriesNames(path, series)
	if err != nil {
		return err
	}
	var xs, ys span
	for _, name := range names {
		for i, pt := range series[name] {
			if err := checkValue(name, "point", i, pt.X, logX, "x"); err != nil {
				return err
			}
			if err := checkValue(name, "point", i, pt.Y, logY, "y"); err != nil {
				return err
			}
			xs.add(pt.X)
			ys.add(pt.Y)
		}
	}
	if err := xs.check("x"); err != nil {
		return err
	}
	if err := ys.check("y"); err != nil {
		return err
	}
	p := newPlot(title, xLabel, yLabel)
	p.Legend.Top, p.Legend.Left = true, true // rising figures leave the upper left corner empty
	for i, name := range names {
		pts := make(plotter.XYs, len(series[name]))
		for j, pt := range series[name] {
			pts[j] = plotter.XY{X: pt.X, Y: pt.Y}
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("plot: series %q: %w", name, err)
		}
		styleLine(l, i)
		s.Color, s.Shape = plotutil.Color(i), plotutil.Shape(i)
		p.Add(l, s)
		p.Legend.Add(name, l, s)
	}
	for _, a := range []struct {
		axis *gplot.Axis
		log  bool
	}{{&p.X, logX}, {&p.Y, logY}} {
		if a.log {
			logAxis(a.axis)
		} else {
			linearAxis(a.axis)
		}
	}
	return save(p, path)
}

// styleLine gives the line of series i its colour, dashes and width.
func styleLine(l *plotter.Line, i int) {
	l.Color = plotutil.Color(i)
	l.Dashes = plotutil.Dashes(i)
	l.Width = vg.Points(1.5)
}

// CheckFormat says why path cannot be a picture's file: its extension (any
// case) names no format this package writes. A command can call it before a
// long run whose picture it will draw at the end.
func CheckFormat(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if !slices.Contains(formats, ext) {
		if ext == "" {
			return fmt.Errorf("plot: %s has no extension to say the picture's format; supported are %s", path, strings.Join(formats, " and "))
		}
		return fmt.Errorf("plot: %s: unknown picture format %q; supported are %s", path, ext, strings.Join(formats, " and "))
	}
	return nil
}

// seriesNames checks path's format (CheckFormat) and returns the series'
// names, sorted, or the error that says why there is nothing to draw
// (about the first bad series in that order, so that the same input always
// gets the same error).
func seriesNames[V any](path string, series map[string][]V) ([]string, error) {
	if err := CheckFormat(path); err != nil {
		return nil, err
	}
	if len(series) == 0 {
		return nil, errors.New("plot: no series to draw; give at least one named series")
	}
	names := slices.Sorted(maps.Keys(series))
	for _, name := range names {
		if name == "" {
			return nil, errors.New("plot: a series has an empty name; the legend needs a name for every series")
		}
		if len(series[name]) == 0 {
			return nil, fmt.Errorf("plot: series %q is empty; give it at least one value or leave it out", name)
		}
	}
	return names, nil
}

// checkValue says what is wrong with the i-th value (0-based) of a series:
// not finite, or not positive on a log-scaled axis.
func checkValue(name, what string, i int, v float64, logScale bool, axis string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("plot: series %q: %s %d has %s = %v; values must be finite numbers", name, what, i+1, axis, v)
	}
	if logScale && v <= 0 {
		return fmt.Errorf("plot: series %q: %s %d has %s = %v, but the %s axis is log-scaled and needs values > 0; drop the value or use a linear axis", name, what, i+1, axis, v, axis)
	}
	return nil
}

// span is the range of an axis's values.
type span struct {
	lo, hi float64
	any    bool
}

func (s *span) add(v float64) {
	if !s.any || v < s.lo {
		s.lo = v
	}
	if !s.any || v > s.hi {
		s.hi = v
	}
	s.any = true
}

// check refuses a range whose width is not a finite number (values near
// ±1.8e308 on both sides), which no axis can be divided into ticks.
func (s *span) check(axis string) error {
	if w := s.hi - s.lo; math.IsInf(w, 0) {
		return fmt.Errorf("plot: the %s values span %v to %v, a range too wide to draw (its width is not a finite number); scale the values down", axis, s.lo, s.hi)
	}
	return nil
}

// cdfPoints returns the steps of the empirical CDF of values: (x, fraction of
// values ≤ x) at each distinct x, from (smallest, 0), thinned to about
// maxCDFPoints steps evenly spaced in rank.
func cdfPoints(values []float64) plotter.XYs {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	n := len(sorted)
	pts := plotter.XYs{{X: sorted[0], Y: 0}}
	step := (n + maxCDFPoints - 1) / maxCDFPoints
	for i := 0; i < n; i++ {
		last := i == n-1 || sorted[i+1] != sorted[i] // the last of equal values holds their fraction
		if last && ((i+1)%step == 0 || i == n-1) {
			pts = append(pts, plotter.XY{X: sorted[i], Y: float64(i+1) / float64(n)})
		}
	}
	return pts
}

// newPlot makes a plot with the title and axis labels and a grid.
func newPlot(title, xLabel, yLabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 220}
	grid.Horizontal.Color = color.Gray{Y: 220}
	p.Add(grid)
	return p
}

// logAxis log-scales an axis whose values are all positive and widens it to
// whole decades, so that at least two ticks are labelled. A value on a
// decade at either end gets one more decade, so that it is not drawn on the
// axis.
func logAxis(a *gplot.Axis) {
	a.Scale = gplot.LogScale{}
	a.Tick.Marker = decadeTicks{}
	a.Min, a.Max = decades(a.Min, a.Max)
}

// decades is the range of whole decades that holds lo to hi (both
// positive) with room at either end.
func decades(lo, hi float64) (min, max float64) {
	min = math.Pow(10, math.Floor(math.Log10(lo)))
	if lo/min < 1.0001 {
		min /= 10
	}
	max = math.Pow(10, math.Ceil(math.Log10(hi)))
	if max/hi < 1.0001 {
		max *= 10
	}
	return min, max
}

// linearAxis labels a linear axis without spurious decimals and widens it
// by a twentieth of its span at either end, so that no series is drawn on
// the axis line, where it would hide.
func linearAxis(a *gplot.Axis) {
	a.Tick.Marker = linearTicks{}
	span := a.Max - a.Min
	if span == 0 {
		span = math.Max(math.Abs(a.Max), 1)
	}
	a.Min -= span / 20
	a.Max += span / 20
}

// Margins kept free at the right and top edges of a picture, so that the
// last tick label and the title are never flush with the edge.
const (
	rightMargin = 8 * vg.Length(1)
	topMargin   = 4 * vg.Length(1)
)

// save renders the plot in the format of path's extension, its text as
// outlines (glyphCanvas), and writes it through a temporary file renamed
// into place.
func save(p *gplot.Plot, path string) (err error) {
	svg := strings.ToLower(filepath.Ext(path)) == ".svg"
	var inner vg.CanvasWriterTo = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(DPI))}
	if svg {
		inner = vgsvg.New(Width, Height)
	}
	c := newGlyphCanvas(inner)
	if err := render(p, c); err != nil {
		return err
	}
	var out io.WriterTo = c
	if svg {
		out = titledSVG{c: c, title: p.Title.Text}
	}
	return writeFile(path, out)
}

// render draws p on c, within the margins, turning a panic of the plotting
// library (its answer to data it cannot draw) into an error.
func render(p *gplot.Plot, c vg.CanvasSizer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: cannot draw the picture: %v", r)
		}
	}()
	p.Draw(draw.Crop(draw.New(c), 0, -rightMargin, 0, -topMargin))
	return nil
}

// writeFile writes w to a temporary file next to path and renames it to
// path, so that path is either the old file or the whole new one. Its
// errors name path, never the temporary file, which the caller never
// asked for.
func writeFile(path string, w io.WriterTo) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return writeError(path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = w.WriteTo(f); err != nil {
		return writeError(path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return writeError(path, err)
	}
	if err = f.Close(); err != nil {
		return writeError(path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return writeError(path, err)
	}
	return nil
}

// writeError is a failure to write path: "plot: cannot write PATH: why",
// an *fs.PathError about path whatever file the failure was about.
func writeError(path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("plot: %w", &fs.PathError{Op: "cannot write", Path: path, Err: err})
}
