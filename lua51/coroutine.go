package lua51

import lua "github.com/yuin/gopher-lua"

// The coroutine functions, replaced where gopher-lua differs from Lua 5.1 or
// where pcall's helper threads would change what they see:
//   - yield raises Lua 5.1's error instead of corrupting the interpreter
//     when it would cross a Go call (pcall, a metamethod, a sort comparator,
//     an iterator of a generic for), which Lua 5.1 cannot cross either;
//   - running returns nil on the main thread, and the coroutine (not a
//     helper) inside pcall;
//   - status says "normal" for every coroutine that resumed another and is
//     waiting for it;
//   - resume refuses a coroutine that is not suspended with Lua 5.1's
//     message, and keeps the running coroutine right when called on a helper;
//   - wrap propagates an error as Lua 5.1 does and leaves the coroutine dead.

const errYieldBoundary = "attempt to yield across metamethod/C-call boundary"

// installCoroutine replaces coroutine.yield, running, status, resume and
// wrap.
func installCoroutine(L *lua.LState) {
	co, ok := L.GetGlobal("coroutine").(*lua.LTable)
	if !ok {
		return
	}
	create, resume := goFunction(co, "create"), goFunction(co, "resume")
	if create == nil || resume == nil {
		return
	}
	c := &coroutines{create: create, resume: resume, monitor: protectorOf(L).monitor}
	L.SetFuncs(co, map[string]lua.LGFunction{
		"create":  c.createFunc,
		"yield":   coYield,
		"running": coRunning,
		"status":  coStatus,
		"resume":  c.resumeFunc,
		"wrap":    c.wrap,
	})
}

// coroutines holds gopher-lua's create and resume, which the replacements
// call, and the universe's monitor, which gives each coroutine its context.
type coroutines struct {
	create, resume lua.LGFunction
	monitor        *monitor
}

// createFunc is coroutine.create(f).
func (c *coroutines) createFunc(L *lua.LState) int {
	c.newCoroutine(L)
	return 1
}

// coroutineBytes is about what a suspended coroutine holds on the heap
// (its state, data stack and call stack: 22 KB measured).
const coroutineBytes = 24 << 10

// newCoroutine makes a coroutine of the function at index 1 of L's stack,
// pushes it and returns it. Made by watched code, it runs with a context
// of its own, which counts its instructions and holds its hooks; behind it
// is the context of the host's call in progress whenever it runs
// (gopher-lua would derive it from the context of the call that made it,
// which the command cancels once that chunk ends).
func (c *coroutines) newCoroutine(L *lua.LState) *lua.LState {
	c.monitor.memory.allocated(L, coroutineBytes)
	if !c.monitor.watched(L) {
		c.create(L)
		return L.Get(-1).(*lua.LState)
	}
	ctx := L.RemoveContext()
	c.create(L)
	L.SetContext(ctx)
	th := L.Get(-1).(*lua.LState)
	c.watch(th)
	return th
}

// watch gives th a context of this package, with a thread of its own.
func (c *coroutines) watch(th *lua.LState) {
	th.SetContext(c.monitor.newContext(th, &scriptThread{}))
}

// coYield is coroutine.yield(...).
func coYield(L *lua.LState) int {
	if L != L.G.CurrentThread || L == L.G.MainThread || !calledInline(L) && crossesGoCall() {
		// Not a coroutine being resumed (a helper of pcall, or the main
		// thread, which lua.c runs in a protected call), or the yield
		// would unwind a Go function. Lua 5.1 gives no position: the
		// running function is yield.
		L.Error(lua.LString(errYieldBoundary), 0)
	}
	return -1
}

// coRunning is coroutine.running(): the running coroutine, or nil on the
// main thread.
func coRunning(L *lua.LState) int {
	if th := L.G.CurrentThread; th != L.G.MainThread {
		L.Push(th)
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// coStatus is coroutine.status(co).
func coStatus(L *lua.LState) int {
	L.Push(lua.LString(statusName(L, checkCoroutine(L, 1))))
	return 1
}

// statusName is Lua 5.1's name for th's state: gopher-lua sets a
// coroutine's Parent when it is resumed and clears it when it yields or
// ends.
func statusName(L *lua.LState, th *lua.LState) string {
	switch {
	case th.Dead:
		return "dead"
	case th == L.G.CurrentThread:
		return "running"
	case th.Parent != nil || th == L.G.MainThread:
		return "normal"
	}
	return "suspended"
}

// checkCoroutine is argument n, which must be a coroutine.
func checkCoroutine(L *lua.LState, n int) *lua.LState {
	th, ok := L.Get(n).(*lua.LState)
	if !ok {
		argError(L, n, "coroutine expected")
	}
	return th
}

// resumeFunc is coroutine.resume(co, ...).
func (c *coroutines) resumeFunc(L *lua.LState) int {
	return c.resumeAt(L, checkCoroutine(L, 1))
}

// resumeAt resumes th, which is at index 1 of L's stack with the values to
// pass above it, and returns resume's results (true or false first).
func (c *coroutines) resumeAt(L *lua.LState, th *lua.LState) int {
	if st := statusName(L, th); st != "suspended" {
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(lua.LString("cannot resume " + st + " coroutine"))
		return 2
	}
	if th.Context() == nil && c.monitor.watched(L) {
		c.watch(th) // made by code that was not watched
	}
	if _, hasFrames := th.GetStack(-1); !hasFrames {
		// The coroutine yielded from a tail call of its last frame
		// (return coroutine.yield(...)), which gopher-lua ended then:
		// the values resume passes are what the coroutine returns.
		th.Dead = true
		L.Replace(1, lua.LTrue)
		return L.GetTop()
	}
	// gopher-lua makes the resumer the running thread when the coroutine
	// yields or ends; inside pcall that is a helper, not the coroutine
	// that called pcall.
	current := L.G.CurrentThread
	defer func() { L.G.CurrentThread = current }()
	n := c.resume(L)
	if n == 2 && L.Get(-2) == lua.LFalse && L.Get(-1) == lua.LString(callstackOverflow) {
		L.Pop(1)
		L.Push(lua.LString("stack overflow"))
	}
	return n
}

// wrap is coroutine.wrap(f): a function that resumes a new coroutine running
// f and returns what it yields or returns, or raises its error as Lua 5.1
// does (a string error gets the caller's position in front).
func (c *coroutines) wrap(L *lua.LState) int {
	th := c.newCoroutine(L)
	L.Push(L.NewFunction(func(L *lua.LState) int {
		L.Insert(th, 1)
		n := c.resumeAt(L, th)
		top := L.GetTop()
		if L.Get(top-n+1) == lua.LTrue {
			L.Remove(top - n + 1)
			return n - 1
		}
		v := L.Get(top)
		if s, ok := v.(lua.LString); ok {
			v = lua.LString(Where(L, 1) + string(s))
		} else if num, ok := v.(lua.LNumber); ok {
			v = lua.LString(Where(L, 1) + NumberToString(num))
		}
		L.Error(v, 0)
		return 0
	}))
	return 1
}

// CanYield reports whether L may yield from the Go function Lua called and
// that calls CanYield, with at most four Go functions of the host between
// them: L must be the running coroutine, and the yield must not unwind a Go
// call (a protected call, a metamethod, the iterator of a generic for, a
// library function's callback such as table.sort's comparator or
// string.gsub's function), which gopher-lua cannot resume and which
// corrupts its interpreter. A host's Go function that yields (L.Yield) asks
// first and raises an error that says so when it may not.
func CanYield(L *lua.LState) bool {
	if L != L.G.CurrentThread || L == L.G.MainThread {
		return false
	}
	// runtime.Callers, crossesGoCallAbove, CanYield: the caller is next.
	return calledInline(L) || !crossesGoCallAbove(3, goStackDepth+4)
}
