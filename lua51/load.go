package lua51

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/residentlua/residentlua/internal/input"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// idSize is Lua 5.1's LUA_IDSIZE, the size of a chunk id in runtime
// positions and tracebacks; syntax errors allow srcSize (llex.c's MAXSRC).
const (
	idSize  = 60
	srcSize = 80
)

// ChunkID is the name Lua 5.1 shows for a chunk in runtime messages and
// tracebacks (luaO_chunkid): "=name" is name, "@file" is file (its last
// part when long), and anything else is source text, shown as
// [string "first line..."].
func ChunkID(chunkname string) string { return chunkID(chunkname, idSize) }

// chunkID is luaO_chunkid with a buffer of size bytes; the chunkname is a
// C string there, ending at a NUL byte.
func chunkID(chunkname string, size int) string {
	chunkname, _, _ = strings.Cut(chunkname, "\x00")
	switch {
	case strings.HasPrefix(chunkname, "="):
		s := chunkname[1:]
		if len(s) > size-1 {
			s = s[:size-1]
		}
		return s
	case strings.HasPrefix(chunkname, "@"):
		s := chunkname[1:]
		if limit := size - len(" '...' ") - 1; len(s) > limit {
			s = "..." + s[len(s)-limit:]
		}
		return s
	}
	n := strings.IndexAny(chunkname, "\n\r")
	if n < 0 {
		n = len(chunkname)
	}
	if limit := size - len(` [string "..."] `) - 1; n > limit {
		n = limit
	}
	if n < len(chunkname) {
		return `[string "` + chunkname[:n] + `..."]`
	}
	return `[string "` + chunkname + `"]`
}

// Load compiles the chunk read from r as lua_load does: chunkname is
// lua_load's ("@script.lua", "=stdin", or the source itself for a string
// chunk) and names the chunk in messages and tracebacks as ChunkID shows
// it. The function's environment is the state's globals. A syntax error
// is a *lua.ApiError of type lua.ApiErrorSyntax whose Object is the
// message lua.c prints: "script.lua:2: unexpected symbol near '='".
// Concatenations in the chunk format numbers as Lua 5.1 does (%.14g).
func Load(L *lua.LState, r io.Reader, chunkname string) (*lua.LFunction, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, &lua.ApiError{Type: lua.ApiErrorFile, Object: lua.LString(err.Error()), Cause: err}
	}
	return loadBytes(L, src, chunkname)
}

// LoadString compiles src; chunkname is as for Load, and an empty one
// names the chunk by its source, as loadstring(src) does.
func LoadString(L *lua.LState, src, chunkname string) (*lua.LFunction, error) {
	if chunkname == "" {
		chunkname = src
	}
	return loadBytes(L, []byte(src), chunkname)
}

// LoadFile compiles the file at path as luaL_loadfile does: the chunk is
// named "@path", a first line starting with '#' is skipped (its newline
// kept, so line numbers stay right), and a file that can't be read is an
// error of type lua.ApiErrorFile saying "cannot open path: reason". An
// empty path reads standard input, named "=stdin".
func LoadFile(L *lua.LState, path string) (*lua.LFunction, error) {
	chunkname, display := "@"+path, path
	var src []byte
	var err error
	if path == "" {
		chunkname, display = "=stdin", "stdin"
		src, err = input.ReadAll(os.Stdin, input.LuaSource)
	} else {
		src, err = input.ReadFile(path, input.LuaSource)
	}
	if err != nil {
		what := "read"
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			what = "open"
		}
		msg := fmt.Sprintf("cannot %s %s: %s", what, display, errorText(err))
		return nil, &lua.ApiError{Type: lua.ApiErrorFile, Object: lua.LString(msg), Cause: err}
	}
	if bytes.HasPrefix(src, []byte("#")) {
		if i := bytes.IndexAny(src, "\n\r"); i >= 0 {
			src = src[i:]
		} else {
			src = nil
		}
		if len(src) > 1 && src[0] == '\n' && isBinaryChunk(src[1:]) {
			src = src[1:] // a binary chunk after a "#!" line
		}
	}
	return loadBytes(L, src, chunkname)
}

// errorText is err's reason as C's strerror words it ("No such file or
// directory").
func errorText(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		return strerror(en)
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// IsIncomplete reports whether err is a syntax error at the end of the
// input ("... near '<eof>'"): what lua.c's REPL checks to read another line
// for the same chunk.
func IsIncomplete(err error) bool {
	var api *lua.ApiError
	if !errors.As(err, &api) || api.Type != lua.ApiErrorSyntax {
		return false
	}
	s, ok := api.Object.(lua.LString)
	return ok && strings.HasSuffix(string(s), "'<eof>'")
}

// interruptibleSource is the size from which a chunk is compiled on a
// goroutine of its own when the host's call can be stopped: a smaller one
// compiles in well under a second.
const interruptibleSource = 64 << 10

// loadBytes checks src with Lua 5.1's grammar, then parses it with
// gopher-lua's parser, rewrites its concatenations and compiles it. A
// chunk of interruptibleSource bytes or more compiles on a goroutine of its
// own while the host's call has a context that can end (Ctrl-C, a time
// limit: HostContext): a compile is deaf to that context, so when it ends
// first the load returns its error at once and leaves the compile to
// finish unseen.
func loadBytes(L *lua.LState, src []byte, chunkname string) (*lua.LFunction, error) {
	if !compileFits(L, len(src)) {
		return nil, &lua.ApiError{Type: lua.ApiErrorRun, Object: errNotEnoughMemory}
	}
	ctx := HostContext(L)
	if ctx.Done() == nil || len(src) < interruptibleSource {
		c, err := compileSource(src, chunkname)
		if err != nil {
			return nil, err
		}
		return c.function(L), nil
	}
	type result struct {
		c   *compiled
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := compileSource(src, chunkname)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		return r.c.function(L), nil
	case <-ctx.Done():
		return nil, compileStopped(ChunkID(chunkname), ctx.Err())
	}
}

// compileBytes is about the most memory gopher-lua's parser and compiler
// (and the rewrite before them) take for each byte of a chunk: 100 for a
// chunk of assignments, 160 for one of concatenations, as measured.
const compileBytes = 160

// compileFits reports whether the memory budget of L's universe has room
// to compile a chunk of n bytes: a compile is not watched as it runs, and
// a large one would otherwise end the process with Go's fatal out of
// memory (under ulimit -v) rather than Lua's "not enough memory".
func compileFits(L *lua.LState, n int) bool {
	if n < largeAllocation/compileBytes {
		return true
	}
	m := monitorOf(L)
	return m == nil || m.memory.fits(int64(n)*compileBytes)
}

// compileSource compiles src, named chunkname, touching no state; its error
// is a syntax error worded as lua.c shows it.
func compileSource(src []byte, chunkname string) (*compiled, error) {
	if isBinaryChunk(src) {
		return nil, syntaxFailure(binaryChunkError(src, chunkname), nil)
	}
	constructors, se := checkSyntax(src)
	if se != nil {
		return nil, syntaxFailure(se.format(chunkID(chunkname, srcSize)), se)
	}
	c, err := compileChunk(src, ChunkID(chunkname), constructors)
	if err != nil {
		return nil, syntaxFailure(rewordSyntax(src, chunkID(chunkname, srcSize), err), err)
	}
	markSource(c.proto, &chunkSource{chunkname})
	return c, nil
}

// compileStopped is the error of a load whose host's context ended while
// the chunk id compiled: a run-time error, as the interpreter's when the
// context ends while Lua code runs, with the context's error in its words
// ("id: context canceled").
func compileStopped(id string, cause error) error {
	return &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(id + ": " + cause.Error()), Cause: cause}
}

// chunkSource is the chunkname a prototype was loaded with. It is kept as
// an extra constant at the end of the prototype's constants, which no
// instruction reads: gopher-lua's prototypes have only the chunk id
// (SourceName) that positions show.
type chunkSource struct{ name string }

// markSource appends src to the constants of p and of the functions in it.
func markSource(p *lua.FunctionProto, src *chunkSource) {
	p.Constants = append(p.Constants, &lua.LUserData{Value: src})
	for _, nested := range p.FunctionPrototypes {
		markSource(nested, src)
	}
}

// Source is what Lua 5.1's debug.getinfo(fn).source is: the chunkname fn
// was loaded with by this package ("@script.lua", "=stdin", or the source
// text of a string chunk); short_src is ChunkID of it. ok is false for Go
// functions and functions loaded otherwise, whose source gopher-lua knows
// only as Proto.SourceName.
func Source(fn *lua.LFunction) (source string, ok bool) {
	if fn == nil || fn.IsG || len(fn.Proto.Constants) == 0 {
		return "", false
	}
	if ud, isUD := fn.Proto.Constants[len(fn.Proto.Constants)-1].(*lua.LUserData); isUD {
		if src, isSrc := ud.Value.(*chunkSource); isSrc {
			return src.name, true
		}
	}
	return "", false
}

// syntaxFailure is the error of a chunk that does not compile.
func syntaxFailure(msg string, cause error) error {
	return &lua.ApiError{Type: lua.ApiErrorSyntax, Object: lua.LString(msg), Cause: cause}
}

// rewordSyntax words an error of gopher-lua's parser or compiler the way
// lua.c shows errors, for chunks that Lua 5.1's grammar accepts and
// gopher-lua's does not (goto used as a name), or a limit of its compiler.
func rewordSyntax(src []byte, id string, cause error) string {
	var perr *parse.Error
	if errors.As(cause, &perr) {
		line, near := perr.Pos.Line, perr.Token
		if line == parse.EOF {
			line, near = lastLine(src), "<eof>"
		}
		msg := perr.Message
		if msg == "syntax error" {
			msg = "unexpected symbol"
		}
		return fmt.Sprintf("%s:%d: %s near '%s'", id, line, msg, near)
	}
	var cerr *lua.CompileError
	if errors.As(cause, &cerr) {
		return fmt.Sprintf("%s:%d: %s", id, cerr.Line, cerr.Message)
	}
	return fmt.Sprintf("%s: %v", id, cause)
}

// lastLine is the number of the last line of src, as Lua's lexer counts
// lines ("\r\n" and "\n\r" are one line break).
func lastLine(src []byte) int {
	lx := lexer5{src: src, line: 1}
	for lx.current() != eoz {
		if lx.isNewline() {
			lx.incLine()
		} else {
			lx.next()
		}
	}
	return lx.line
}

// installLoad replaces load, loadstring, loadfile, dofile, require and its
// loaders of package.preload and Lua files (package.loaders[1] and [2])
// with ones that name chunks, word syntax errors and report missing
// modules as Lua 5.1 does, error with one that gives positions as Lua 5.1
// does, debug.getinfo with one that gives Lua 5.1's source and
// short_src, debug.traceback with Lua 5.1's arguments, and
// debug.getmetatable and setmetatable with Lua 5.1's results.
func installLoad(L *lua.LState) {
	installError(L)
	installGetinfo(L)
	installTraceback(L)
	installDebugMetatable(L)
	L.SetGlobal("load", L.NewFunction(baseLoad))
	L.SetGlobal("loadstring", L.NewFunction(baseLoadString))
	L.SetGlobal("loadfile", L.NewFunction(baseLoadFile))
	L.SetGlobal("dofile", L.NewFunction(baseDoFile))
	pkg, ok := L.GetGlobal("package").(*lua.LTable)
	if !ok {
		return
	}
	pkg.RawSetString("path", lua.LString(packagePath(os.LookupEnv("LUA_PATH"))))
	if loaders, ok := L.GetField(pkg, "loaders").(*lua.LTable); ok {
		L.RawSetInt(loaders, 1, L.NewFunction(func(L *lua.LState) int { return loaderPreload(L, pkg) }))
		L.RawSetInt(loaders, 2, L.NewFunction(func(L *lua.LState) int { return loaderLua(L, pkg) }))
	}
	r := &requirer{pkg: pkg, sentinel: L.NewUserData()}
	L.SetGlobal("require", L.NewFunction(r.require))
}

// luaPathDefault is the package.path of Debian's lua5.1, the reference
// interpreter (Lua 5.1's default with Debian's /usr/share/lua/5.1 after
// it); gopher-lua's default has only its first three entries, so modules
// installed where lua5.1 finds them were not found.
const luaPathDefault = "./?.lua;/usr/local/share/lua/5.1/?.lua;/usr/local/share/lua/5.1/?/init.lua;" +
	"/usr/local/lib/lua/5.1/?.lua;/usr/local/lib/lua/5.1/?/init.lua;" +
	"/usr/share/lua/5.1/?.lua;/usr/share/lua/5.1/?/init.lua"

// packagePath is package.path as Lua 5.1's setpath makes it from the
// environment variable LUA_PATH (env, set says whether it is set): the
// default when it is not set, else its value with each ";;" replaced by
// ";" and the default and ";".
func packagePath(env string, set bool) string {
	if !set {
		return luaPathDefault
	}
	return strings.ReplaceAll(env, ";;", ";"+luaPathDefault+";")
}

// pushLoaded returns load's results: the function, or nil and the message.
func pushLoaded(L *lua.LState, fn *lua.LFunction, err error) int {
	if err != nil {
		L.Push(lua.LNil)
		L.Push(errorValue(err))
		return 2
	}
	L.Push(fn)
	return 1
}

// errorValue is the Lua value of a loading error.
func errorValue(err error) lua.LValue {
	var api *lua.ApiError
	if errors.As(err, &api) {
		return api.Object
	}
	return lua.LString(err.Error())
}

// baseLoad is load(func [, chunkname]): the chunk is the concatenation of
// func's results up to nil or an empty string. As in Lua 5.1, an error of
// the reader is returned, not raised.
func baseLoad(L *lua.LState) int {
	reader := checkFunction(L, 1)
	chunkname := optString(L, 2, "=(load)")
	src, err := readAll(L, reader)
	if err != nil {
		return pushLoaded(L, nil, err)
	}
	fn, err := loadBytes(L, src, chunkname)
	return pushLoaded(L, fn, err)
}

// readAll calls reader until it returns nil or an empty string and joins
// its pieces.
func readAll(L *lua.LState, reader *lua.LFunction) ([]byte, error) {
	var src []byte
	for {
		L.Push(reader)
		if err := L.PCall(0, 1, nil); err != nil {
			return nil, err
		}
		v := L.Get(-1)
		L.Pop(1)
		if v == lua.LNil {
			return src, nil
		}
		if !isStringOrNumber(v) {
			return nil, errors.New(Where(L, 1) + "reader function must return a string")
		}
		s := lua.LVAsString(v)
		if n, ok := v.(lua.LNumber); ok {
			s = NumberToString(n)
		}
		if s == "" {
			return src, nil
		}
		src = append(src, s...)
	}
}

// isStringOrNumber is lua_isstring.
func isStringOrNumber(v lua.LValue) bool {
	switch v.(type) {
	case lua.LString, lua.LNumber:
		return true
	}
	return false
}

// baseLoadString is loadstring(s [, chunkname]).
func baseLoadString(L *lua.LState) int {
	src := checkString(L, 1)
	chunkname := optString(L, 2, src)
	fn, err := loadBytes(L, []byte(src), chunkname)
	return pushLoaded(L, fn, err)
}

// baseLoadFile is loadfile([filename]); without a name it reads stdin.
func baseLoadFile(L *lua.LState) int {
	fn, err := LoadFile(L, optString(L, 1, ""))
	return pushLoaded(L, fn, err)
}

// baseDoFile is dofile([filename]): it runs the file and returns its
// results; a loading error is raised as it is, without a position.
func baseDoFile(L *lua.LState) int {
	fn, err := LoadFile(L, optString(L, 1, ""))
	if err != nil {
		L.Error(errorValue(err), 0)
	}
	top := L.GetTop()
	L.Push(fn)
	L.Call(0, lua.MultRet)
	return L.GetTop() - top
}

// requirer is Lua 5.1's require for the package table pkg: sentinel marks
// a module being loaded, to find loops.
type requirer struct {
	pkg      *lua.LTable
	sentinel *lua.LUserData
}

// require is require(name) as Lua 5.1's ll_require: package.loaded[name],
// or the first loader's function that finds the module, run with name; the
// messages of the loaders that did not are joined in the error.
func (r *requirer) require(L *lua.LState) int {
	name := checkString(L, 1)
	loaded, ok := L.GetField(L.Get(lua.RegistryIndex), "_LOADED").(*lua.LTable)
	if !ok {
		luaError(L, "'package.loaded' must be a table")
	}
	if v := L.GetField(loaded, name); lua.LVAsBool(v) {
		if v == r.sentinel {
			luaError(L, "loop or previous error loading module '%s'", name)
		}
		L.Push(v)
		return 1
	}
	loaders, ok := L.GetField(r.pkg, "loaders").(*lua.LTable)
	if !ok {
		luaError(L, "'package.loaders' must be a table")
	}
	var tried strings.Builder
	var module lua.LValue
	for i := 1; module == nil; i++ {
		loader := L.RawGetInt(loaders, i)
		if loader == lua.LNil {
			luaError(L, "module '%s' not found:%s", name, tried.String())
		}
		L.Push(loader)
		L.Push(lua.LString(name))
		L.Call(1, 1)
		switch v := L.Get(-1).(type) {
		case *lua.LFunction:
			module = v
		case lua.LString, lua.LNumber:
			tried.WriteString(plainString(v))
		}
		L.Pop(1)
	}
	L.SetField(loaded, name, r.sentinel)
	L.Push(module)
	L.Push(lua.LString(name))
	L.Call(1, 1)
	if v := L.Get(-1); v != lua.LNil {
		L.SetField(loaded, name, v)
	}
	L.Pop(1)
	v := L.GetField(loaded, name)
	if v == r.sentinel {
		v = lua.LTrue
		L.SetField(loaded, name, v)
	}
	L.Push(v)
	return 1
}

// loaderPreload is package.loaders[1]: package.preload[name].
func loaderPreload(L *lua.LState, pkg *lua.LTable) int {
	name := checkString(L, 1)
	preload, ok := L.GetField(pkg, "preload").(*lua.LTable)
	if !ok {
		luaError(L, "'package.preload' must be a table")
	}
	if v := L.GetField(preload, name); v != lua.LNil {
		L.Push(v)
		return 1
	}
	L.Push(lua.LString(fmt.Sprintf("\n\tno field package.preload['%s']", name)))
	return 1
}

// loaderLua is package.loaders[2]: it looks for name along package.path
// and loads the file it finds, as Lua 5.1's loader_Lua does.
func loaderLua(L *lua.LState, pkg *lua.LTable) int {
	name := checkString(L, 1)
	path := L.GetField(pkg, "path")
	if !isStringOrNumber(path) {
		luaError(L, "'package.path' must be a string")
	}
	file, tried := findFile(strings.ReplaceAll(name, ".", string(os.PathSeparator)), plainString(path))
	if file == "" {
		L.Push(lua.LString(tried))
		return 1
	}
	fn, err := LoadFile(L, file)
	if err != nil {
		luaError(L, "error loading module '%s' from file '%s':\n\t%s", name, file, lua.LVAsString(errorValue(err)))
	}
	L.Push(fn)
	return 1
}

// findFile returns the first file of the ';'-separated templates of path,
// with '?' replaced by name, that can be opened for reading; when there is
// none, tried lists them as Lua 5.1 does ("\n\tno file 'x.lua'" each).
func findFile(name, path string) (file, tried string) {
	var b strings.Builder
	for _, template := range strings.Split(path, ";") {
		if template == "" {
			continue
		}
		candidate := strings.ReplaceAll(template, "?", name)
		if f, err := os.Open(candidate); err == nil {
			f.Close()
			return candidate, ""
		}
		fmt.Fprintf(&b, "\n\tno file '%s'", candidate)
	}
	return "", b.String()
}
