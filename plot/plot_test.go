package plot

import (
	"bytes"
	"encoding/xml"
	"image"
	_ "image/png" // image.DecodeConfig reads PNG
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gplot "gonum.org/v1/plot"
)

// latencies are two series of latencies in seconds, the kind a campaign records.
var latencies = map[string][]float64{
	"retired":     {3e-6, 4e-6, 4e-6, 5e-6, 9e-6, 2e-5},
	"quarantined": {1e-4, 3e-4, 2e-3},
}

// sweep is a figure against slot size, one series per credits value.
var sweep = map[string][]Point{
	"credits=1": {{64, 10}, {256, 35}, {1024, 90}, {4096, 180}},
	"credits=2": {{64, 12}, {256, 40}, {1024, 110}, {4096, 200}},
}

// svgRoot is what a test reads of an SVG file: its root, its title and the
// strings it drew (its description).
type svgRoot struct {
	XMLName xml.Name
	Width   string `xml:"width,attr"`
	Height  string `xml:"height,attr"`
	Title   string `xml:"title"`
	Desc    string `xml:"desc"`
	Texts   []string
}

// readSVG parses path as XML, checks its root is a 16 cm x 10 cm <svg> that
// draws its text as outlines (no <text> element, at any depth), and
// collects the strings its description says it drew.
func readSVG(t *testing.T, path string) (root svgRoot, raw string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, &root); err != nil {
		t.Fatalf("%s is not XML: %v", path, err)
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("%s: root element %v, want svg", path, root.XMLName)
	}
	// 16 cm = 453.54 pt, 10 cm = 283.46 pt.
	if root.Width != "453.54pt" || root.Height != "283.46pt" {
		t.Errorf("%s: size %s x %s, want 453.54pt x 283.46pt", path, root.Width, root.Height)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not XML: %v", path, err)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "text" {
			t.Errorf("%s has a <text> element: its text is to be drawn as outlines", path)
		}
	}
	root.Texts = strings.Split(strings.Trim(root.Desc, "\n"), "\n")
	return root, string(b)
}

// checkPNG decodes path's header and checks it is a PNG of 605 x 378 pixels
// (16 cm x 10 cm at 96 dpi).
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s is not an image: %v", path, err)
	}
	if format != "png" || cfg.Width != 605 || cfg.Height != 378 {
		t.Errorf("%s: %s of %d x %d pixels, want png of 605 x 378", path, format, cfg.Width, cfg.Height)
	}
}

// TestCDFSVG draws a log-scaled CDF and checks the file is SVG of the
// picture's size naming every series, the title and the axis.
func TestCDFSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "latency.svg")
	if err := CDF(path, "round latency", "seconds", latencies, true); err != nil {
		t.Fatal(err)
	}
	root, _ := readSVG(t, path)
	if root.Title != "round latency" {
		t.Errorf("SVG title %q, want the picture's", root.Title)
	}
	for _, want := range []string{"retired", "quarantined", "round latency", "seconds", "1e-6", "0.001"} {
		if !hasText(root.Texts, want) {
			t.Errorf("no text %q in the SVG; texts are %q", want, root.Texts)
		}
	}
}

// hasText reports whether one of texts is want.
func hasText(texts []string, want string) bool {
	for _, s := range texts {
		if strings.TrimSpace(s) == want {
			return true
		}
	}
	return false
}

// TestCDFPNG draws a linear CDF as PNG and checks its pixel size.
func TestCDFPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "latency.PNG")
	if err := CDF(path, "round latency", "seconds", latencies, false); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path)
}

// TestLinesSVGAndPNG draws the same lines in both formats, on log axes and
// linear ones.
func TestLinesSVGAndPNG(t *testing.T) {
	dir := t.TempDir()
	for _, logScale := range []bool{false, true} {
		svg, png := filepath.Join(dir, "sweep.svg"), filepath.Join(dir, "sweep.png")
		if err := Lines(svg, "exchange", "slot bytes", "MB/s", sweep, logScale, logScale); err != nil {
			t.Fatal(err)
		}
		if err := Lines(png, "exchange", "slot bytes", "MB/s", sweep, logScale, logScale); err != nil {
			t.Fatal(err)
		}
		root, _ := readSVG(t, svg)
		for _, want := range []string{"credits=1", "credits=2", "slot bytes", "MB/s"} {
			if !hasText(root.Texts, want) {
				t.Errorf("log=%v: no text %q in the SVG; texts are %q", logScale, want, root.Texts)
			}
		}
		checkPNG(t, png)
	}
}

// TestDeterministic draws the same data twice (map order varies from run to
// run) and wants the same bytes, with the series in sorted order.
func TestDeterministic(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.svg"), filepath.Join(dir, "b.svg")
	for _, path := range []string{a, b} {
		if err := CDF(path, "t", "x", latencies, true); err != nil {
			t.Fatal(err)
		}
	}
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ab, bb) {
		t.Fatal("the same data drew two different files")
	}
	root, _ := readSVG(t, a)
	if q, r := slices.Index(root.Texts, "quarantined"), slices.Index(root.Texts, "retired"); q < 0 || r < 0 || q > r {
		t.Errorf("legend order: quarantined at %d, retired at %d; want quarantined first", q, r)
	}
}

// TestSingleValue draws series of one value, whose axis range is a point.
func TestSingleValue(t *testing.T) {
	dir := t.TempDir()
	if err := CDF(filepath.Join(dir, "one.svg"), "", "s", map[string][]float64{"a": {0.5}}, true); err != nil {
		t.Fatal(err)
	}
	if err := Lines(filepath.Join(dir, "one.png"), "", "x", "y", map[string][]Point{"a": {{2, 3}}}, true, true); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, filepath.Join(dir, "one.png"))
}

// TestCDFPoints checks the steps of an empirical CDF, equal values merged.
func TestCDFPoints(t *testing.T) {
	got := cdfPoints([]float64{3, 1, 2, 2})
	want := []struct{ x, y float64 }{{1, 0}, {1, 0.25}, {2, 0.75}, {3, 1}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i, w := range want {
		if got[i].X != w.x || got[i].Y != w.y {
			t.Errorf("step %d = (%v, %v), want (%v, %v)", i, got[i].X, got[i].Y, w.x, w.y)
		}
	}
}

// TestCDFPointsThinned checks a long series is thinned to about
// maxCDFPoints steps that still end at (largest, 1).
func TestCDFPointsThinned(t *testing.T) {
	values := make([]float64, 100*maxCDFPoints+7)
	for i := range values {
		values[i] = float64(len(values) - i)
	}
	got := cdfPoints(values)
	if len(got) > maxCDFPoints+2 {
		t.Errorf("%d steps for %d values, want at most %d", len(got), len(values), maxCDFPoints+2)
	}
	if last := got[len(got)-1]; last.X != float64(len(values)) || last.Y != 1 {
		t.Errorf("last step (%v, %v), want (%d, 1)", last.X, last.Y, len(values))
	}
	for i := 1; i < len(got); i++ {
		if got[i].X < got[i-1].X || got[i].Y < got[i-1].Y {
			t.Fatalf("step %d (%v) goes back from %v", i, got[i], got[i-1])
		}
	}
}

// TestBadInput checks each refusal says what was wrong and writes nothing.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "x.svg")
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"no series", CDF(svg, "", "", nil, false), "no series to draw"},
		{"empty series", CDF(svg, "", "", map[string][]float64{"a": {}}, false), `series "a" is empty`},
		{"empty name", Lines(svg, "", "", "", map[string][]Point{"": {{1, 1}}}, false, false), "empty name"},
		{"unknown extension", CDF(filepath.Join(dir, "x.pdf"), "", "", latencies, false), `unknown picture format ".pdf"; supported are .svg and .png`},
		{"no extension", CDF(filepath.Join(dir, "x"), "", "", latencies, false), "no extension"},
		{"negative on log x", CDF(svg, "", "", map[string][]float64{"a": {1, -2}}, true), `series "a": value 2 has x = -2, but the x axis is log-scaled and needs values ≥ 0 (zeros are counted in the legend)`},
		{"negative on log y", Lines(svg, "", "", "", map[string][]Point{"b": {{1, 1}, {2, -1}}}, false, true), `series "b": point 2 has y = -1, but the y axis is log-scaled`},
		{"NaN", Lines(svg, "", "", "", map[string][]Point{"c": {{math.NaN(), 1}}}, false, false), `series "c": point 1 has x = NaN; values must be finite`},
		{"missing directory", CDF(filepath.Join(dir, "no", "x.svg"), "", "", latencies, false), "no such file or directory"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused pictures left files: %v", entries)
	}
}

// TestReplace checks a picture replaces an older file and leaves no
// temporary file behind.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.svg")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CDF(path, "", "x", latencies, false); err != nil {
		t.Fatal(err)
	}
	readSVG(t, path)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files after writing: %v, want p.svg alone", entries)
	}
}

// TestCheckFormat checks which names CheckFormat takes: .svg and .png in any
// case, nothing else.
func TestCheckFormat(t *testing.T) {
	for path, ok := range map[string]bool{"a.svg": true, "dir/a.PNG": true, "a.Svg": true, "a.pdf": false, "a": false, "a.svg.gz": false} {
		if err := CheckFormat(path); (err == nil) != ok {
			t.Errorf("CheckFormat(%q) = %v, want ok=%v", path, err, ok)
		}
	}
}

// TestTickLabels checks tick labels carry the decimals they need and no
// more, the same number on every label of an axis.
func TestTickLabels(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     []string
	}{
		{6, 132, []string{"25", "75", "125"}},
		{-0.3, 138.3, []string{"0", "40", "80", "120"}},
		{-0.05, 1.05, []string{"0.0", "0.5", "1.0"}},
		{0.5, 1.7, []string{"0.5", "1.0", "1.5"}},
	} {
		var got []string
		for _, tick := range (linearTicks{}).Ticks(tc.min, tc.max) {
			if tick.Label != "" {
				got = append(got, tick.Label)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ticks of [%v, %v] labelled %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
	if got := decadeLabel(1e-9); got != "1e-9" {
		t.Errorf("decade 1e-9 labelled %q", got)
	}
}

// TestNothingOnTheAxis checks the axes leave room for a series at their
// ends: a linear axis a twentieth of its span, a log-scaled one a decade
// past a value that falls on one.
func TestNothingOnTheAxis(t *testing.T) {
	a := gplot.New().X
	a.Min, a.Max = 0, 2048
	linearAxis(&a)
	if a.Min >= 0 || a.Max <= 2048 {
		t.Errorf("a linear axis of [0, 2048] spans [%v, %v]: a series at 0 or 2048 lies on its end", a.Min, a.Max)
	}
	if lo, hi := decades(1e-6, 0.3); lo != 1e-7 || hi != 1 {
		t.Errorf("decades(1e-6, 0.3) = %v, %v; want 1e-7, 1", lo, hi)
	}
}

// TestZerosCountedNotMadeUp checks a CDF on a log-scaled axis counts each
// series' zeros in its legend and starts its axis at the decade of the
// smallest value above 0, never at a made-up small time.
func TestZerosCountedNotMadeUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "z.svg")
	series := map[string][]float64{"ok": {0, 0, 2e-6, 1e-3}, "failed": {0}, "slow": {0.5}}
	if err := CDF(path, "elapsed", "seconds", series, true); err != nil {
		t.Fatal(err)
	}
	root, _ := readSVG(t, path)
	for _, want := range []string{"ok (2 of 4 are 0)", "failed (its one value is 0)", "slow", "1e-6", "1"} {
		if !hasText(root.Texts, want) {
			t.Errorf("no %q in the picture: %q", want, root.Texts)
		}
	}
	for _, small := range []string{"1e-7", "1e-9"} {
		if hasText(root.Texts, small) {
			t.Errorf("the axis reaches %s, below any value: %q", small, root.Texts)
		}
	}
	// Zeros alone: a linear axis.
	if err := CDF(path, "", "seconds", map[string][]float64{"a": {0, 0}}, true); err != nil {
		t.Errorf("a series of zeros alone on a log-scaled axis: %v", err)
	}
}

// TestRangeTooWide checks that values spanning nearly the whole range of
// float64 are refused with an error rather than left to the tick
// labelling, which would never end on a range whose width is infinite.
func TestRangeTooWide(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "wide.svg")
	done := make(chan [2]error, 1)
	go func() {
		done <- [2]error{
			Lines(svg, "", "", "", map[string][]Point{"a": {{0, -1e308}, {1, 1e308}}}, false, false),
			CDF(svg, "", "", map[string][]float64{"a": {-1e308, 1e308}}, false),
		}
	}()
	select {
	case errs := <-done:
		for i, err := range errs {
			if err == nil || !strings.Contains(err.Error(), "a range too wide to draw") {
				t.Errorf("picture %d: %v, want the range refused", i, err)
			}
		}
	case <-time.After(20 * time.Second):
		t.Fatal("drawing values spanning ±1e308 did not end")
	}
}
