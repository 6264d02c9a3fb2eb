package lua51

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// debug.sethook and debug.gethook, which gopher-lua lacks. A thread's hook
// is called from its context's Done, between two instructions, on the
// state running the thread's code, so that debug.getinfo(2) in the hook is
// the function being run, as in Lua 5.1:
//   - "count" every count instructions of the thread (gopher-lua's
//     instructions: its compiler's code differs from Lua 5.1's in places,
//     so counts are close to Lua 5.1's, not equal);
//   - "line" when the thread starts a new line, enters a Lua function or
//     jumps back, as Lua 5.1's luaG_traceexec decides;
//   - "call" when a Lua function starts, "return" as it runs its return
//     instruction (a tail call is a "call", and its function's return the
//     only "return": no "tail return"). Go functions run no instructions,
//     so they give no events.
// As in Lua 5.1, no hook runs while a hook runs, and a new coroutine starts
// without one.

// hook is the hook of one thread.
type hook struct {
	fn               lua.LValue // the hook function
	call, ret, line  bool       // the mask
	count, countLeft int        // "count" every count instructions (0: none)
	running          bool       // the hook function is being called

	frames frameReader
	last   frameState  // the instruction that ran before
	lastL  *lua.LState // the state that ran it, nil before the first
}

// hookNames are Lua 5.1's event names.
const (
	hookCall   = "call"
	hookReturn = "return"
	hookLine   = "line"
	hookCount  = "count"
)

// installHooks adds debug.sethook and debug.gethook.
func installHooks(L *lua.LState) {
	debug := library(L, "debug")
	if debug == nil {
		return
	}
	setFuncs(L, debug, map[string]lua.LGFunction{
		"sethook": debugSethook,
		"gethook": debugGethook,
	})
}

// hookThread is db_sethook's getthread: a coroutine as argument 1, or the
// running thread; arg is the index of the arguments after it.
func hookThread(L *lua.LState) (th *lua.LState, arg int) {
	if co, ok := L.Get(1).(*lua.LState); ok {
		return co, 1
	}
	return L, 0
}

// threadOf is the thread th runs code for: its context's, or, for a state
// that runs unwatched, the main thread's or a new one, which th then runs
// with (a helper of a protected call runs code for the running coroutine
// or the main thread; the hook starts with the next call it makes).
func threadOf(th *lua.LState) *scriptThread {
	m := protectorOf(th).monitor
	if c, ok := m.contextOf(th); ok {
		return c.thread
	}
	if h := helperOf(th); h != nil {
		// An unwatched helper runs code for the running coroutine or the
		// main thread, whose thread it takes for its next calls.
		th = th.G.CurrentThread
		if c, ok := m.contextOf(th); ok {
			h.ctx.thread = c.thread
			return c.thread
		}
	}
	thread := &scriptThread{}
	if th == th.G.MainThread {
		thread = m.mainThread
	}
	if m.host == nil {
		m.setHost(th.Context())
	}
	th.SetContext(m.newContext(th, thread))
	return thread
}

// debugSethook is debug.sethook([thread,] hook, mask [, count]), or
// debug.sethook([thread]) to turn the hook off.
func debugSethook(L *lua.LState) int {
	th, arg := hookThread(L)
	t, m := threadOf(th), protectorOf(L).monitor
	if L.Get(arg+1) == lua.LNil {
		t.setHook(m, nil)
		return 0
	}
	mask := checkString(L, arg+2)
	fn := checkFunction(L, arg+1)
	count := optInt(L, arg+3, 0)
	h := &hook{
		fn:    fn,
		call:  strings.Contains(mask, "c"),
		ret:   strings.Contains(mask, "r"),
		line:  strings.Contains(mask, "l"),
		count: max(count, 0),
	}
	h.countLeft = h.count
	t.setHook(m, h)
	return 0
}

// setHook makes h the thread's hook (nil for none). A hook with no event
// (an empty mask, no count) is kept for gethook but never called.
func (t *scriptThread) setHook(m *monitor, h *hook) {
	t.hookSet = h
	if h != nil && !h.call && !h.ret && !h.line && h.count == 0 {
		h = nil
	}
	switch {
	case t.hook == nil && h != nil:
		m.hooked++
	case t.hook != nil && h == nil:
		m.hooked--
	}
	t.hook = h
}

// debugGethook is debug.gethook([thread]): the hook function, its mask and
// its count.
func debugGethook(L *lua.LState) int {
	th, _ := hookThread(L)
	c, ok := protectorOf(th).monitor.contextOf(th)
	if !ok || c.thread.hookSet == nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(""))
		L.Push(lua.LNumber(0))
		return 3
	}
	h := c.thread.hookSet
	var mask strings.Builder
	for _, m := range []struct {
		on bool
		c  byte
	}{{h.call, 'c'}, {h.ret, 'r'}, {h.line, 'l'}} {
		if m.on {
			mask.WriteByte(m.c)
		}
	}
	L.Push(h.fn)
	L.Push(lua.LString(mask.String()))
	L.Push(lua.LNumber(h.count))
	return 3
}

// step is called before each instruction the thread runs on L: it calls
// the hook for the events of this instruction, in Lua 5.1's order (the
// call just made, the count, the line, the return this instruction
// makes).
func (h *hook) step(L *lua.LState) {
	if h.running {
		return
	}
	st, ok := h.frames.read(L)
	if !ok {
		return
	}
	last, lastL := h.last, h.lastL
	h.last, h.lastL = st, L
	sameFrame := lastL == L && last.frame == st.frame && last.proto == st.proto
	entered := st.pc == 0 && (!sameFrame || last.op == lua.OP_TAILCALL)
	if h.call && entered {
		h.callHook(L, hookCall, -1)
	}
	if h.count > 0 {
		if h.countLeft--; h.countLeft <= 0 {
			h.countLeft = h.count
			h.callHook(L, hookCount, -1)
		}
	}
	if h.line {
		// luaG_traceexec: a new function, a jump back, or a new line.
		// Back in a caller, the instruction before is the call it made.
		oldPC, oldLine := last.pc, last.line
		if !sameFrame && st.pc > 0 {
			oldPC = st.pc - 1
			oldLine = lineOf(st.proto, oldPC)
		}
		if entered || st.pc <= oldPC || st.line != oldLine {
			h.callHook(L, hookLine, st.line)
		}
	}
	if h.ret && st.op == lua.OP_RETURN {
		h.callHook(L, hookReturn, -1)
	}
}

// lineOf is the line of instruction pc of p.
func lineOf(p *lua.FunctionProto, pc int) int {
	if pc >= 0 && pc < len(p.DbgSourcePositions) {
		return p.DbgSourcePositions[pc]
	}
	return -1
}

// callHook calls the hook function with the event and, for "line", the
// line (nil otherwise), as Lua 5.1's hookf does.
func (h *hook) callHook(L *lua.LState, event string, line int) {
	h.running = true
	defer func() { h.running = false }()
	L.Push(h.fn)
	L.Push(lua.LString(event))
	if line >= 0 {
		L.Push(lua.LNumber(line))
	} else {
		L.Push(lua.LNil)
	}
	L.Call(2, 0)
}
