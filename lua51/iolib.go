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
	"strings"
	"syscall"

	lua "github.com/yuin/gopher-lua"
)

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
		line, ok, err := readLine(L, f)
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
		line, ok, err := readLine(L, f)
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
		g := growth{L: L}
		for len(b) < count {
			if len(b) == cap(b) {
				b = append(b, 0)[:len(b)]
			}
			n, err := f.r.Read(b[len(b):min(cap(b), count)])
			b = b[:len(b)+n]
			g.grew(len(b))
			if err == io.EOF {
				break
			} else if err != nil {
				return lua.LNil, false, err
			}
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
		line, ok, err := readLine(L, f)
		return lua.LString(line), ok, err
	case len(p) > 1 && p[1] == 'a':
		b, err := readToEnd(L, f.r)
		return lua.LString(b), true, err
	}
	argError(L, i, "invalid format")
	return lua.LNil, false, nil
}

// readLine reads up to the next '\n', which it drops (a '\r' before it
// stays); ok is false at the end of the file with nothing read. A line
// growing past the memory budget is "not enough memory".
func readLine(L *lua.LState, f *luaFile) (string, bool, error) {
	var line []byte
	g := growth{L: L}
	for {
		chunk, err := f.r.ReadSlice('\n')
		line = append(line, chunk...)
		g.grew(len(line))
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			return string(line[:len(line)-1]), true, nil
		case io.EOF:
			return string(line), len(line) > 0, nil
		}
		return string(line), false, err
	}
}

// readToEnd reads r to its end, as io.ReadAll does, checking the memory
// budget as the text grows.
func readToEnd(L *lua.LState, r io.Reader) ([]byte, error) {
	b := make([]byte, 0, 512)
	g := growth{L: L}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		g.grew(len(b))
		if err == io.EOF {
			return b, nil
		} else if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
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
