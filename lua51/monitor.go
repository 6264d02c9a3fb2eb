package lua51

import (
	"context"
	"errors"
	"fmt"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// The states that run a script's code under lua51's calls (the helpers of
// protected calls, coroutines) get a context of this package, a
// threadContext, whose Done the interpreter calls before each instruction
// (see internals.go). Done counts: every checkEvery instructions of the
// universe it checks the memory budget, it stops a call that ran past its
// instruction budget (PCallBudget), it runs the hooks debug.sethook set for
// the thread it runs code for, and every hostPollEvery instructions it
// looks whether the context of the host's call (Ctrl-C in the command, a
// device reset) ended, which stops the code.
//
// Code the host runs with lua51.PCall (DoString, DoFile, the command's
// chunks) is watched so, and so is everything it calls. Code run with
// gopher-lua's own calls on a state without a context, and the pcalls and
// coroutines it makes, are watched only once a hook is set: a context
// makes gopher-lua run its slower loop, which checks the context before
// each instruction.

// checkEvery is how many instructions run between two checks of the
// memory budget: reading the heap's size costs about a microsecond, these
// instructions tens to hundreds.
const checkEvery = 1 << 14

// hostPollEvery is how many instructions run between two looks at the
// host's context: its end stops Lua code within this many instructions (a
// few microseconds), and between two looks the interpreter's check before
// each instruction is a nil channel's, not a call of the host's Done.
const hostPollEvery = 1 << 10

// monitor watches the execution of one Lua universe (its state and the
// threads that share its globals), which runs on one goroutine at a time.
type monitor struct {
	host context.Context // the context of the host's protected call in progress, nil for none

	ticks    int64 // instructions left before the next check
	period   int64 // the length of the current countdown
	executed int64 // instructions run before the current countdown

	memoryAt  int64 // the count of instructions at which the memory budget is next checked
	nextCheck int64 // the count at which the host's context and the memory are next looked at

	// ended is what Done returns: nil, or a closed channel once a look at
	// the host's context found it ended.
	ended <-chan struct{}

	budgeted   bool  // a PCallBudget or ResumeBudget is in progress
	budgetEnd  int64 // the count of instructions at which it stops
	budgetSize int64 // its size, which its error gives
	hooked     int   // threads with a hook that has events

	memory     memoryBudget
	mainThread *scriptThread // the thread of the code the host runs
}

// newMonitor makes the monitor of a universe with the memory limit given.
func newMonitor(memoryLimit int64) *monitor {
	m := &monitor{memory: memoryBudget{limit: memoryLimit}, mainThread: &scriptThread{}, nextCheck: checkEvery}
	m.schedule()
	return m
}

// newContext makes the context of the state L, which runs code for thread.
func (m *monitor) newContext(L *lua.LState, thread *scriptThread) *threadContext {
	return &threadContext{m: m, L: L, thread: thread}
}

// now is the number of instructions the universe has run.
func (m *monitor) now() int64 { return m.executed + m.period - m.ticks }

// schedule starts the countdown to the next check: at nextCheck, or at
// the end of the instruction budget when that comes first. Starting it
// again (a budget begun or ended, a host's call) does not put the next
// check off: a host that calls into Lua in short pieces (a device
// program's steps) still reaches it.
func (m *monitor) schedule() {
	m.executed = m.now()
	period := max(m.nextCheck-m.executed, 1)
	if m.budgeted {
		period = max(min(period, m.budgetEnd-m.executed), 1)
	}
	m.period, m.ticks = period, period
}

// restart starts the countdown again once it is over, moving the next
// check on when this one was it: checkEvery instructions on, or
// hostPollEvery while a host's context may end.
func (m *monitor) restart() {
	if now := m.now(); now >= m.nextCheck {
		every := int64(checkEvery)
		if m.host != nil {
			every = hostPollEvery
		}
		m.nextCheck = now + every
	}
	m.schedule()
}

// setHost makes ctx the context of the host's call and returns the one it
// replaces. Lua code stops at once when ctx has ended, and the next check
// comes within a poll while it has not.
func (m *monitor) setHost(ctx context.Context) context.Context {
	old := m.host
	m.host, m.ended = ctx, nil
	m.pollHost()
	if m.host != nil && m.nextCheck > m.now()+hostPollEvery {
		m.nextCheck = m.now() + hostPollEvery
		m.schedule()
	}
	return old
}

// closedDone is the channel of a context that ended.
var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// pollHost looks whether the host's context ended, and if it did makes
// Done's channel closed, which stops the interpreter.
func (m *monitor) pollHost() {
	if m.host != nil && m.host.Err() != nil {
		m.ended = closedDone
	}
}

// scriptThread is a thread as a script sees it: the main thread (the code
// the host runs) or a coroutine, with the helper threads of the protected
// calls made from it. It holds the thread's hook.
type scriptThread struct {
	hook    *hook // debug.sethook's hook when it has events, or nil
	hookSet *hook // what debug.sethook set, which debug.gethook gives
}

// threadContext is the context of one state: a coroutine, or the helper
// of protected calls.
type threadContext struct {
	m      *monitor
	L      *lua.LState   // the state whose interpreter calls Done
	thread *scriptThread // the thread L runs code for
}

// contextOf is L's context when it is one of this universe's (one of
// another universe's, which a host may pass on to a state it runs, is the
// context of a host's call here).
func (m *monitor) contextOf(L *lua.LState) (*threadContext, bool) {
	c, ok := L.Context().(*threadContext)
	return c, ok && c.m == m
}

// watched reports whether L runs with a context of this universe.
func (m *monitor) watched(L *lua.LState) bool {
	_, ok := m.contextOf(L)
	return ok
}

// Done is called by the interpreter before each instruction. It is
// closed once a look at the host's context (every hostPollEvery
// instructions) found it ended.
func (c *threadContext) Done() <-chan struct{} {
	m := c.m
	m.ticks--
	if m.ticks <= 0 || m.hooked > 0 {
		c.tick()
	}
	return m.ended
}

// Err is the host's context's error.
func (c *threadContext) Err() error {
	if h := c.m.host; h != nil {
		return h.Err()
	}
	return nil
}

// Deadline is the host's context's deadline.
func (c *threadContext) Deadline() (time.Time, bool) {
	if h := c.m.host; h != nil {
		return h.Deadline()
	}
	return time.Time{}, false
}

// Value is the host's context's value for key.
func (c *threadContext) Value(key any) any {
	if h := c.m.host; h != nil {
		return h.Value(key)
	}
	return nil
}

// tick runs the hooks, and the checks when their countdown is over. Only
// a call of Done by the interpreter, between two instructions of a Lua
// function, may raise an error or call Lua; a call by Go code leaves the
// checks to the next instruction.
func (c *threadContext) tick() {
	L := c.L
	if !runningLua(L) {
		return
	}
	if h := c.thread.hook; h != nil {
		h.step(L)
	}
	m := c.m
	if m.ticks > 0 {
		return
	}
	m.restart()
	m.stopIfOver(L, 0)
	m.pollHost()
	m.checkMemory(L)
}

// checkMemory checks the memory budget when checkEvery instructions ran
// since it last did: reading the heap's size costs more than a poll.
func (m *monitor) checkMemory(L *lua.LState) {
	if m.executed >= m.memoryAt {
		m.memoryAt = m.executed + checkEvery
		m.memory.check(L, 0)
	}
}

// stopIfOver raises the error of a call past its instruction budget, at
// the position of the function level levels up (0 for the running one).
func (m *monitor) stopIfOver(L *lua.LState, level int) {
	if m.budgeted && m.executed >= m.budgetEnd {
		L.Error(lua.LString(Where(L, level)+fmt.Sprintf("instruction budget exhausted (%d instructions run)", m.budgetSize)), 0)
	}
}

// bytesPerInstruction is how many bytes of a string a library function
// builds count as one instruction (chargeBytes): copying them costs about
// what the interpreter's instruction does.
const bytesPerInstruction = 64

// chargeBytes charges the building of a string of n bytes to L's universe
// (charge), before it is built.
func chargeBytes(L *lua.LState, n int) {
	if n >= bytesPerInstruction {
		monitorOf(L).charge(L, int64(n/bytesPerInstruction))
	}
}

// chargeItems charges n items a library function handles one by one (the
// values it pushes, the elements it moves or visits) to L's universe as n
// instructions (charge).
func chargeItems(L *lua.LState, n int) {
	if n > 0 {
		monitorOf(L).charge(L, int64(n))
	}
}

// meter counts the bytes a library function builds as it builds them: it
// charges them (chargeBytes) and checks the memory budget as the buffer
// grows (growth).
type meter struct {
	growth
	charged int // the bytes charged so far
}

// built is called with the size of the buffer after it grew.
func (b *meter) built(size int) {
	if d := size - b.charged; d >= bytesPerInstruction {
		chargeBytes(b.L, d)
		b.charged = size - d%bytesPerInstruction
	}
	b.grew(size)
}

// charge counts the work of a library function called in L's universe (a
// pattern search, a sort, a string it builds) as n instructions, so that a
// long Go call is bounded as Lua code is: at each check (every
// hostPollEvery instructions while a host's context may end, else every
// checkEvery) it stops a call past its instruction budget and the host's
// call whose context ended (Ctrl-C, a time limit), and every checkEvery
// instructions it checks the memory budget. A
// monitor of nil (a state Install did not set up) counts nothing.
func (m *monitor) charge(L *lua.LState, n int64) {
	if m == nil {
		return
	}
	if m.ticks -= n; m.ticks > 0 {
		return
	}
	m.restart()
	m.stopIfOver(L, 1) // the library function's caller, as luaL_error says
	if m.host != nil {
		if err := m.host.Err(); err != nil {
			// What the interpreter raises when the context ends.
			L.RaiseError("%s", err.Error())
		}
	}
	m.checkMemory(L)
}

// entry is what enter changed, for leave to undo.
type entry struct {
	hostChanged bool            // the call came from the host, with another context
	hostOuter   context.Context // the host's context before
}

// enter makes the helper whose context is hc run a protected call for L:
// for L's thread, or, for a call from the host, for the main thread with
// the host's context behind it. The helper is watched (runs with hc) when
// L is, when the call comes from the host's lua51.PCall or with a context
// of the host's, or when a hook is set.
func (m *monitor) enter(L *lua.LState, hc *threadContext, e *entry, fromHost bool) {
	if fromHost || m.hooked > 0 || L.Context() != nil {
		m.enterWatched(L, hc, e, fromHost)
		return
	}
	// A pcall of a script run unwatched: the helper runs code for the
	// main thread, with no context (the interpreter's fast loop). This is
	// most protected calls of a state run with gopher-lua's own calls, so
	// it is kept small enough to be inlined.
	if hc.thread != m.mainThread {
		hc.thread = m.mainThread
	}
	if hc.L.Context() != nil {
		hc.L.RemoveContext()
	}
}

// enterWatched is enter for a call from the host, from a state with a
// context, or while a hook is set.
func (m *monitor) enterWatched(L *lua.LState, hc *threadContext, e *entry, fromHost bool) {
	H := hc.L
	thread := m.mainThread
	watch := true
	if c, ok := m.contextOf(L); ok {
		thread = c.thread
	} else if ctx := L.Context(); ctx == nil {
		watch = fromHost || m.hooked > 0
		if fromHost {
			m.enterFromHost(nil, e)
		}
	} else {
		m.enterFromHost(ctx, e)
	}
	if hc.thread != thread {
		hc.thread = thread
	}
	switch {
	case watch && H.Context() != context.Context(hc):
		H.SetContext(hc)
	case !watch && H.Context() != nil:
		H.RemoveContext()
	}
}

// enterFromHost puts the context of the host's call (nil for none) behind
// the helpers'.
func (m *monitor) enterFromHost(ctx context.Context, e *entry) {
	if ctx != m.host {
		e.hostChanged, e.hostOuter = true, m.setHost(ctx)
	}
}

// leave undoes what enter did, once the call ended.
func (m *monitor) leave(e *entry) {
	if e.hostChanged {
		m.setHost(e.hostOuter)
		e.hostChanged, e.hostOuter = false, nil
	}
}

// ErrInstructionBudget is matched (errors.Is) by the error of a PCallBudget
// whose call ran out of instructions.
var ErrInstructionBudget = errors.New("instruction budget exhausted")

// budgetError is the error of a call stopped by its instruction budget:
// the error PCall returned, which carries the Lua error value and the
// traceback where the call was stopped.
type budgetError struct {
	budget int64
	err    error
}

func (e *budgetError) Error() string {
	return fmt.Sprintf("the call ran more than its budget of %d instructions: %v", e.budget, e.err)
}

func (e *budgetError) Unwrap() []error { return []error{ErrInstructionBudget, e.err} }

// PCallBudget is PCall for a call that may run at most budget instructions
// of the Lua VM, counted in every thread it runs (the functions it calls,
// protected or not, and the coroutines it resumes); calls inside it with a
// budget of their own get the smaller of the two. Past its budget the call
// is stopped with a Lua error ("chunk:7: instruction budget exhausted (N
// instructions run)") at every instruction it tries to run, so that no
// pcall inside it can go on; the error returned then matches
// ErrInstructionBudget and unwraps to PCall's *lua.ApiError. Time spent in
// Go functions is not counted: a budget bounds a loop, not a wait.
func PCallBudget(L *lua.LState, nargs, nret int, budget int64) error {
	m := protectorOf(L).monitor
	stopAt, restore := m.startBudget(budget)
	err := PCall(L, nargs, nret)
	exhausted := m.now() >= stopAt
	restore()
	if err != nil && exhausted {
		return &budgetError{budget: budget, err: err}
	}
	return err
}

// HostContext is the context of the host's call that L's code runs under
// (the command's Ctrl-C, a trial's time limit), or context.Background when
// there is none. Unlike L.Context(), which is L's own and counts L's
// instructions as the interpreter asks it, it may be handed to code that
// runs on other goroutines: a device program's state, a wait.
func HostContext(L *lua.LState) context.Context {
	ctx := L.Context()
	for {
		c, ok := ctx.(*threadContext)
		if !ok {
			break
		}
		ctx = c.m.host
	}
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
