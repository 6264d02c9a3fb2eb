package luaprogram

import (
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/lua51"
)

// machine is one Lua state that runs a program: the compiled chunk, the
// pristine globals every invocation's environment is copied from, and the
// thread that runs invocations one after another.
type machine struct {
	prog  *Program
	L     *lua.LState
	chunk *lua.LFunction
	// host is what the chunk returned when the machine was made: its
	// buffers declaration and its check, which run on the host in that
	// first environment (they compute from their arguments alone).
	host    spec
	envMeta *lua.LTable // every environment's metatable: reads fall through to the globals as made

	// The thread runs the trampoline: it calls an invocation's function,
	// then yields in finished until the next one. It is nil when it died
	// (an error, or an invocation that did not end cleanly).
	th    *lua.LState
	tramp *lua.LFunction

	run    *Instance                 // the invocation being stepped, if any
	pMetas map[deviceKey]*lua.LTable // p's metatables (deviceMeta)
	bufMT  *lua.LTable               // buffer handles' metatable
	method *lua.LTable               // p's methods
	none   []lua.LValue              // no results, for a resume
	one    [1]lua.LValue             // one result, for a resume
	// checking is the invocation whose check runs, which c:load and
	// c:read (checkLoad, checkRead) read the buffers of.
	checking             *Instance
	checkLoad, checkRead *lua.LFunction
	// seed is the invocation's seed of math.random, which seeds the
	// generator when pendingSeed says it has not yet (seedLazily).
	seed        uint64
	pendingSeed bool
}

// removedGlobals are what a program's state leaves out: files, processes,
// modules, the debug library (whose hooks would replace the budget) and
// coroutines (a program is straight-line code; its memory operations are
// its only yields).
var removedGlobals = []string{"io", "os", "package", "require", "module", "dofile", "loadfile", "debug", "coroutine"}

// trampoline calls each invocation's function on the machine's thread.
const trampoline = `local run, p, args = ...
while true do
	run(p, args)
	run, p, args = finished()
end`

func (p *Program) newMachine() (*machine, error) {
	L := lua51.NewState(lua51.Options{Stdout: p.opts.Stdout, MemoryLimit: p.opts.MemoryLimit})
	for _, name := range removedGlobals {
		L.SetGlobal(name, lua.LNil)
	}
	openBit32(L)
	m := &machine{prog: p, L: L, envMeta: L.NewTable(), pMetas: map[deviceKey]*lua.LTable{}}
	m.seedLazily()
	base := L.NewTable()
	L.G.Global.ForEach(func(k, v lua.LValue) {
		if k != lua.LString("_G") {
			base.RawSet(k, v)
		}
	})
	m.envMeta.RawSetString("__index", base)
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
	tramp, err := lua51.LoadString(L, trampoline, "=trampoline")
	if err != nil {
		L.Close()
		return nil, fmt.Errorf("luaprogram: the trampoline does not compile: %w", err)
	}
	env := L.NewTable()
	env.RawSetString("finished", L.NewFunction(m.finished))
	tramp.Env = env
	m.tramp = tramp
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

// environment makes a fresh environment: an empty table of globals whose
// reads fall through to the state's globals as made. What one invocation
// sets is its own; the library tables are shared, and a program must not
// change them.
func (m *machine) environment() *lua.LTable {
	env := m.L.NewTable()
	m.L.SetMetatable(env, m.envMeta)
	env.RawSetString("_G", env)
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
		return nil, errors.New(m.budgetText(err, describe(m.L, err)))
	}
	res := m.L.Get(-1)
	m.L.Pop(1)
	return res, nil
}

// describe is an error of lua51.PCall as its message and traceback.
func describe(L *lua.LState, err error) string {
	var api *lua.ApiError
	if errors.As(err, &api) {
		if api.StackTrace == "" {
			return lua51.ToString(L, api.Object)
		}
		return lua51.ToString(L, api.Object) + "\n" + api.StackTrace
	}
	return err.Error()
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
	m.L.Push(m.L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(lua51.ToString(L, api.Object)))
		return 1
	}))
	if m.pcall(0, 1) != nil {
		return "(an error value that tostring cannot describe: a " + api.Object.Type().String() + ")"
	}
	text := lua.LVAsString(m.L.Get(-1))
	m.L.Pop(1)
	return text
}

// traceback lists the Lua frames of th, a thread that stopped at an error,
// innermost first, as Lua's stack traceback does (the trampoline left out).
func traceback(th *lua.LState) string {
	var b strings.Builder
	for level := 0; ; level++ {
		dbg, ok := th.GetStack(level)
		if !ok {
			break
		}
		if _, err := th.GetInfo("nSl", dbg, lua.LNil); err != nil || dbg.Source == "trampoline" {
			continue
		}
		where, what := dbg.Source, "in function <"+dbg.Source+fmt.Sprintf(":%d>", dbg.LineDefined)
		if dbg.CurrentLine > 0 {
			where += fmt.Sprintf(":%d", dbg.CurrentLine)
		}
		switch {
		case dbg.What == "G":
			where, what = "[C]", "in a Go function"
		case dbg.Name != "":
			what = "in function '" + dbg.Name + "'"
		case dbg.What == "main":
			what = "in main chunk"
		}
		if dbg.What == "G" && dbg.Name != "" {
			what = "in function '" + dbg.Name + "'"
		}
		b.WriteString("\n\t" + where + ": " + what)
	}
	if b.Len() == 0 {
		return ""
	}
	return "\nstack traceback:" + b.String()
}

// finished is the trampoline's: the invocation's function returned.
func (m *machine) finished(L *lua.LState) int {
	if m.run != nil {
		m.run.finished = true
	}
	return L.Yield()
}
