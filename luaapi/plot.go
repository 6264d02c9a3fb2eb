package luaapi

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/plot"
)

// plotFn is resident.plot{file=, kind=, title=, x=, y=, log_x=, log_y=,
// series=}: it draws a script's own figures with package plot, as a CDF of
// each series' values (kind "cdf", series = {name = {v, ...}}) or as lines
// of y against x (kind "lines", series = {name = {{x, y}, ...}}), into an
// SVG or PNG file. A sandboxed state may not write files: there it is an
// unsupported error.
func (m *Module) plotFn(L *lua.LState) int {
	const name = "plot"
	if m.opts.Sandbox {
		m.raise(L, failure.Errorf(failure.Unsupported, name, "plot writes a file, which this sandboxed state may not do"))
	}
	t := fields(L, 1, name, false, "file", "kind", "title", "x", "y", "log_x", "log_y", "series")
	file := stringField(L, 1, name, t, "file", "")
	if file == "" {
		m.invalid(L, name, `file: give the picture's file name, ending in .svg or .png`)
	}
	title := stringField(L, 1, name, t, "title", "")
	x, y := stringField(L, 1, name, t, "x", ""), stringField(L, 1, name, t, "y", "")
	logX, logY := boolField(L, 1, name, t, "log_x"), boolField(L, 1, name, t, "log_y")
	series, ok := field(t, "series").(*lua.LTable)
	if !ok {
		fieldError(L, 1, name, "series", "table expected, got "+valueTypeName(field(t, "series")))
	}
	var err error
	switch kind := stringField(L, 1, name, t, "kind", ""); kind {
	case "cdf":
		if field(t, "y") != lua.LNil || logY {
			m.invalid(L, name, "y and log_y: a CDF's y axis is the fraction of values, from 0 to 1; leave them out")
		}
		err = plot.CDF(file, title, x, cdfSeries(L, series), logX)
	case "lines":
		err = plot.Lines(file, title, x, y, lineSeries(L, series), logX, logY)
	case "":
		m.invalid(L, name, `kind: say what to draw: "cdf" (the distribution of each series' values) or "lines" (y against x)`)
	default:
		m.invalid(L, name, `kind: %q is not a kind of picture; give "cdf" (the distribution of each series' values) or "lines" (y against x)`, kind)
	}
	if err != nil {
		m.plotError(L, err)
	}
	return 0
}

// plotError raises what package plot said: a file that could not be written
// as a string, as Lua's io library words it; anything else is bad input, an
// invalid error value.
func (m *Module) plotError(L *lua.LState, err error) {
	msg := strings.TrimPrefix(err.Error(), "plot: ")
	if _, isPath := errors.AsType[*fs.PathError](err); isPath {
		raiseString(L, "resident.plot: %s", msg)
	}
	m.invalid(L, "plot", "%s", msg)
}

// boolField reads a boolean field; false when absent.
func boolField(L *lua.LState, n int, name string, t *lua.LTable, key string) bool {
	switch v := field(t, key).(type) {
	case *lua.LNilType:
		return false
	case lua.LBool:
		return bool(v)
	default:
		fieldError(L, n, name, key, "boolean expected, got "+valueTypeName(v))
		return false
	}
}

// eachSeries calls read with every series' name and list, in the sorted
// order of the names (so that the first bad one is always the same); a key
// that is not a string or a value that is not a table is a bad argument.
func eachSeries(L *lua.LState, series *lua.LTable, read func(name string, list *lua.LTable)) {
	lists := map[string]*lua.LTable{}
	series.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok {
			fieldError(L, 1, "plot", "series", "keys are the series' names (strings), got a "+valueTypeName(k)+" key "+k.String())
		}
		list, ok := v.(*lua.LTable)
		if !ok {
			fieldError(L, 1, "plot", "series."+string(name), "table expected, got "+valueTypeName(v))
		}
		if entries := countEntries(list); entries != list.Len() {
			fieldError(L, 1, "plot", "series."+string(name), fmt.Sprintf("a list expected (keys 1 to n), got a table of %d entries of which %d are a list", entries, list.Len()))
		}
		lists[string(name)] = list
	})
	for _, name := range slices.Sorted(maps.Keys(lists)) {
		read(name, lists[name])
	}
}

// countEntries counts the entries of t.
func countEntries(t *lua.LTable) int {
	n := 0
	t.ForEach(func(lua.LValue, lua.LValue) { n++ })
	return n
}

// cdfSeries reads series = {name = {v, ...}}.
func cdfSeries(L *lua.LState, series *lua.LTable) map[string][]float64 {
	out := map[string][]float64{}
	eachSeries(L, series, func(name string, list *lua.LTable) {
		values := make([]float64, 0, list.Len())
		for i := 1; i <= list.Len(); i++ {
			values = append(values, number(L, fmt.Sprintf("series.%s[%d]", name, i), list.RawGetInt(i)))
		}
		out[name] = values
	})
	return out
}

// lineSeries reads series = {name = {{x, y}, ...}}.
func lineSeries(L *lua.LState, series *lua.LTable) map[string][]plot.Point {
	out := map[string][]plot.Point{}
	eachSeries(L, series, func(name string, list *lua.LTable) {
		points := make([]plot.Point, 0, list.Len())
		for i := 1; i <= list.Len(); i++ {
			key := fmt.Sprintf("series.%s[%d]", name, i)
			pt, ok := list.RawGetInt(i).(*lua.LTable)
			if !ok || pt.Len() != 2 {
				fieldError(L, 1, "plot", key, "a point {x, y} expected, got "+describePoint(list.RawGetInt(i)))
			}
			points = append(points, plot.Point{X: number(L, key+"[1]", pt.RawGetInt(1)), Y: number(L, key+"[2]", pt.RawGetInt(2))})
		}
		out[name] = points
	})
	return out
}

// describePoint names what stands where a point {x, y} should.
func describePoint(v lua.LValue) string {
	if t, ok := v.(*lua.LTable); ok {
		return fmt.Sprintf("a table of %d values", t.Len())
	}
	return valueTypeName(v)
}

// number reads one value of a series.
func number(L *lua.LState, key string, v lua.LValue) float64 {
	n, ok := v.(lua.LNumber)
	if !ok {
		fieldError(L, 1, "plot", key, "number expected, got "+valueTypeName(v))
	}
	return float64(n)
}
