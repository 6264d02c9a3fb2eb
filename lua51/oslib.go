package lua51

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	lua "github.com/yuin/gopher-lua"
	"golang.org/x/sys/unix"
)

// The time functions of Lua 5.1's os library as loslib.c on glibc in the C
// locale: os.clock is the process's CPU time (gopher-lua gives wall time),
// os.date formats with every strftime conversion glibc has and fills yday,
// wday and isdst in "*t" (gopher-lua's yday is 0), os.time normalises its
// table as mktime does (isdst included), and times are C's time_t, whole
// seconds.

// installOS replaces the os library's functions; stdout is where
// os.execute's commands write. os.exit reads its argument as Lua 5.1
// does, or, when exitRefused is set, raises an error with that message.
func installOS(L *lua.LState, stdout io.Writer, exitRefused string) {
	t := library(L, "os")
	if t == nil {
		return
	}
	exit := osExit
	if exitRefused != "" {
		exit = func(L *lua.LState) int {
			L.RaiseError("%s", exitRefused)
			return 0
		}
	}
	setFuncs(L, t, map[string]lua.LGFunction{
		"exit":      exit,
		"clock":     osClock,
		"date":      osDate,
		"time":      osTime,
		"difftime":  osDifftime,
		"execute":   func(L *lua.LState) int { return osExecute(L, stdout) },
		"getenv":    osGetenv,
		"remove":    osRemove,
		"rename":    osRename,
		"setlocale": osSetlocale,
		"tmpname":   osTmpname,
	})
}

// ExitCode is the status os.exit([code]) asks for, read as Lua 5.1 reads
// it: a number (or a string that is one), 0 when absent. Anything else,
// true and false among them, raises Lua 5.1's argument error ("bad argument
// #1 to 'exit' (number expected, got boolean)"). A host that replaces
// os.exit (to close what it holds first) reads the code with it.
func ExitCode(L *lua.LState) int { return optInt(L, 1, 0) }

// osExit is os.exit([code]): the process ends with the code.
func osExit(L *lua.LState) int {
	os.Exit(ExitCode(L))
	return 0
}

// osExecute is os.execute([command]): C's system(), whose result is the
// wait status (the exit code times 256, or the signal's number); without a
// command, nonzero because a shell is there.
func osExecute(L *lua.LState, stdout io.Writer) int {
	if L.Get(1) == lua.LNil {
		L.Push(lua.LNumber(1))
		return 1
	}
	cmd := exec.Command("/bin/sh", "-c", checkString(L, 1))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, os.Stderr
	_ = cmd.Run()
	status := -1
	if cmd.ProcessState != nil {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			status = int(ws)
		}
	}
	L.Push(lua.LNumber(status))
	return 1
}

// osGetenv is os.getenv(name): nil when it is not set.
func osGetenv(L *lua.LState) int {
	if v, ok := os.LookupEnv(checkString(L, 1)); ok {
		L.Push(lua.LString(v))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// osRemove is os.remove(name), a file or an empty directory.
func osRemove(L *lua.LState) int {
	name := checkString(L, 1)
	return pushResult(L, os.Remove(name), name)
}

// osRename is os.rename(from, to).
func osRename(L *lua.LState) int {
	from, to := checkString(L, 1), checkString(L, 2)
	return pushResult(L, os.Rename(from, to), from)
}

// osSetlocale is os.setlocale([locale [, category]]). Only the C locale is
// there: asking for it ("C", "POSIX", or "" when the environment names no
// other) or querying gives "C"; any other locale fails with nil.
func osSetlocale(L *lua.LState) int {
	locale := optString(L, 1, "C")
	checkOption(L, 2, "all", []string{"all", "collate", "ctype", "monetary", "numeric", "time"})
	if locale == "" {
		locale = environmentLocale()
	}
	if locale == "C" || locale == "POSIX" {
		L.Push(lua.LString("C"))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// environmentLocale is the locale setlocale(LC_ALL, "") would choose.
func environmentLocale() string {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := os.Getenv(name); v != "" {
			return v
		}
	}
	return "C"
}

// osTmpname is os.tmpname(): the name of a new empty file, as mkstemp
// makes it.
func osTmpname(L *lua.LState) int {
	f, err := os.CreateTemp("/tmp", "lua_")
	if err != nil {
		luaError(L, "unable to generate a unique filename")
	}
	_ = f.Close()
	L.Push(lua.LString(f.Name()))
	return 1
}

// osClock is os.clock(): CPU time of the process in seconds, at glibc
// clock()'s microsecond resolution.
func osClock(L *lua.LState) int {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		L.Push(lua.LNumber(-1)) // clock()'s (clock_t)-1
		return 1
	}
	L.Push(lua.LNumber(float64(ts.Sec*1000000+ts.Nsec/1000) / 1000000))
	return 1
}

// osDifftime is os.difftime(t2 [, t1]) of whole seconds.
func osDifftime(L *lua.LState) int {
	t2 := toInteger(checkNumber(L, 1))
	t1 := toInteger(optNumber(L, 2, 0))
	L.Push(lua.LNumber(float64(t2) - float64(t1)))
	return 1
}

// maxTime bounds the times gmtime and localtime can break down: their year
// must fit a C int.
const maxTime = 67768036191676799

// brokenDown is localtime (or gmtime when utc) of the time_t t; ok is false
// where glibc's would fail.
func brokenDown(t int, utc bool) (time.Time, bool) {
	if t > maxTime || t < -maxTime {
		return time.Time{}, false
	}
	tm := time.Unix(int64(t), 0)
	if utc {
		tm = tm.UTC()
	} else {
		tm = tm.Local()
	}
	if y := int64(tm.Year()) - 1900; y > math.MaxInt32 || y < math.MinInt32 {
		return time.Time{}, false
	}
	return tm, true
}

// osDate is os.date([format [, time]]).
func osDate(L *lua.LState) int {
	format := cString(optString(L, 1, "%c"))
	t := int(time.Now().Unix())
	if L.Get(2) != lua.LNil {
		t = toInteger(checkNumber(L, 2))
	}
	utc := len(format) > 0 && format[0] == '!'
	if utc {
		format = format[1:]
	}
	tm, ok := brokenDown(t, utc)
	switch {
	case !ok:
		L.Push(lua.LNil)
	case format == "*t":
		L.Push(dateTable(L, tm))
	default:
		// A conversion gives at most about 30 bytes (%c of a far year)
		// for its 2: the budget must hold 16 times the format, once as
		// bytes and once as the string.
		reserveProduct(L, len(format), 2*dateExpansion)
		L.Push(lua.LString(strftime(format, tm, utc)))
	}
	return 1
}

// dateExpansion is the most bytes os.date's result has for one byte of
// its format.
const dateExpansion = 16

// dateTable is os.date's "*t" table of tm.
func dateTable(L *lua.LState, tm time.Time) *lua.LTable {
	t := L.CreateTable(0, 9)
	t.RawSetString("sec", lua.LNumber(tm.Second()))
	t.RawSetString("min", lua.LNumber(tm.Minute()))
	t.RawSetString("hour", lua.LNumber(tm.Hour()))
	t.RawSetString("day", lua.LNumber(tm.Day()))
	t.RawSetString("month", lua.LNumber(tm.Month()))
	t.RawSetString("year", lua.LNumber(tm.Year()))
	t.RawSetString("wday", lua.LNumber(tm.Weekday()+1))
	t.RawSetString("yday", lua.LNumber(tm.YearDay()))
	t.RawSetString("isdst", lua.LBool(tm.IsDST()))
	return t
}

// strftime formats tm as os.date does: each '%' and the character after it
// go to glibc's strftime in the C locale; a '%' at the end stays.
func strftime(format string, tm time.Time, utc bool) string {
	var b []byte
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b = append(b, format[i])
			continue
		}
		i++
		b = append(b, conversion(format[i], tm, utc)...)
	}
	return string(b)
}

// conversion is glibc's strftime("%c") of tm for the one character c.
func conversion(c byte, tm time.Time, utc bool) string {
	year := tm.Year()
	isoYear, isoWeek := tm.ISOWeek()
	switch c {
	case 'a':
		return tm.Format("Mon")
	case 'A':
		return tm.Format("Monday")
	case 'b', 'h':
		return tm.Format("Jan")
	case 'B':
		return tm.Format("January")
	case 'c':
		return fmt.Sprintf("%s %s %2d %s %d", tm.Format("Mon"), tm.Format("Jan"), tm.Day(), tm.Format("15:04:05"), year)
	case 'C':
		return strconv.Itoa(floorDiv(year, 100))
	case 'd':
		return fmt.Sprintf("%02d", tm.Day())
	case 'D', 'x':
		return fmt.Sprintf("%02d/%02d/%02d", int(tm.Month()), tm.Day(), floorMod(year, 100))
	case 'e':
		return fmt.Sprintf("%2d", tm.Day())
	case 'F':
		return fmt.Sprintf("%d-%02d-%02d", year, int(tm.Month()), tm.Day())
	case 'g':
		return fmt.Sprintf("%02d", floorMod(isoYear, 100))
	case 'G':
		return strconv.Itoa(isoYear)
	case 'H':
		return fmt.Sprintf("%02d", tm.Hour())
	case 'I':
		return fmt.Sprintf("%02d", hour12(tm))
	case 'j':
		return fmt.Sprintf("%03d", tm.YearDay())
	case 'k':
		return fmt.Sprintf("%2d", tm.Hour())
	case 'l':
		return fmt.Sprintf("%2d", hour12(tm))
	case 'm':
		return fmt.Sprintf("%02d", int(tm.Month()))
	case 'M':
		return fmt.Sprintf("%02d", tm.Minute())
	case 'n':
		return "\n"
	case 'p':
		return tm.Format("PM")
	case 'P':
		return tm.Format("pm")
	case 'r':
		return fmt.Sprintf("%02d:%02d:%02d %s", hour12(tm), tm.Minute(), tm.Second(), tm.Format("PM"))
	case 'R':
		return fmt.Sprintf("%02d:%02d", tm.Hour(), tm.Minute())
	case 's':
		if utc { // glibc passes gmtime's fields, isdst 0, to mktime
			return strconv.FormatInt(mktime(tm.Year(), int(tm.Month()), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), lua.LFalse).Unix(), 10)
		}
		return strconv.FormatInt(tm.Unix(), 10)
	case 'S':
		return fmt.Sprintf("%02d", tm.Second())
	case 't':
		return "\t"
	case 'T', 'X':
		return tm.Format("15:04:05")
	case 'u':
		return strconv.Itoa((int(tm.Weekday())+6)%7 + 1)
	case 'U':
		return fmt.Sprintf("%02d", (tm.YearDay()-1+7-int(tm.Weekday()))/7)
	case 'V':
		return fmt.Sprintf("%02d", isoWeek)
	case 'w':
		return strconv.Itoa(int(tm.Weekday()))
	case 'W':
		return fmt.Sprintf("%02d", (tm.YearDay()-1+7-(int(tm.Weekday())+6)%7)/7)
	case 'y':
		return fmt.Sprintf("%02d", floorMod(year, 100))
	case 'Y':
		return strconv.Itoa(year)
	case 'z':
		return tm.Format("-0700")
	case 'Z':
		if utc {
			return "GMT" // gmtime's tm_zone
		}
		return tm.Format("MST")
	case '%':
		return "%"
	}
	if '1' <= c && c <= '9' { // a width without a conversion: glibc pads the sequence
		return fmt.Sprintf("%*s", int(c-'0'), "%"+string(c))
	}
	return "%" + string(c)
}

// mktime is C's mktime of local time fields: out-of-range fields carry
// over, and isdst (nil: unknown) true or false reads the fields as daylight
// saving or standard time; when the zone says otherwise at that time, the
// time moves by the zone's difference between the two, an hour where it
// has no daylight saving time, as glibc does.
func mktime(year, month, day, hour, minute, sec int, isdst lua.LValue) time.Time {
	tm := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.Local)
	if isdst == lua.LNil || lua.LVAsBool(isdst) == tm.IsDST() {
		return tm
	}
	_, have := tm.Zone()
	want := have - 3600
	if lua.LVAsBool(isdst) {
		want = have + 3600
	}
	if other, ok := nearestOffset(tm, lua.LVAsBool(isdst)); ok {
		want = other
	}
	return tm.Add(time.Duration(have-want) * time.Second)
}

// nearestOffset is the UTC offset of the zone at the time nearest tm, within
// about 17 years as glibc searches, whose daylight saving status is dst.
func nearestOffset(tm time.Time, dst bool) (int, bool) {
	const step = 30 * 24 * time.Hour
	for k := 1; k <= 17*12; k++ {
		for _, t := range []time.Time{tm.Add(-time.Duration(k) * step), tm.Add(time.Duration(k) * step)} {
			if t.IsDST() == dst {
				_, offset := t.Zone()
				return offset, true
			}
		}
	}
	return 0, false
}

func hour12(tm time.Time) int {
	if h := tm.Hour() % 12; h != 0 {
		return h
	}
	return 12
}

func floorDiv(a, b int) int { return int(math.Floor(float64(a) / float64(b))) }
func floorMod(a, b int) int { return a - floorDiv(a, b)*b }

// osTime is os.time([t]): now, or the time of the table t as mktime gives
// it (out-of-range fields carry over; isdst true or false makes the time
// one of daylight saving or standard time), nil where mktime fails.
func osTime(L *lua.LState) int {
	if L.Get(1) == lua.LNil {
		L.Push(lua.LNumber(time.Now().Unix()))
		return 1
	}
	t := checkTable(L, 1)
	sec := dateField(L, t, "sec", 0)
	minute := dateField(L, t, "min", 0)
	hour := dateField(L, t, "hour", 12)
	day := dateField(L, t, "day", -1)
	month := dateField(L, t, "month", -1)
	year := dateField(L, t, "year", -1)
	tm := mktime(year, month, day, hour, minute, sec, L.GetField(t, "isdst"))
	if y := int64(tm.Year()) - 1900; y > math.MaxInt32 || y < math.MinInt32 {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(tm.Unix()))
	return 1
}

// dateField is getfield of loslib.c: t[key] as a C int, d when it is not a
// number (an error when d is negative).
func dateField(L *lua.LState, t *lua.LTable, key string, d int) int {
	if n, ok := toNumber(L.GetField(t, key)); ok {
		return cInt(n)
	}
	if d < 0 {
		luaError(L, "field '%s' missing in date table", key)
	}
	return d
}
