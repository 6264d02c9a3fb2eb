package lua51

import (
	"context"

	lua "github.com/yuin/gopher-lua"
)

// ResumeBudget resumes th as L.Resume(th, fn, args...) does (th a thread of
// L's universe made with L.NewThread, fn its function when it has not
// started) and watches it as the host's protected calls are watched: ctx
// is the host's context, whose end stops th's Lua code and the library
// functions it calls (a pattern search, a sort); the universe's memory
// budget applies; and th may run at most budget instructions in this
// resume, counted in th and in everything it calls. Past its budget th is
// stopped with a Lua error at every instruction it tries to run, so that
// no pcall inside it goes on, and the error returned matches
// ErrInstructionBudget (errors.Is). A host that runs code of its users in
// coroutines of its own (a device program) bounds each of their steps so.
func ResumeBudget(ctx context.Context, L, th *lua.LState, fn *lua.LFunction, budget int64, args ...lua.LValue) (lua.ResumeState, []lua.LValue, error) {
	m := protectorOf(L).monitor
	if _, ok := m.contextOf(th); !ok {
		th.SetContext(m.newContext(th, &scriptThread{}))
	}
	outer := m.setHost(ctx)
	defer m.setHost(outer)
	stopAt, restore := m.startBudget(budget)
	st, err, res := L.Resume(th, fn, args...)
	exhausted := m.now() >= stopAt
	restore()
	if err != nil && exhausted {
		err = &budgetError{budget: budget, err: err}
	}
	return st, res, err
}

// startBudget starts a budget of budget instructions (the smaller of it
// and what is left of a budget in progress) and returns the count of
// instructions at which it stops, and the function that puts back the
// budget it replaced.
func (m *monitor) startBudget(budget int64) (stopAt int64, restore func()) {
	budgeted, end, size := m.budgeted, m.budgetEnd, m.budgetSize
	m.budgeted, m.budgetEnd, m.budgetSize = true, m.now()+max(budget, 0), budget
	if budgeted && end < m.budgetEnd {
		m.budgetEnd, m.budgetSize = end, size
	}
	m.schedule()
	return m.budgetEnd, func() {
		m.budgeted, m.budgetEnd, m.budgetSize = budgeted, end, size
		m.schedule()
	}
}

// MemoryLimit is the memory budget of L's universe in bytes
// (Options.MemoryLimit, or DefaultMemoryLimit), which a host gives the
// other states it makes for the same user: a device program's, say.
func MemoryLimit(L *lua.LState) int64 { return protectorOf(L).monitor.memory.limit }

// Unwind ends th, a thread of L's universe that yielded to L (a host's
// coroutine stopped at a yield), without running any more of its code, and
// reports whether th may start another function: Resume(th, fn, ...) with
// th.Dead set back to false. It may when th yielded from its outermost
// function (a Go function that function called yielded): that one frame is
// ended by an error raised before th's next instruction, which closes its
// upvalues, and th's stack is left empty, as a thread whose function
// returned leaves it. A thread that yielded from deeper is left dead, its
// frames unreachable, and Unwind reports false: make a new thread. So a
// host whose coroutine was stopped mid-way (a device reset) keeps its thread
// instead of paying for a new one, which costs more than most steps.
func Unwind(L, th *lua.LState) bool {
	if _, started := th.GetStack(0); !started {
		return true // its function returned, or it never started one
	}
	if _, deeper := th.GetStack(1); deeper || th.Dead {
		return false
	}
	saved := th.Context()
	th.SetContext(unwinding)
	st, _, _ := L.Resume(th, nil)
	if saved != nil {
		th.SetContext(saved)
	} else {
		th.RemoveContext()
	}
	_, left := th.GetStack(0)
	return st == lua.ResumeError && !left
}

// unwinding is the context Unwind resumes a thread under: ended, so the
// interpreter raises its error before it runs an instruction.
var unwinding = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()
