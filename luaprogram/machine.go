package luaprogram

import (
	"context"
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices/program"
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
	// it has a check, and its sites. Its functions are never run: a
	// buffers declaration runs the chunk afresh, and an invocation or a
	// check runs the function fresh gives it.
	host spec
	// globals are the state's globals as made (lib the index in libs of
	// those that are library tables, -1 for the others), and libs the
	// library tables' fields: what every environment is made of, kept
	// where no Lua code reaches them.
	globals []global
	libs    []library
	// env is the environment the last invocation was given, its library
	// tables the libs' copies, and uses how many invocations were given
	// it: the next one is given it again when it holds only what it was
	// made with (renew), else a new one.
	env  *lua.LTable
	uses int
	// stringMeta is the strings' metatable, which every value of the
	// state shares, and stringFields its fields as made: each environment
	// sets them again, with __index its own copy of string.
	stringMeta   *lua.LTable
	stringFields []field
	// stringEnds are the first and last keys of the strings' metatable in
	// its iteration order when it was last set as made (nothingElse).
	stringEnds [2]lua.LValue

	// th is the thread invocations run on, one after another: a thread
	// whose function returned has an empty stack, and the next starts
	// its own function on it. One stopped inside the program (an error,
	// a retirement, a hang, a reset) is ended where it stopped and kept
	// when that empties it (Instance.end), else dropped, so that no
	// invocation reaches another's frames; nil until the next invocation
	// makes one.
	th *lua.LState

	run *Instance   // the invocation being stepped, if any
	p   *lua.LTable // the last invocation's p (newP)
	// startup, bufs, bufHandles and bufNames are the last invocation's
	// p.startup and p.buffers, with the handles and names bufs was made
	// with (handles).
	startup    *lua.LUserData
	bufs       *lua.LTable
	bufHandles []*lua.LUserData
	bufNames   []string
	// args is the copy of argsFor the last invocation or check was given,
	// made of argsFields (argsOf).
	args       *lua.LTable
	argsFor    Args
	argsFields []field
	// timing is the last invocation's p.timing, made of timingFields, the
	// figures of timingFor (timingOf).
	timing       *lua.LTable
	timingFields []field
	timingFor    program.Timing
	pShare       map[deviceKey][]field // the fields of p its device's invocations share (deviceFields)
	bufMT        *lua.LTable           // buffer handles' metatable
	method       []field               // p's methods
	none         []lua.LValue          // no results, for a resume
	one          [1]lua.LValue         // one result, for a resume
	// checking is the invocation whose check runs, which c:load and
	// c:read (checkLoad, checkRead) read the buffers of.
	checking             *Instance
	checkLoad, checkRead *lua.LFunction
	// seed is the invocation's seed of math.random, which seeds the
	// generator when pendingSeed says it has not yet (seedLazily).
	seed        uint64
	pendingSeed bool
	draws       uint64 // calls of math.random and math.randomseed
	// memo remembers the checks that passed (checkMemo).
	memo checkMemo
	// out counts what print wrote, and sealed are the chunk's run and
	// check as its last runs made them (fresh).
	out    *writeCounter
	sealed [2]*sealed
}

// field is a key of a table and its value.
type field struct {
	k, v lua.LValue
}

// global is a global as the state made it; lib is the index in
// machine.libs of a library table, -1 for another value.
type global struct {
	field
	lib int
}

// library is a library table of the globals: its fields as made, and the
// copy of it that the current environment holds.
type library struct {
	fields []field
	copy   *lua.LTable
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
	out := &writeCounter{w: p.opts.Stdout}
	L := lua51.NewState(lua51.Options{Stdout: out, MemoryLimit: p.opts.MemoryLimit})
	for _, name := range removedGlobals {
		L.SetGlobal(name, lua.LNil)
	}
	openBit32(L)
	m := &machine{prog: p, L: L, pShare: map[deviceKey][]field{}, out: out}
	m.seedLazily()
	L.G.Global.ForEach(func(k, v lua.LValue) {
		if k == lua.LString("_G") {
			return
		}
		g := global{field{k, v}, -1}
		if lib, ok := v.(*lua.LTable); ok {
			g.lib = len(m.libs)
			m.libs = append(m.libs, library{fields: fieldsOf(lib)})
		}
		m.globals = append(m.globals, g)
	})
	if mt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		m.stringMeta, m.stringFields = mt, fieldsOf(mt)
	}
	if p.chunk == nil {
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
		// The chunk is a vararg function, for which gopher-lua makes Lua
		// 5.0's arg table at every call unless the function reads "...";
		// a main chunk has no local arg to reach it by, so the table is
		// never seen, and each invocation runs the chunk.
		chunk.Proto.IsVarArg &^= lua.VarArgNeedsArg
		p.chunk = chunk
	}
	// Every machine runs the chunk the first one compiled: its prototype,
	// and its one upvalue, Lua 5.1's operators (a Go function that keeps
	// nothing), are never written once made.
	chunk := *p.chunk
	m.chunk = &chunk
	var err error
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

// environment is an environment as new: the globals as made, with copies
// of the library tables, and no metatable, which it makes the main
// thread's environment too. It sets the strings' metatable as made, with __index the
// environment's string: nothing one invocation writes (to its globals,
// its libraries, the strings' metatable) is seen by another.
//
// Making the tables is most of what an invocation costs the host, and
// most invocations change none of them, so the machine gives the next
// invocation the last one's environment again, and each library copy,
// when it holds exactly what it was made with and has no metatable
// (renewed); a table that differs in anything is made anew, so that what
// an earlier invocation kept of it reaches nothing a later one is given.
// Every maxUses invocations all are made anew, so that no table grows
// for ever by keys added and removed.
func (m *machine) environment() *lua.LTable {
	L := m.L
	m.uses++
	fresh := m.uses > maxUses
	if fresh {
		m.uses = 1
	}
	stale := fresh || m.env == nil || !m.asMade(m.env)
	for i := range m.libs {
		lib := &m.libs[i]
		if fresh || lib.copy == nil || !holdsOnly(lib.copy, lib.fields) {
			lib.copy = L.CreateTable(0, len(lib.fields))
			for _, f := range lib.fields {
				lib.copy.RawSet(f.k, f.v)
			}
			stale = true
		}
	}
	if stale {
		env := L.CreateTable(0, len(m.globals)+1)
		for _, g := range m.globals {
			env.RawSet(g.k, m.valueOf(g))
		}
		env.RawSetString("_G", env)
		m.env = env
	}
	// The environment is the main thread's too: what a check or a buffers
	// declaration, which run on it, finds by getfenv(0), and what loadstring
	// gives the functions it makes there.
	L.Env = m.env
	if mt := m.stringMeta; mt != nil {
		index, _ := m.env.RawGetString("string").(*lua.LTable)
		if mt.Metatable != lua.LNil || !holdsBut(mt, m.stringFields, "__index", index) || !nothingElse(mt, m.stringEnds[0], m.stringEnds[1]) {
			var keys []lua.LValue
			mt.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
			for _, k := range keys {
				mt.RawSet(k, lua.LNil)
			}
			for _, f := range m.stringFields {
				mt.RawSet(f.k, f.v)
			}
			if index != nil {
				mt.RawSetString("__index", index)
			}
			mt.Metatable = lua.LNil
			m.stringEnds = ends(mt)
		}
	}
	return m.env
}

// argsOf is the copy of a an invocation or a check is given: the last one
// given when a is the same flat arguments and it holds exactly them (as
// with the environment, most invocations change nothing of theirs), else a
// new copy.
func (m *machine) argsOf(a Args) lua.LValue {
	if m.args != nil && m.argsFor.root == a.root && holdsOnly(m.args, m.argsFields) {
		return m.args
	}
	v := a.lua(m.L)
	m.args, m.argsFields = nil, m.argsFields[:0]
	if t, ok := v.(*lua.LTable); ok && a.flat() {
		m.args, m.argsFor = t, a
		t.ForEach(func(k, v lua.LValue) { m.argsFields = append(m.argsFields, field{k, v}) }) // in the order lua set them
	}
	return v
}

// maxUses is how many invocations a machine gives one environment at most.
const maxUses = 1024

// valueOf is global g's value in the current environment: its library
// table's copy, or its value as made.
func (m *machine) valueOf(g global) lua.LValue {
	if g.lib >= 0 {
		return m.libs[g.lib].copy
	}
	return g.v
}

// asMade reports whether env holds exactly the globals, with the current
// library copies, and _G, and has no metatable.
func (m *machine) asMade(env *lua.LTable) bool {
	if env.Metatable != lua.LNil || env.RawGetString("_G") != env {
		return false
	}
	for _, g := range m.globals {
		if env.RawGet(g.k) != m.valueOf(g) {
			return false
		}
	}
	return len(m.globals) > 0 && nothingElse(env, m.globals[0].k, lua.LString("_G"))
}

// holdsOnly reports whether t (a library's copy, the arguments' copy)
// holds exactly fields, numbers compared bit for bit (same), and has no
// metatable.
func holdsOnly(t *lua.LTable, fields []field) bool {
	if t.Metatable != lua.LNil {
		return false
	}
	for _, f := range fields {
		if !same(t.RawGet(f.k), f.v) {
			return false
		}
	}
	return len(fields) == 0 && count(t) == 0 || len(fields) > 0 && nothingElse(t, fields[0].k, fields[len(fields)-1].k)
}

// nothingElse reports whether t, made by setting string keys from first to
// last and holding each of them, holds no other key. Its iteration order
// (Next) is the order keys were first set, a key removed keeping its
// place: past last there is no key holding a value, and the first is
// first unless a key of the array part holds one.
func nothingElse(t *lua.LTable, first, last lua.LValue) bool {
	k, _ := t.Next(lua.LNil)
	if k != first {
		return false
	}
	k, _ = t.Next(last)
	return k == lua.LNil
}

// holdsBut reports whether t holds fields, but for the field key, which
// is v (nil: absent). Whether it holds anything else is nothingElse's to
// say.
func holdsBut(t *lua.LTable, fields []field, key string, v *lua.LTable) bool {
	for _, f := range fields {
		if f.k != lua.LString(key) && t.RawGet(f.k) != f.v {
			return false
		}
	}
	got := t.RawGetString(key)
	if v == nil {
		return got == lua.LNil
	}
	return got == lua.LValue(v)
}

// ends are the first and last keys of t in its iteration order (nil and
// nil for an empty t), which nothingElse checks a table against for keys
// added since.
func ends(t *lua.LTable) [2]lua.LValue {
	first, _ := t.Next(lua.LNil)
	last := first
	for k := first; k != lua.LNil; k, _ = t.Next(k) {
		last = k
	}
	return [2]lua.LValue{first, last}
}

// count is how many fields t holds.
func count(t *lua.LTable) int {
	n := 0
	t.ForEach(func(lua.LValue, lua.LValue) { n++ })
	return n
}

// spec runs the chunk afresh in a fresh environment and reads what it
// returns.
func (m *machine) spec() (spec, error) { return m.specIn(m.environment()) }

// specIn runs the chunk afresh in env and reads what it returns.
func (m *machine) specIn(env *lua.LTable) (spec, error) {
	fn := m.chunkIn(env)
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
