package luaprogram

import (
	"context"
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/lua51"
)

// machine is one Lua state that runs a program: the compiled chunk, the
// pristine globals every invocation's environment is copied from, and the
// thread of the invocation it runs.
type machine struct {
	prog  *Program
	L     *lua.LState
	chunk *lua.LFunction
	// host is what the chunk returned when the machine was made: whether
	// it has a check, and its sites. Its functions are never run: each
	// call of a check or a buffers declaration runs the chunk afresh.
	host spec
	// globals are the state's globals as made, and libraries the
	// functions of each library table among them: what every
	// environment is built from, kept where no Lua code reaches them.
	globals   []field
	libraries map[string][]field
	// stringMeta is the strings' metatable, which every value of the
	// state shares, and stringFields its fields as made: each environment
	// sets them again, with __index its own copy of string.
	stringMeta   *lua.LTable
	stringFields []field

	// th is the thread invocations run on, one after another: a thread
	// whose function returned has an empty stack, and the next starts
	// its own function on it. One stopped inside the program (an error,
	// a retirement, a hang, a reset) is dropped, so that no invocation
	// reaches another's frames; nil until the next invocation makes one.
	th *lua.LState

	run    *Instance             // the invocation being stepped, if any
	pShare map[deviceKey][]field // the fields of p its device's invocations share (deviceFields)
	bufMT  *lua.LTable           // buffer handles' metatable
	method []field               // p's methods
	none   []lua.LValue          // no results, for a resume
	one    [1]lua.LValue         // one result, for a resume
	// checking is the invocation whose check runs, which c:load and
	// c:read (checkLoad, checkRead) read the buffers of.
	checking             *Instance
	checkLoad, checkRead *lua.LFunction
	// seed is the invocation's seed of math.random, which seeds the
	// generator when pendingSeed says it has not yet (seedLazily).
	seed        uint64
	pendingSeed bool
}

// field is a key of a table and its value.
type field struct {
	k, v lua.LValue
}

// fieldsOf lists t's fields.
func fieldsOf(t *lua.LTable) []field {
	var out []field
	t.ForEach(func(k, v lua.LValue) { out = append(out, field{k, v}) })
	return out
}

// removedGlobals are what a program's state leaves out: files, processes,
// modules, the debug library (whose hooks would replace the budget) and
// coroutines (a program is straight-line code; its memory operations are
// its only yields).
var removedGlobals = []string{"io", "os", "package", "require", "module", "dofile", "loadfile", "debug", "coroutine"}

// newMachine makes a Lua state of the program, compiling its chunk under
// ctx (nil for none), and runs the chunk there.
func (p *Program) newMachine(ctx context.Context) (*machine, error) {
	L := lua51.NewState(lua51.Options{Stdout: p.opts.Stdout, MemoryLimit: p.opts.MemoryLimit})
	for _, name := range removedGlobals {
		L.SetGlobal(name, lua.LNil)
	}
	openBit32(L)
	m := &machine{prog: p, L: L, pShare: map[deviceKey][]field{}, libraries: map[string][]field{}}
	m.seedLazily()
	L.G.Global.ForEach(func(k, v lua.LValue) {
		if k == lua.LString("_G") {
			return
		}
		m.globals = append(m.globals, field{k, v})
		if lib, ok := v.(*lua.LTable); ok {
			m.libraries[lua.LVAsString(k)] = fieldsOf(lib)
		}
	})
	if mt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		m.stringMeta, m.stringFields = mt, fieldsOf(mt)
	}
	m.setContext(ctx)
	chunk, err := lua51.LoadString(L, p.text, p.chunkname)
	if err != nil {
		L.Close()
		var api *lua.ApiError
		if errors.As(err, &api) {
			return nil, errors.New(lua.LVAsString(api.Object))
		}
		return nil, err
	}
	m.chunk = chunk
	m.setContext(nil)
	m.initMethods()
	m.initCheck()
	if m.host, err = m.spec(); err != nil {
		L.Close()
		return nil, err
	}
	return m, nil
}

func (m *machine) close() { m.L.Close() }

// environment makes a fresh environment: the globals as made, with fresh
// copies of the library tables, and no metatable. It sets the strings'
// metatable as made, with __index the environment's string: nothing one
// invocation writes (to its globals, its libraries, the strings'
// metatable) is seen by another.
func (m *machine) environment() *lua.LTable {
	L := m.L
	env := L.CreateTable(0, len(m.globals)+1)
	for _, g := range m.globals {
		v := g.v
		if lib, ok := m.libraries[lua.LVAsString(g.k)]; ok {
			t := L.CreateTable(0, len(lib))
			for _, f := range lib {
				t.RawSet(f.k, f.v)
			}
			v = t
		}
		env.RawSet(g.k, v)
	}
	env.RawSetString("_G", env)
	if mt := m.stringMeta; mt != nil {
		var keys []lua.LValue
		mt.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
		for _, k := range keys {
			mt.RawSet(k, lua.LNil)
		}
		for _, f := range m.stringFields {
			mt.RawSet(f.k, f.v)
		}
		if s, ok := env.RawGetString("string").(*lua.LTable); ok {
			mt.RawSetString("__index", s)
		}
		mt.Metatable = lua.LNil
	}
	return env
}

// spec runs the chunk afresh in a fresh environment and reads what it
// returns.
func (m *machine) spec() (spec, error) {
	fn := m.chunkIn(m.environment())
	res, err := m.call(fn)
	if err != nil {
		return spec{}, fmt.Errorf("%s: %w", m.prog.Name(), err)
	}
	return readSpec(m.prog.Name(), res)
}

// chunkIn is the compiled chunk as a function whose globals are env. It
// shares the chunk's upvalues, which the Lua 5.1 loader gives it and which
// hold only its own helpers (the concatenation of Lua 5.1).
func (m *machine) chunkIn(env *lua.LTable) *lua.LFunction {
	fn := *m.chunk
	fn.Env = env
	return &fn
}

// call calls fn with args on the state's main thread, under the
// instruction budget and the host's context, and returns its first result;
// an error carries its traceback. fn may not yield: the memory operations
// refuse to run outside an invocation.
func (m *machine) call(fn *lua.LFunction, args ...lua.LValue) (lua.LValue, error) {
	m.L.Push(fn)
	for _, a := range args {
		m.L.Push(a)
	}
	if err := m.pcall(len(args), 1); err != nil {
		return nil, errors.New(m.budgetText(err, m.describe(err)))
	}
	res := m.L.Get(-1)
	m.L.Pop(1)
	return res, nil
}

// describe is an error of lua51.PCall as its message, cut to maxMessage,
// and traceback.
func (m *machine) describe(err error) string {
	var api *lua.ApiError
	if !errors.As(err, &api) {
		return err.Error()
	}
	msg := truncateMessage(m.errorText(err))
	if api.StackTrace == "" {
		return msg
	}
	return msg + "\n" + api.StackTrace
}

// errorText is a Lua error's message, as tostring gives it (under the
// budget, so that an error object whose __tostring loops cannot hang).
func (m *machine) errorText(err error) string {
	var api *lua.ApiError
	if !errors.As(err, &api) {
		return err.Error()
	}
	if s, ok := api.Object.(lua.LString); ok {
		return string(s)
	}
	cannot := "(an error value that tostring cannot describe: a " + api.Object.Type().String()
	m.L.Push(m.L.NewFunction(func(L *lua.LState) int {
		if fn := L.GetMetaField(api.Object, "__tostring"); fn != lua.LNil {
			L.Push(fn)
			L.Push(api.Object)
			L.Call(1, 1)
			if t := L.Get(-1).Type(); t != lua.LTString && t != lua.LTNumber {
				L.Push(lua.LString(cannot + " whose __tostring gave a " + t.String() + ")"))
			}
			return 1
		}
		L.Push(lua.LString(lua51.ToString(L, api.Object)))
		return 1
	}))
	if m.pcall(0, 1) != nil {
		return cannot + ")"
	}
	text := lua.LVAsString(m.L.Get(-1))
	m.L.Pop(1)
	return text
}

// traceback lists the Lua frames of th, a thread that stopped at an error,
// innermost first, as Lua's stack traceback does.
func traceback(th *lua.LState) string {
	var lines []string
	for level := 0; ; level++ {
		dbg, ok := th.GetStack(level)
		if !ok {
			break
		}
		if _, err := th.GetInfo("nSl", dbg, lua.LNil); err != nil {
			continue
		}
		where, what := dbg.Source, "in function <"+dbg.Source+fmt.Sprintf(":%d>", dbg.LineDefined)
		if dbg.CurrentLine > 0 {
			where += fmt.Sprintf(":%d", dbg.CurrentLine)
		}
		switch {
		case dbg.What == "G":
			where, what = "[C]", "in a Go function"
		case isBottom(th, level):
			// The program's function, which gopher-lua calls the
			// thread's main chunk; Lua 5.1 names it by its place.
		case dbg.Name != "":
			what = "in function '" + dbg.Name + "'"
		case dbg.What == "main":
			what = "in main chunk"
		}
		if dbg.What == "G" && dbg.Name != "" {
			what = "in function '" + dbg.Name + "'"
		}
		lines = append(lines, "\t"+where+": "+what)
	}
	if len(lines) == 0 {
		return ""
	}
	return "\nstack traceback:\n" + strings.Join(elideLevels(lines), "\n")
}

// isBottom reports whether level is the bottom of th's stack: the
// program's function.
func isBottom(th *lua.LState, level int) bool {
	_, more := th.GetStack(level + 1)
	return !more
}
