package lua51

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
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

// installOS replaces the os library's functions but os.exit; stdout is
// where os.execute's commands write.
func installOS(L *lua.LState, stdout io.Writer) {
	t := library(L, "os")
	if t == nil {
		return
	}
	setFuncs(L, t, map[string]lua.LGFunction{
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
		L.Push(lua.LString(strftime(format, tm, utc)))
	}
	return 1
}

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

// The io library as Lua 5.1's liolib.c on glibc. gopher-lua's differs where
// scripts notice: read("*n") fails on hexadecimal and stops at newlines,
// "*l" drops a line's '\r', write returns the file rather than true, error
// results are Go's ("open x: no such file or directory", errno 1) instead
// of C's ("x: No such file or directory", 2), io.close() closes the
// process's standard output, and numbers are written with Go's formatting.
// Writes go straight to the file, unbuffered, as gopher-lua's do, so
// nothing written is lost when a script ends without closing a file,
// unless the script asks for buffering with file:setvbuf; reads are
// buffered.

// luaFile is the value of a Lua 5.1 file handle (a FILE* userdata).
type luaFile struct {
	f      *os.File      // nil for a stream that only writes (Options.Stdout)
	w      io.Writer     // where writes go; nil when not writable
	buf    *bufio.Writer // over w, after setvbuf("full") or setvbuf("line")
	line   bool          // buf is flushed at each newline
	r      *bufio.Reader // reads, over f or a pipe; nil when not readable
	cmd    *exec.Cmd     // the command of io.popen's file
	pipe   io.Closer     // the pipe to cmd
	std    bool          // a standard file, which close refuses to close
	closed bool
}

// ioLib is one state's io library: the file metatable and the default
// input and output files.
type ioLib struct {
	meta          *lua.LTable
	input, output *lua.LUserData
}

// installIO replaces the io library; stdout is where io.stdout writes.
func installIO(L *lua.LState, stdout io.Writer) {
	t := library(L, "io")
	if t == nil {
		return
	}
	lib := &ioLib{meta: L.NewTable()}
	setFuncs(L, lib.meta, map[string]lua.LGFunction{
		"close":      lib.fileClose,
		"flush":      lib.fileFlush,
		"lines":      lib.fileLines,
		"read":       lib.fileRead,
		"seek":       lib.fileSeek,
		"setvbuf":    lib.fileSetvbuf,
		"write":      lib.fileWrite,
		"__tostring": lib.fileToString,
		"__gc":       lib.fileGC,
	})
	lib.meta.RawSetString("__index", lib.meta)
	var stdoutFile *os.File
	if stdout == os.Stdout {
		stdoutFile = os.Stdout
	}
	stdin := lib.newFile(L, &luaFile{f: os.Stdin, r: bufio.NewReader(os.Stdin), std: true})
	lib.input = stdin
	lib.output = lib.newFile(L, &luaFile{f: stdoutFile, w: stdout, std: true})
	setFuncs(L, t, map[string]lua.LGFunction{
		"close":   lib.ioClose,
		"flush":   lib.ioFlush,
		"input":   lib.ioInput,
		"lines":   lib.ioLines,
		"open":    lib.ioOpen,
		"output":  lib.ioOutput,
		"popen":   lib.ioPopen,
		"read":    lib.ioRead,
		"tmpfile": lib.ioTmpfile,
		"type":    lib.ioType,
		"write":   lib.ioWrite,
	})
	t.RawSetString("stdin", stdin)
	t.RawSetString("stdout", lib.output)
	t.RawSetString("stderr", lib.newFile(L, &luaFile{f: os.Stderr, w: os.Stderr, std: true}))
}

// newFile makes the userdata of f.
func (lib *ioLib) newFile(L *lua.LState, f *luaFile) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = f
	ud.Metatable = lib.meta
	return ud
}

// toFile is luaL_checkudata(L, n, "FILE*").
func (lib *ioLib) toFile(L *lua.LState, n int) *luaFile {
	if ud, ok := L.Get(n).(*lua.LUserData); ok && ud.Metatable == lib.meta {
		if f, ok := ud.Value.(*luaFile); ok {
			return f
		}
	}
	typeError(L, n, "FILE*")
	return nil
}

// openFile is tofile: argument 1 as a file that is not closed.
func (lib *ioLib) openFile(L *lua.LState) *luaFile {
	f := lib.toFile(L, 1)
	if f.closed {
		luaError(L, "attempt to use a closed file")
	}
	return f
}

// defaultFile is getiofile: the default input or output, which must be
// open.
func (lib *ioLib) defaultFile(L *lua.LState, output bool) *luaFile {
	ud, name := lib.input, "input"
	if output {
		ud, name = lib.output, "output"
	}
	f := ud.Value.(*luaFile)
	if f.closed {
		luaError(L, "standard %s file is closed", name)
	}
	return f
}

// errno is the C error number of err, EIO when it has none.
func errno(err error) syscall.Errno {
	var en syscall.Errno
	if errors.As(err, &en) {
		return en
	}
	return syscall.EIO
}

// strerror is glibc's message for en.
func strerror(en syscall.Errno) string {
	s := en.Error()
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// pushResult is liolib.c's pushresult: true when err is nil, else nil, the
// message (after "filename: " when filename is not empty) and the errno.
func pushResult(L *lua.LState, err error, filename string) int {
	if err == nil {
		L.Push(lua.LTrue)
		return 1
	}
	en := errno(err)
	msg := strerror(en)
	if filename != "" {
		msg = filename + ": " + msg
	}
	L.Push(lua.LNil)
	L.Push(lua.LString(msg))
	L.Push(lua.LNumber(en))
	return 3
}

// fopen opens name as C's fopen does with mode: "r", "w" or "a" first, then
// '+' for reading and writing, 'x' for exclusive creation; other
// characters are ignored.
func fopen(name, mode string) (*luaFile, error) {
	if mode == "" || strings.IndexByte("rwa", mode[0]) < 0 {
		return nil, syscall.EINVAL
	}
	plus := strings.IndexByte(mode[1:], '+') >= 0
	var flag int
	switch mode[0] {
	case 'r':
		flag = os.O_RDONLY
	case 'w':
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	case 'a':
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	if plus {
		flag = flag&^os.O_WRONLY | os.O_RDWR
	}
	if mode[0] != 'r' && strings.IndexByte(mode[1:], 'x') >= 0 {
		flag |= os.O_EXCL
	}
	f, err := os.OpenFile(name, flag, 0o666)
	if err != nil {
		return nil, err
	}
	lf := &luaFile{f: f}
	if mode[0] == 'r' || plus {
		lf.r = bufio.NewReader(f)
	}
	if mode[0] != 'r' || plus {
		lf.w = f
	}
	return lf, nil
}

// ioOpen is io.open(filename [, mode]).
func (lib *ioLib) ioOpen(L *lua.LState) int {
	name := checkString(L, 1)
	f, err := fopen(name, optString(L, 2, "r"))
	if err != nil {
		return pushResult(L, err, name)
	}
	L.Push(lib.newFile(L, f))
	return 1
}

// ioTmpfile is io.tmpfile(): a file for reading and writing that is removed
// at once, so it goes when it is closed.
func (lib *ioLib) ioTmpfile(L *lua.LState) int {
	f, err := os.CreateTemp("", "lua_")
	if err != nil {
		return pushResult(L, err, "")
	}
	_ = os.Remove(f.Name())
	L.Push(lib.newFile(L, &luaFile{f: f, w: f, r: bufio.NewReader(f)}))
	return 1
}

// ioPopen is io.popen(prog [, mode]): the program runs under /bin/sh -c
// with the file reading its output ("r") or writing its input ("w").
func (lib *ioLib) ioPopen(L *lua.LState) int {
	prog := checkString(L, 1)
	mode := optString(L, 2, "r")
	cmd := exec.Command("/bin/sh", "-c", prog)
	cmd.Stderr = os.Stderr
	f := &luaFile{cmd: cmd}
	var err error
	switch {
	case strings.HasPrefix(mode, "r"):
		cmd.Stdin = os.Stdin
		var out io.ReadCloser
		if out, err = cmd.StdoutPipe(); err == nil {
			f.r, f.pipe = bufio.NewReader(out), out
		}
	case strings.HasPrefix(mode, "w"):
		cmd.Stdout = os.Stdout
		var in io.WriteCloser
		if in, err = cmd.StdinPipe(); err == nil {
			f.w, f.pipe = in, in
		}
	default:
		err = syscall.EINVAL
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return pushResult(L, err, prog)
	}
	L.Push(lib.newFile(L, f))
	return 1
}

// closeFile is aux_close: standard files stay open; a pipe's command is
// waited for.
func closeFile(L *lua.LState, f *luaFile) int {
	if f.std {
		L.Push(lua.LNil)
		L.Push(lua.LString("cannot close standard file"))
		return 2
	}
	f.closed = true
	flushErr := f.flush()
	if f.cmd != nil {
		_ = f.pipe.Close()
		err := f.cmd.Wait()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = nil // pclose returned the status: not a failure
		}
		return pushResult(L, err, "")
	}
	if err := f.f.Close(); err != nil || flushErr != nil {
		return pushResult(L, errors.Join(flushErr, err), "")
	}
	return pushResult(L, nil, "")
}

// ioClose is io.close([file]), the default output without one.
func (lib *ioLib) ioClose(L *lua.LState) int {
	if L.GetTop() == 0 {
		L.Push(lib.output)
	}
	return closeFile(L, lib.openFile(L))
}

func (lib *ioLib) fileClose(L *lua.LState) int { return closeFile(L, lib.openFile(L)) }

// fileGC is the file metatable's __gc, as Lua 5.1's io_gc: it closes a
// file that is still open. gopher-lua never calls __gc; a script may.
func (lib *ioLib) fileGC(L *lua.LState) int {
	if f := lib.toFile(L, 1); !f.closed {
		closeFile(L, f)
	}
	return 0
}

// fileToString is "file (0x...)", or "file (closed)".
func (lib *ioLib) fileToString(L *lua.LState) int {
	f := lib.toFile(L, 1)
	if f.closed {
		L.Push(lua.LString("file (closed)"))
	} else {
		L.Push(lua.LString(fmt.Sprintf("file (%p)", f)))
	}
	return 1
}

// ioType is io.type(v): "file", "closed file" or nil.
func (lib *ioLib) ioType(L *lua.LState) int {
	v := checkAny(L, 1)
	ud, ok := v.(*lua.LUserData)
	f, isFile := (*luaFile)(nil), false
	if ok && ud.Metatable == lib.meta {
		f, isFile = ud.Value.(*luaFile)
	}
	switch {
	case !isFile:
		L.Push(lua.LNil)
	case f.closed:
		L.Push(lua.LString("closed file"))
	default:
		L.Push(lua.LString("file"))
	}
	return 1
}

// ioInput is io.input([file | name]).
func (lib *ioLib) ioInput(L *lua.LState) int { return lib.defaultIO(L, &lib.input, "r") }

// ioOutput is io.output([file | name]).
func (lib *ioLib) ioOutput(L *lua.LState) int { return lib.defaultIO(L, &lib.output, "w") }

// defaultIO is g_iofile: sets *def to the file, or to the file named,
// opened with mode, and returns the current one.
func (lib *ioLib) defaultIO(L *lua.LState, def **lua.LUserData, mode string) int {
	switch v := L.Get(1).(type) {
	case *lua.LNilType:
	case lua.LString, lua.LNumber:
		name := checkString(L, 1)
		f, err := fopen(name, mode)
		if err != nil {
			argError(L, 1, name+": "+strerror(errno(err)))
		}
		*def = lib.newFile(L, f)
	default:
		lib.openFile(L)
		*def = v.(*lua.LUserData)
	}
	L.Push(*def)
	return 1
}

// ioLines is io.lines([filename]): the lines of the default input, or of
// the file named, which is closed at its end.
func (lib *ioLib) ioLines(L *lua.LState) int {
	if L.Get(1) == lua.LNil {
		L.SetTop(0)
		L.Push(lib.input)
		return lib.fileLines(L)
	}
	name := checkString(L, 1)
	f, err := fopen(name, "r")
	if err != nil {
		argError(L, 1, name+": "+strerror(errno(err)))
	}
	L.Push(lineIterator(L, f, true))
	return 1
}

// fileLines is file:lines().
func (lib *ioLib) fileLines(L *lua.LState) int {
	L.Push(lineIterator(L, lib.openFile(L), false))
	return 1
}

// lineIterator is io_readline over f, closing f at its end when toClose.
func lineIterator(L *lua.LState, f *luaFile, toClose bool) *lua.LFunction {
	return L.NewFunction(func(L *lua.LState) int {
		if f.closed {
			luaError(L, "file is already closed")
		}
		line, ok, err := readLine(f)
		if err != nil {
			luaError(L, "%s", strerror(errno(err)))
		}
		if ok {
			L.Push(lua.LString(line))
			return 1
		}
		if toClose {
			f.closed = true
			_ = f.f.Close()
		}
		return 0
	})
}

// ioRead is io.read(...) from the default input.
func (lib *ioLib) ioRead(L *lua.LState) int { return read(L, lib.defaultFile(L, false), 1) }

// fileRead is file:read(...).
func (lib *ioLib) fileRead(L *lua.LState) int { return read(L, lib.openFile(L), 2) }

// read is g_read: each format from argument first on ("*n", "*l", "*a" or
// a count) read in turn until one fails, whose result is then nil.
func read(L *lua.LState, f *luaFile, first int) int {
	if f.r == nil {
		return pushResult(L, syscall.EBADF, "")
	}
	if err := f.flush(); err != nil { // what was written comes first
		return pushResult(L, err, "")
	}
	top := L.GetTop()
	if top < first {
		line, ok, err := readLine(f)
		return readResult(L, lua.LString(line), ok, err, 1)
	}
	n := 0
	for i := first; i <= top; i++ {
		v, ok, err := readFormat(L, f, i)
		n++
		if err != nil || !ok {
			return readResult(L, v, ok, err, n)
		}
		L.Push(v)
	}
	return n
}

// readResult pushes the last format's result v (nil when it failed) and
// returns the count of results, or the error's results.
func readResult(L *lua.LState, v lua.LValue, ok bool, err error, n int) int {
	if err != nil {
		return pushResult(L, err, "")
	}
	if !ok {
		v = lua.LNil
	}
	L.Push(v)
	return n
}

// readFormat reads the format of argument i.
func readFormat(L *lua.LState, f *luaFile, i int) (lua.LValue, bool, error) {
	if n, ok := L.Get(i).(lua.LNumber); ok {
		count := toInteger(n)
		if count < 0 { // C's (size_t) of a negative count: everything
			count = math.MaxInt
		}
		if count == 0 {
			_, err := f.r.Peek(1)
			if err == io.EOF {
				return lua.LString(""), false, nil
			}
			return lua.LString(""), err == nil, err
		}
		b := make([]byte, 0, min(count, 1<<16))
		for len(b) < count {
			c, err := f.r.ReadByte()
			if err == io.EOF {
				break
			} else if err != nil {
				return lua.LNil, false, err
			}
			b = append(b, c)
		}
		return lua.LString(b), len(b) > 0, nil
	}
	p, ok := L.Get(i).(lua.LString)
	if !ok || len(p) < 1 || p[0] != '*' {
		argError(L, i, "invalid option")
	}
	switch {
	case len(p) > 1 && p[1] == 'n':
		n, ok, err := readNumber(f.r)
		return n, ok, err
	case len(p) > 1 && p[1] == 'l':
		line, ok, err := readLine(f)
		return lua.LString(line), ok, err
	case len(p) > 1 && p[1] == 'a':
		b, err := io.ReadAll(f.r)
		return lua.LString(b), true, err
	}
	argError(L, i, "invalid format")
	return lua.LNil, false, nil
}

// readLine reads up to the next '\n', which it drops (a '\r' before it
// stays); ok is false at the end of the file with nothing read.
func readLine(f *luaFile) (string, bool, error) {
	line, err := f.r.ReadString('\n')
	if err == nil {
		return line[:len(line)-1], true, nil
	}
	if err == io.EOF {
		return line, line != "", nil
	}
	return line, false, err
}

// readNumber is fscanf(f, "%lf") in glibc: white space skipped, then the
// longest run of characters that can begin a number is consumed, and the
// longest number at its start is the result ("1e+" reads 1).
func readNumber(r *bufio.Reader) (lua.LValue, bool, error) {
	c, err := r.ReadByte()
	for err == nil && isSpace(c) {
		c, err = r.ReadByte()
	}
	var b []byte
	for err == nil && numberPrefix(append(b, c)) {
		b = append(b, c)
		c, err = r.ReadByte()
	}
	if err == nil {
		_ = r.UnreadByte()
	} else if err != io.EOF {
		return lua.LNil, false, err
	}
	for ; len(b) > 0; b = b[:len(b)-1] { // the number strtod finds in what was read
		if n, ok := ParseNumber(string(b)); ok {
			return n, true, nil
		}
	}
	return lua.LNil, false, nil
}

// numberPrefix reports whether s can begin a number that scanf's %lf
// reads: a sign, then decimal digits with a point and an exponent, or 0x
// and hexadecimal ones with a 'p' exponent, or inf, infinity or nan.
func numberPrefix(s []byte) bool {
	t := strings.ToLower(string(s))
	if t[0] == '+' || t[0] == '-' {
		t = t[1:]
	}
	for _, word := range []string{"infinity", "nan"} {
		if t != "" && strings.HasPrefix(word, t) {
			return true
		}
	}
	digits, exp := "0123456789", "e"
	if strings.HasPrefix(t, "0x") {
		t, digits, exp = t[2:], "0123456789abcdef", "p"
	}
	point, inExp := false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case strings.IndexByte(digits, c) >= 0 && !inExp, inExp && isDigit(c):
		case c == '.' && !point && !inExp:
			point = true
		case c == exp[0] && !inExp && i > 0:
			inExp = true
		case (c == '+' || c == '-') && inExp && t[i-1] == exp[0]:
		default:
			return false
		}
	}
	return true
}

// ioWrite is io.write(...) to the default output.
func (lib *ioLib) ioWrite(L *lua.LState) int { return write(L, lib.defaultFile(L, true), 1) }

// fileWrite is file:write(...).
func (lib *ioLib) fileWrite(L *lua.LState) int { return write(L, lib.openFile(L), 2) }

// write is g_write: strings as they are, numbers as %.14g; true, or the
// error's results.
func write(L *lua.LState, f *luaFile, first int) int {
	var b []byte
	for i := first; i <= L.GetTop(); i++ {
		if n, ok := L.Get(i).(lua.LNumber); ok {
			b = append(b, NumberToString(n)...)
		} else {
			b = append(b, checkString(L, i)...)
		}
	}
	if f.w == nil {
		return pushResult(L, syscall.EBADF, "")
	}
	if err := f.syncReads(); err != nil {
		return pushResult(L, err, "")
	}
	if f.buf == nil {
		_, err := f.w.Write(b)
		return pushResult(L, err, "")
	}
	if nl := bytes.LastIndexByte(b, '\n'); f.line && nl >= 0 { // glibc writes up to the last newline
		if _, err := f.buf.Write(b[:nl+1]); err != nil {
			return pushResult(L, err, "")
		}
		if err := f.buf.Flush(); err != nil {
			return pushResult(L, err, "")
		}
		b = b[nl+1:]
	}
	_, err := f.buf.Write(b)
	return pushResult(L, err, "")
}

// flush writes out what setvbuf's buffer holds.
func (f *luaFile) flush() error {
	if f.buf == nil {
		return nil
	}
	return f.buf.Flush()
}

// syncReads moves the file's position back over what the read buffer holds
// but Lua has not read, so that a write or a seek starts where reading
// stopped.
func (f *luaFile) syncReads() error {
	if f.r == nil || f.f == nil || f.r.Buffered() == 0 {
		return nil
	}
	_, err := f.f.Seek(int64(-f.r.Buffered()), io.SeekCurrent)
	f.r.Reset(f.f)
	return err
}

// fileSeek is file:seek([whence [, offset]]): the new position.
func (lib *ioLib) fileSeek(L *lua.LState) int {
	f := lib.openFile(L)
	whence := map[string]int{"set": io.SeekStart, "cur": io.SeekCurrent, "end": io.SeekEnd}[checkOption(L, 2, "cur", []string{"set", "cur", "end"})]
	offset := int64(optInteger(L, 3, 0))
	if f.f == nil || f.cmd != nil {
		return pushResult(L, syscall.ESPIPE, "")
	}
	if err := f.flush(); err != nil {
		return pushResult(L, err, "")
	}
	if err := f.syncReads(); err != nil {
		return pushResult(L, err, "")
	}
	pos, err := f.f.Seek(offset, whence)
	if err != nil {
		return pushResult(L, err, "")
	}
	L.Push(lua.LNumber(pos))
	return 1
}

// fileSetvbuf is file:setvbuf(mode [, size]): "no" writes at once (the
// default here), "full" when size bytes (BUFSIZ, 8192, by default) are
// buffered, "line" also at each newline.
func (lib *ioLib) fileSetvbuf(L *lua.LState) int {
	f := lib.openFile(L)
	mode := checkOption(L, 2, "", []string{"no", "full", "line"})
	size := optInteger(L, 3, 8192)
	if err := f.flush(); err != nil {
		return pushResult(L, err, "")
	}
	f.buf, f.line = nil, false
	if mode != "no" && f.w != nil {
		f.buf, f.line = bufio.NewWriterSize(f.w, max(size, 1)), mode == "line"
	}
	L.Push(lua.LTrue)
	return 1
}

// fileFlush is file:flush().
func (lib *ioLib) fileFlush(L *lua.LState) int {
	return pushResult(L, lib.openFile(L).flush(), "")
}

// ioFlush is io.flush(), of the default output.
func (lib *ioLib) ioFlush(L *lua.LState) int {
	return pushResult(L, lib.defaultFile(L, true).flush(), "")
}
