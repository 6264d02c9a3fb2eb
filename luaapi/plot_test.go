package luaapi

import (
	"encoding/xml"
	"image"
	_ "image/png" // image.DecodeConfig reads PNG
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPlot draws both kinds in both formats from Lua and checks the files:
// an SVG whose root is <svg> of 16 cm x 10 cm naming the series, a PNG of
// 605 x 378 pixels.
func TestPlot(t *testing.T) {
	dir := t.TempDir()
	h := sim(t)
	h.run(`dir = ` + strconv.Quote(dir) + `
		for _, ext in ipairs{"svg", "png"} do
			resident.plot{file = dir .. "/cdf." .. ext, kind = "cdf", title = "latency", x = "seconds", log_x = true,
				series = {retired = {1e-6, 2e-6, 2e-6, 5e-6}, quarantined = {1e-3}}}
			resident.plot{file = dir .. "/lines." .. ext, kind = "lines", x = "slot bytes", y = "MB/s", log_x = true, log_y = false,
				series = {["credits=1"] = {{64, 1}, {256, 3}}, ["credits=2"] = {{64, 2}, {256, 5}}}}
		end`)
	for name, series := range map[string][]string{"cdf": {"retired", "quarantined"}, "lines": {"credits=1", "credits=2"}} {
		b, err := os.ReadFile(filepath.Join(dir, name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		var root struct{ XMLName xml.Name }
		if err := xml.Unmarshal(b, &root); err != nil || root.XMLName.Local != "svg" {
			t.Fatalf("%s.svg: root %v, error %v; want an <svg> document", name, root.XMLName, err)
		}
		if !strings.Contains(string(b), `<svg width="453.54pt" height="283.46pt"`) {
			t.Errorf("%s.svg is not 16 cm x 10 cm: %.200s", name, b)
		}
		for _, s := range series {
			if !strings.Contains(string(b), "\n"+s+"\n") {
				t.Errorf("%s.svg does not name the series %q", name, s)
			}
		}
		f, err := os.Open(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(f)
		f.Close()
		if err != nil || format != "png" || cfg.Width != 605 || cfg.Height != 378 {
			t.Errorf("%s.png: %s %dx%d, error %v; want a png of 605x378", name, format, cfg.Width, cfg.Height, err)
		}
	}
}

// TestPlotBadInput shows the exact message of every kind of bad input to
// resident.plot; none of them writes a file.
func TestPlotBadInput(t *testing.T) {
	dir := t.TempDir()
	f := strconv.Quote(filepath.Join(dir, "p.svg"))
	cases := []struct{ name, code, want string }{
		{"no table", `resident.plot("x.svg")`, `<string>:1: bad argument #1 to 'plot' (table expected, got string)`},
		{"unknown field", `resident.plot{file = ` + f + `, kind = "cdf", colour = "red"}`, `<string>:1: bad argument #1 to 'plot' (unknown field 'colour'; fields are file, kind, title, x, y, log_x, log_y, series)`},
		{"no file", `resident.plot{kind = "cdf", series = {a = {1}}}`, `invalid: plot: file: give the picture's file name, ending in .svg or .png`},
		{"no series", `resident.plot{file = ` + f + `, kind = "cdf"}`, `<string>:1: bad argument #1 to 'plot' (field 'series': table expected, got nil)`},
		{"no kind", `resident.plot{file = ` + f + `, series = {a = {1}}}`, `invalid: plot: kind: say what to draw: "cdf" (the distribution of each series' values) or "lines" (y against x)`},
		{"bad kind", `resident.plot{file = ` + f + `, kind = "bars", series = {a = {1}}}`, `invalid: plot: kind: "bars" is not a kind of picture; give "cdf" (the distribution of each series' values) or "lines" (y against x)`},
		{"log_x type", `resident.plot{file = ` + f + `, kind = "cdf", log_x = "yes", series = {a = {1}}}`, `<string>:1: bad argument #1 to 'plot' (field 'log_x': boolean expected, got string)`},
		{"cdf y", `resident.plot{file = ` + f + `, kind = "cdf", y = "n", series = {a = {1}}}`, `invalid: plot: y and log_y: a CDF's y axis is the fraction of values, from 0 to 1; leave them out`},
		{"empty series table", `resident.plot{file = ` + f + `, kind = "cdf", series = {}}`, `invalid: plot: no series to draw; give at least one named series`},
		{"empty series", `resident.plot{file = ` + f + `, kind = "cdf", series = {a = {}}}`, `invalid: plot: series "a" is empty; give it at least one value or leave it out`},
		{"series key", `resident.plot{file = ` + f + `, kind = "cdf", series = {{1, 2}}}`, `<string>:1: bad argument #1 to 'plot' (field 'series': keys are the series' names (strings), got a number key 1)`},
		{"series value", `resident.plot{file = ` + f + `, kind = "cdf", series = {a = 5}}`, `<string>:1: bad argument #1 to 'plot' (field 'series.a': table expected, got number)`},
		{"series not a list", `resident.plot{file = ` + f + `, kind = "cdf", series = {a = {1, 2, x = 3}}}`, `<string>:1: bad argument #1 to 'plot' (field 'series.a': a list expected (keys 1 to n), got a table of 3 entries of which 2 are a list)`},
		{"cdf value", `resident.plot{file = ` + f + `, kind = "cdf", series = {a = {1, "2"}}}`, `<string>:1: bad argument #1 to 'plot' (field 'series.a[2]': number expected, got string)`},
		{"NaN", `resident.plot{file = ` + f + `, kind = "cdf", series = {a = {0/0}}}`, `invalid: plot: series "a": value 1 has x = NaN; values must be finite numbers`},
		{"point shape", `resident.plot{file = ` + f + `, kind = "lines", series = {a = {{1, 2}, {3}}}}`, `<string>:1: bad argument #1 to 'plot' (field 'series.a[2]': a point {x, y} expected, got a table of 1 values)`},
		{"point number", `resident.plot{file = ` + f + `, kind = "lines", series = {a = {1, 2}}}`, `<string>:1: bad argument #1 to 'plot' (field 'series.a[1]': a point {x, y} expected, got number)`},
		{"point value", `resident.plot{file = ` + f + `, kind = "lines", series = {a = {{1, true}}}}`, `<string>:1: bad argument #1 to 'plot' (field 'series.a[1][2]': number expected, got boolean)`},
		{"log y", `resident.plot{file = ` + f + `, kind = "lines", log_y = true, series = {a = {{1, 2}, {2, 0}}}}`, `invalid: plot: series "a": point 2 has y = 0, but the y axis is log-scaled and needs values > 0; drop the value or use a linear axis`},
		{"extension", `resident.plot{file = "p.jpg", kind = "lines", series = {a = {{1, 2}}}}`, `invalid: plot: p.jpg: unknown picture format ".jpg"; supported are .svg and .png`},
		{"first bad series in name order", `resident.plot{file = ` + f + `, kind = "cdf", series = {b = {}, a = {}, c = {}}}`, `invalid: plot: series "a" is empty; give it at least one value or leave it out`},
	}
	for _, c := range cases {
		h := sim(t)
		h.run(`ok, err = pcall(function() ` + c.code + ` end)`)
		if got := h.str("not ok and tostring(err)"); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input wrote files: %v", entries)
	}
}

// TestPlotUnwritable checks a file that cannot be written raises a string
// naming it.
func TestPlotUnwritable(t *testing.T) {
	f := filepath.Join(t.TempDir(), "missing", "p.svg")
	h := sim(t)
	h.run(`ok, err = pcall(resident.plot, {file = ` + strconv.Quote(f) + `, kind = "cdf", series = {a = {1}}})`)
	got := h.str("not ok and type(err) .. ' ' .. err")
	if want := "string resident.plot: cannot write " + f + ": no such file or directory"; got != want {
		t.Errorf("unwritable file: %s\nwant: %s (the file asked for, never a temporary one)", got, want)
	}
}

// TestPlotSandbox checks a sandboxed state may not write pictures.
func TestPlotSandbox(t *testing.T) {
	f := filepath.Join(t.TempDir(), "p.svg")
	h := newHarness(t, Options{Sandbox: true})
	h.run(`ok, err = pcall(require("resident").plot, {file = ` + strconv.Quote(f) + `, kind = "cdf", series = {a = {1}}})`)
	if got := h.str("not ok and tostring(err)"); got != "unsupported: plot: plot writes a file, which this sandboxed state may not do" {
		t.Errorf("plot in a sandbox: %s", got)
	}
	if _, err := os.Stat(f); !os.IsNotExist(err) {
		t.Errorf("the sandboxed plot wrote %s (%v)", f, err)
	}
}
