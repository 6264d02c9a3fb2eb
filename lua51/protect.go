package lua51

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Why protected calls run on helper threads: when an error is raised with no
// error function set, gopher-lua closes the open upvalues of every frame of
// the state that raised it, including the frames below the pcall, so a
// caller's closures stop seeing its later writes (gopher-lua issue 448). Lua
// 5.1 closes only the upvalues of the frames above the protected call. Here
// the protected function runs on a helper thread (L.NewThread: same globals,
// its own stacks), where the close-all closes exactly the protected frames,
// at their values at the error point.

const (
	// maxNesting is how many protected calls may be in progress at once on
	// the states of one Lua universe. Lua 5.1 raises "C stack overflow" when
	// a C call would make its count of nested C calls reach LUAI_MAXCCALLS
	// (200); a script run by lua.c starts at 2 (lua_cpcall of pmain,
	// lua_pcall of the chunk), so its 198th nested pcall fails. Here the
	// host's PCall running the script is the first protected call, so a
	// script's 198th nested pcall is the 199th.
	maxNesting = 198
	// maxIdle is how many helper threads a universe keeps for reuse. A
	// helper's data stack keeps the largest size it grew to (up to 16 MiB
	// for an unpack of a million values), so few are kept.
	maxIdle = 4
	// registryKey names the protector in the Lua registry, so that PCall
	// finds the one Install made for the state's universe.
	registryKey = "residentlua.lua51.protector"
)

// errCStackOverflow is Lua 5.1's error for a protected call past maxNesting.
var errCStackOverflow lua.LValue = lua.LString("C stack overflow")

// protector runs the protected calls of one Lua universe (a state and the
// coroutines that share its globals) and keeps its idle helper threads. Like
// the universe's tables, it is used by one goroutine at a time: coroutines
// run on the goroutine that resumes them, and every protected call ends
// before the one that encloses it.
type protector struct {
	active  []*helper // helpers in use, the innermost call's last
	idle    []*helper // helpers for reuse, at most maxIdle
	monitor *monitor  // what watches the universe's execution
}

// helper is a thread protected functions run on, with the state of the call
// in progress; a helper is used by one protected call at a time.
type helper struct {
	L      *lua.LState
	ctx    *threadContext // the context L runs with when watched
	onErr  *lua.LFunction // the error function of L.PCall: h.describe
	caller *lua.LState    // the state the call in progress came from
	entry  entry          // what the monitor did for the call in progress

	handler   lua.LValue // xpcall's message handler, or nil
	traceback bool       // record a traceback at the error point (PCall)

	value    lua.LValue // the error value, once described
	trace    string     // the traceback, when recorded
	overflow bool       // the call stack overflowed: do not reuse
}

// installProtect replaces pcall and xpcall, and the coroutine functions
// whose behaviour pcall's helper threads would change.
func installProtect(L *lua.LState) {
	p := protectorOf(L)
	L.SetGlobal("pcall", L.NewFunction(p.pcall))
	L.SetGlobal("xpcall", L.NewFunction(p.xpcall))
	installCoroutine(L)
}

// protectorOf returns the protector of L's universe, making it the first
// time.
func protectorOf(L *lua.LState) *protector {
	if ud, ok := L.G.Registry.RawGetString(registryKey).(*lua.LUserData); ok {
		if p, ok := ud.Value.(*protector); ok {
			return p
		}
	}
	if L.G.MainThread == nil {
		// gopher-lua takes the first state that calls a function as the
		// main thread; make it L rather than a helper.
		L.G.MainThread, L.G.CurrentThread = L, L
	}
	p := &protector{monitor: newMonitor(DefaultMemoryLimit())}
	ud := L.NewUserData()
	ud.Value = p
	L.G.Registry.RawSetString(registryKey, ud)
	return p
}

// callerOf is the state that called the protected call the helper H runs,
// nil when H is not such a helper.
func callerOf(H *lua.LState) *lua.LState {
	if h := helperOf(H); h != nil {
		return h.caller
	}
	return nil
}

// helperOf is the helper whose thread is H, running a protected call; nil
// when there is none.
func helperOf(H *lua.LState) *helper {
	if ud, ok := H.G.Registry.RawGetString(registryKey).(*lua.LUserData); ok {
		if p, ok := ud.Value.(*protector); ok {
			for i := len(p.active) - 1; i >= 0; i-- {
				if p.active[i].L == H {
					return p.active[i]
				}
			}
		}
	}
	return nil
}

// pcall is Lua 5.1's pcall(f, ...).
func (p *protector) pcall(L *lua.LState) int {
	top := L.GetTop()
	if top < 1 {
		argError(L, 1, "value expected") // luaL_checkany(L, 1)
	}
	return p.protected(L, 1, top-1, nil)
}

// xpcall is Lua 5.1's xpcall(f, handler): f is called with no arguments, and
// an error is passed to handler while the failed frames are still there.
func (p *protector) xpcall(L *lua.LState) int {
	checkAny(L, 2)
	return p.protected(L, 1, 0, L.Get(2))
}

// protected calls the function at index fn of L's stack with the nargs
// values above it on a helper and pushes pcall's results onto L. It copies
// the values by index and leaves L's stack below the results alone: a Go
// function's results are the values at the top of its stack.
func (p *protector) protected(L *lua.LState, fn, nargs int, handler lua.LValue) int {
	h := p.acquire(L, false)
	defer p.release(h)
	h.handler = handler
	if len(p.active) > maxNesting {
		// As in Lua 5.1, the message handler still runs, once: the
		// first call past the limit has a helper to run it on.
		L.Push(lua.LFalse)
		if handler != nil && len(p.active) == maxNesting+1 {
			L.Push(h.callHandler(errCStackOverflow))
		} else {
			L.Push(errCStackOverflow)
		}
		return 2
	}
	H := h.L
	f := L.Get(fn)
	H.Push(f)
	for i := fn + 1; i <= fn+nargs; i++ {
		H.Push(L.Get(i))
	}
	if !h.call(f, nargs, lua.MultRet) {
		L.Push(lua.LFalse)
		L.Push(h.value)
		return 2
	}
	n := H.GetTop()
	L.Push(lua.LTrue)
	for i := 1; i <= n; i++ {
		L.Push(H.Get(i))
	}
	// Popping the few results costs less than the helper's SetTop(0) in
	// release, which then has nothing left to clear.
	H.Pop(n)
	return n + 1
}

// acquire returns an idle helper for a protected call from L, or a new one;
// fromHost is set for a call of the host's (PCall).
func (p *protector) acquire(L *lua.LState, fromHost bool) *helper {
	var h *helper
	if n := len(p.idle); n > 0 {
		h = p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
	} else {
		h = p.newHelper(L)
	}
	// The helper runs code for L's thread; behind its context is the
	// context of the host's call (the command and the resident module
	// cancel long waits through it, and change it between chunks).
	p.monitor.enter(L, h.ctx, &h.entry, fromHost)
	h.caller = L
	// The protected call runs in the caller's thread as Lua 5.1 sees it,
	// whose environment getfenv(0) and setfenv(0) read and change: a
	// pooled helper must not show an earlier caller's.
	h.L.Env = L.Env
	p.active = append(p.active, h)
	return h
}

// release makes h idle again, or drops it after a stack overflow (see
// helper.call) or when enough helpers are idle.
func (p *protector) release(h *helper) {
	p.active[len(p.active)-1] = nil
	p.active = p.active[:len(p.active)-1]
	p.monitor.leave(&h.entry)
	h.caller.Env = h.L.Env
	if h.overflow || len(p.idle) >= maxIdle {
		return
	}
	if h.L.GetTop() != 0 {
		h.L.SetTop(0)
	}
	h.reset()
	p.idle = append(p.idle, h)
}

// newHelper makes a helper thread for protected calls from L, with the
// context of this package it runs with when watched.
func (p *protector) newHelper(L *lua.LState) *helper {
	th, cancel := L.NewThread()
	if cancel != nil {
		cancel() // the child context NewThread derives is replaced
	}
	th.RemoveContext()
	h := &helper{L: th, ctx: p.monitor.newContext(th, p.monitor.mainThread)}
	h.onErr = th.NewFunction(h.describe)
	return h
}

// reset forgets the call that ended.
func (h *helper) reset() {
	h.handler, h.traceback, h.value, h.trace = nil, false, nil, ""
}

// call calls the function fn, which is below the nargs values at the top
// of h.L's stack, leaving its results (nret of them, or all with
// lua.MultRet) on the stack. On an error it leaves nothing, and h.value is
// the error value.
func (h *helper) call(fn lua.LValue, nargs, nret int) bool {
	if !callable(h.L, fn) {
		// gopher-lua's error for this call has no type and no frame to
		// find one in; the value is here.
		h.L.Pop(nargs + 1)
		h.value = lua.LString(operandError(fn, "call", ""))
		if h.handler != nil {
			h.value = h.callHandler(h.value)
		}
		return false
	}
	err := h.L.PCall(nargs, nret, h.onErr)
	if err == nil {
		return true
	}
	if h.value != nil {
		return false
	}
	h.value = err.(*lua.ApiError).Object
	if h.value == lua.LString(callstackOverflow) {
		// The call stack was full: gopher-lua could not call the error
		// function, nor close the upvalues of the failed frames, which
		// stay open on this helper.
		h.overflow = true
		h.value = lua.LString("stack overflow")
		if h.handler != nil {
			h.value = h.callHandler(h.value)
		}
		// PCall cleared the slots those upvalues refer to (to Go's nil,
		// which crashes whatever reads it); the helper is not reused and
		// its whole data stack is set to Lua's nil.
		h.L.SetTop(max(h.L.Options.RegistrySize, h.L.Options.RegistryMaxSize))
	}
	return false
}

// callable reports whether v can be called: a function, or a value whose
// __call metamethod is a function (Lua 5.1's luaD_tryfuncTM).
func callable(L *lua.LState, v lua.LValue) bool {
	if v.Type() == lua.LTFunction {
		return true
	}
	return L.GetMetaField(v, "__call").Type() == lua.LTFunction
}

// mustBeCallable raises Lua 5.1's error for a call of v made by a Go
// function ("attempt to call a number value", with no position, as the
// running function is not a Lua function), when v cannot be called;
// gopher-lua's says "attempt to call a non-function object" and gives the
// position of the Lua function below.
func mustBeCallable(L *lua.LState, v lua.LValue) {
	if !callable(L, v) {
		L.Error(lua.LString(operandError(v, "call", "")), 0)
	}
}

// describe is the error function of the protected call. It is called on the
// helper at an error, above the failed frames (level 1 is the function that
// raised it), with the error value. It describes the value, records the
// traceback PCall returns, calls xpcall's message handler, whose result
// becomes the error value, and raises that value again: with no error
// function set any more, gopher-lua then closes the upvalues of the failed
// frames, which are all on this helper, and PCall unwinds them.
func (h *helper) describe(L *lua.LState) int {
	v := describeError(L, L.Get(1))
	if h.traceback {
		h.trace = errorTraceback(L)
	}
	if h.handler != nil {
		v = h.callHandler(v)
	}
	h.value = v
	L.Panic = panicReraised
	L.Error(v, 0)
	return 0
}

// reraised is what describe ends the failed call with. PCall records the
// stack traceback of a Lua error raised in the error function, which costs
// more than the rest of a failed pcall; a Go panic that is not a
// *lua.ApiError spares it, and call reads the error value from the helper.
type reraised struct{}

func (reraised) Error() string { return "lua51: error value re-raised" }

// panicReraised is the state's Panic function while describe raises the
// error value again.
func panicReraised(*lua.LState) { panic(reraised{}) }

// callHandler calls xpcall's message handler on the helper with the error
// value v and returns its result, or Lua 5.1's message for an error in it.
func (h *helper) callHandler(v lua.LValue) lua.LValue {
	h.L.Push(h.handler)
	h.L.Push(v)
	if h.L.PCall(1, 1, nil) != nil {
		return lua.LString("error in error handling")
	}
	v = h.L.Get(-1)
	h.L.Pop(1)
	return v
}

// errorTraceback is what the state's debug.traceback gives for the caller
// of the function calling it: at an error, from the function that raised it.
func errorTraceback(L *lua.LState) string {
	var fn lua.LValue = lua.LNil
	if loaded, ok := L.G.Registry.RawGetString("_LOADED").(*lua.LTable); ok {
		if debug, ok := loaded.RawGetString("debug").(*lua.LTable); ok {
			fn = debug.RawGetString("traceback")
		}
	}
	if fn.Type() != lua.LTFunction {
		return "stack traceback:\n\t(no debug.traceback)"
	}
	L.Push(fn)
	L.Push(lua.LString(""))
	L.Push(lua.LNumber(2))
	L.Call(2, 1)
	// Lua 5.1's traceback puts a line break after the message, even "".
	trace := strings.TrimPrefix(lua.LVAsString(L.Get(-1)), "\n")
	L.Pop(1)
	return trace
}

// PCall calls, in protected mode, the function below the nargs values at the
// top of L's stack, for host code (a script runner, or a Go function called
// from Lua), with Lua 5.1's semantics: an error closes only the upvalues of
// the frames it unwinds, and the error value is described as Lua 5.1 would
// word it. On success the function's results (nret of them, or all with
// lua.MultRet) replace it and its arguments on the stack; on an error they
// are removed and the *lua.ApiError returned carries the error value and a
// "stack traceback:" at the error point, as debug.traceback gives it.
func PCall(L *lua.LState, nargs, nret int) error {
	p := protectorOf(L)
	h := p.acquire(L, true)
	defer p.release(h)
	if len(p.active) > maxNesting {
		L.Pop(nargs + 1)
		return &lua.ApiError{Type: lua.ApiErrorRun, Object: errCStackOverflow}
	}
	h.traceback = true
	fn := L.Get(-nargs - 1)
	L.XMoveTo(h.L, nargs+1)
	if !h.call(fn, nargs, nret) {
		return &lua.ApiError{Type: lua.ApiErrorRun, Object: h.value, StackTrace: h.trace}
	}
	h.L.XMoveTo(L, h.L.GetTop())
	return nil
}
