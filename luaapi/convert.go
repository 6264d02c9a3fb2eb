package luaapi

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// maxSeconds bounds every duration given in seconds: about 31 years, far
// beyond any wait anyone means, and far from time.Duration's limit.
const maxSeconds = 1e9

// maxSize bounds every size: 2^53 bytes (8 PiB), the largest whole number
// a Lua number holds exactly.
const maxSize = 1 << 53

// formatNumber writes a Lua number as Lua's tostring does (%.14g, nan, inf).
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return lua.LNumber(f).String()
}

// secondsValue converts a number of seconds; what says what it is, for messages.
func secondsValue(f float64, what string) (time.Duration, string) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return 0, what + " must be a finite number of seconds, got " + formatNumber(f)
	case f < 0:
		return 0, what + " must be zero or more seconds, got " + formatNumber(f)
	case f > maxSeconds:
		return 0, what + " must be at most 1e9 seconds (about 31 years), got " + formatNumber(f)
	}
	return time.Duration(math.Round(f * 1e9)), ""
}

// checkSeconds reads argument n as a number of seconds: a type error for
// anything but a number, an invalid error value for NaN, infinite, negative
// or absurdly large ones.
func (m *Module) checkSeconds(L *lua.LState, n int, name, op, what string) time.Duration {
	v, ok := L.Get(n).(lua.LNumber)
	if !ok || n > L.GetTop() {
		typeError(L, n, name, "number")
	}
	d, problem := secondsValue(float64(v), what)
	if problem != "" {
		m.invalid(L, op, "%s", problem)
	}
	return d
}

var sizePattern = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$`)

var sizeUnits = map[string]float64{
	"":    1,
	"b":   1,
	"kib": 1 << 10,
	"mib": 1 << 20,
	"gib": 1 << 30,
	"tib": 1 << 40,
	"pib": 1 << 50,
}

// sizeHint is how every size message ends.
const sizeHint = `give bytes as a number or a string like "64", "4KiB", "2MiB" or "1GiB"`

// parseSize reads a size: a number of bytes or a string such as "64", "4KiB",
// "2MiB" or "1GiB" (units are powers of 1024, up to PiB, so that the most,
// 8PiB, can be written as the message that names it does). problem says
// what is wrong.
func parseSize(v lua.LValue) (n int64, problem string) {
	var f float64
	var shown string
	switch v := v.(type) {
	case lua.LNumber:
		f, shown = float64(v), formatNumber(float64(v))
	case lua.LString:
		mm := sizePattern.FindStringSubmatch(string(v))
		unit, known := 0.0, false
		if mm != nil {
			unit, known = sizeUnits[strings.ToLower(mm[2])]
		}
		if !known {
			return 0, strconv.Quote(string(v)) + " is not a size; " + sizeHint
		}
		num, err := strconv.ParseFloat(mm[1], 64)
		if err != nil {
			return 0, strconv.Quote(string(v)) + " is not a size; " + sizeHint
		}
		f, shown = num*unit, strconv.Quote(string(v))
	default:
		return 0, "a size is a number or a string, not a " + v.Type().String() + "; " + sizeHint
	}
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return 0, "size " + shown + " is not a finite number of bytes; " + sizeHint
	case f < 0:
		return 0, "size " + shown + " is negative; " + sizeHint
	case f > maxSize:
		return 0, "size " + shown + " is too large; the most is 8PiB (9007199254740992 bytes)"
	case f != math.Trunc(f):
		return 0, "size " + shown + " is not a whole number of bytes"
	}
	return int64(f), ""
}

// fields reads argument n as an options table (nil or absent allowed when
// optional) and checks that every key is one of known.
func fields(L *lua.LState, n int, name string, optional bool, known ...string) *lua.LTable {
	v := L.Get(n)
	if v == lua.LNil && optional {
		return nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		typeError(L, n, name, "table")
	}
	var unknown []string
	t.ForEach(func(k, _ lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok {
			unknown = append(unknown, "["+k.String()+"]")
			return
		}
		for _, kn := range known {
			if string(ks) == kn {
				return
			}
		}
		unknown = append(unknown, string(ks))
	})
	if len(unknown) > 0 {
		sort.Strings(unknown)
		argError(L, n, name, "unknown field '"+unknown[0]+"'; fields are "+strings.Join(known, ", "))
	}
	return t
}

// field reads t[key], nil when t is nil.
func field(t *lua.LTable, key string) lua.LValue {
	if t == nil {
		return lua.LNil
	}
	return t.RawGetString(key)
}

// fieldError raises a bad-argument error about one field of argument n.
func fieldError(L *lua.LState, n int, name, key, msg string) {
	argError(L, n, name, "field '"+key+"': "+msg)
}

// intField reads an integer field; def when absent.
func intField(L *lua.LState, n int, name string, t *lua.LTable, key string, def int64) int64 {
	v := field(t, key)
	if v == lua.LNil {
		return def
	}
	num, ok := v.(lua.LNumber)
	if !ok {
		fieldError(L, n, name, key, "number expected, got "+valueTypeName(v))
	}
	f := float64(num)
	if f != math.Trunc(f) || math.Abs(f) > maxSize {
		fieldError(L, n, name, key, "number has no integer representation, got "+formatNumber(f))
	}
	return int64(f)
}

// stringField reads a string field; def when absent.
func stringField(L *lua.LState, n int, name string, t *lua.LTable, key, def string) string {
	v := field(t, key)
	if v == lua.LNil {
		return def
	}
	s, ok := v.(lua.LString)
	if !ok {
		fieldError(L, n, name, key, "string expected, got "+valueTypeName(v))
	}
	return string(s)
}

// sizeField reads a size field; def when absent. A bad size is an invalid
// error value.
func (m *Module) sizeField(L *lua.LState, n int, name, op string, t *lua.LTable, key string, def int64) int64 {
	v := field(t, key)
	if v == lua.LNil {
		return def
	}
	if v.Type() != lua.LTNumber && v.Type() != lua.LTString {
		fieldError(L, n, name, key, "number or string expected, got "+valueTypeName(v))
	}
	size, problem := parseSize(v)
	if problem != "" {
		m.invalid(L, op, "%s: %s", key, problem)
	}
	return size
}

// checkString reads argument n as a string (numbers are not converted).
func checkString(L *lua.LState, n int, name string) string {
	s, ok := L.Get(n).(lua.LString)
	if !ok || n > L.GetTop() {
		typeError(L, n, name, "string")
	}
	return string(s)
}

// seconds converts a duration to Lua seconds.
func seconds(d time.Duration) lua.LNumber { return lua.LNumber(d.Seconds()) }
