package lua51

import (
	"context"
	"errors"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// callChunk loads src in L with this package's loader and runs it with
// run, which is PCall or a PCallBudget, with args.
func callChunk(t *testing.T, L *lua.LState, src string, run func(nargs int) error, args ...lua.LValue) error {
	t.Helper()
	fn, err := LoadString(L, src, "=budget")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	return run(len(args))
}

// budgeted runs src in a fresh state under a budget of n instructions.
func budgeted(t *testing.T, src string, n int64, args ...lua.LValue) (*lua.LState, error) {
	t.Helper()
	L := NewState(Options{})
	t.Cleanup(L.Close)
	err := callChunk(t, L, src, func(nargs int) error { return PCallBudget(L, nargs, lua.MultRet, n) }, args...)
	return L, err
}

// wantBudgetError fails unless err is a PCallBudget's exhaustion, whose Lua
// message has the position of the loop stopped.
func wantBudgetError(t *testing.T, err error, position string) {
	t.Helper()
	var api *lua.ApiError
	if !errors.Is(err, ErrInstructionBudget) || !errors.As(err, &api) {
		t.Fatalf("got %v, want an error matching ErrInstructionBudget that unwraps to *lua.ApiError", err)
	}
	if msg := lua.LVAsString(api.Object); !strings.HasPrefix(msg, position+"instruction budget exhausted (") {
		t.Errorf("message %q, want it at %q", msg, position)
	}
}

func TestPCallBudgetStopsALoop(t *testing.T) {
	_, err := budgeted(t, "local x = 0\nwhile true do x = x + 1 end", 100000)
	wantBudgetError(t, err, "budget:2: ")
}

func TestPCallBudgetCountsInstructions(t *testing.T) {
	// A numeric for of n empty iterations runs n FORLOOP instructions and
	// a few more: under a budget of 2n it ends, under n/2 it is stopped.
	const loop = "local n = ... for i = 1, n do end return 'done'"
	L, err := budgeted(t, loop, 20000, lua.LNumber(10000))
	if err != nil || L.Get(-1) != lua.LString("done") {
		t.Fatalf("10,000 iterations under a budget of 20,000: %v, %v", err, L.Get(-1))
	}
	_, err = budgeted(t, loop, 5000, lua.LNumber(10000))
	wantBudgetError(t, err, "budget:1: ")
}

func TestPCallBudgetCannotBeCaught(t *testing.T) {
	// A pcall inside catches the error, but every instruction after it
	// fails again: the loop around it is stopped too, and so is an xpcall
	// handler that tries to go on.
	for _, src := range []string{
		"while true do pcall(function() while true do end end) end",
		"while true do xpcall(function() while true do end end, function() while true do end end) end",
		"local co = coroutine.wrap(function() while true do end end) while true do pcall(co) end",
	} {
		_, err := budgeted(t, src, 50000)
		if !errors.Is(err, ErrInstructionBudget) {
			t.Errorf("%s: got %v, want the budget's error", src, err)
		}
	}
}

func TestPCallBudgetCountsEveryThread(t *testing.T) {
	// Instructions run in a coroutine and in a protected function count.
	for _, src := range []string{
		"coroutine.wrap(function() while true do end end)()",
		"pcall(function() while true do end end) while true do end",
		"table.sort({3, 2, 1}, function(a, b) while true do end end)",
	} {
		_, err := budgeted(t, src, 50000)
		if !errors.Is(err, ErrInstructionBudget) {
			t.Errorf("%s: got %v, want the budget's error", src, err)
		}
	}
}

func TestPCallBudgetNested(t *testing.T) {
	// A budget inside a budget gets the smaller of the two, and the outer
	// call goes on once the inner one ended within its own.
	L := NewState(Options{})
	defer L.Close()
	var inner error
	L.SetGlobal("inner", L.NewFunction(func(L *lua.LState) int {
		fn := L.CheckFunction(1)
		L.Push(fn)
		inner = PCallBudget(L, 0, 0, int64(L.CheckNumber(2)))
		return 0
	}))
	err := callChunk(t, L, `inner(function() while true do end end, 1000)
		inner(function() for i = 1, 10 do end end, 1000)
		inner(function() while true do end end, 1e12)`, func(nargs int) error { return PCallBudget(L, nargs, 0, 100000) })
	if !errors.Is(err, ErrInstructionBudget) || !errors.Is(inner, ErrInstructionBudget) {
		t.Errorf("outer %v, inner %v: want both stopped by the outer budget", err, inner)
	}
	// Once the budgeted call is over, nothing is counted against it.
	if err := callChunk(t, L, "for i = 1, 200000 do end", func(nargs int) error { return PCall(L, nargs, 0) }); err != nil {
		t.Errorf("a call after the budgeted one: %v", err)
	}
}

func TestHostContextStillCancels(t *testing.T) {
	// The host's context behind the helpers' contexts stops a loop, as
	// before: the command's Ctrl-C.
	L := NewState(Options{})
	defer L.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	L.SetContext(ctx)
	err := callChunk(t, L, "while true do end", func(nargs int) error { return PCall(L, nargs, 0) })
	if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Errorf("a loop under a cancelled context: %v", err)
	}
}

func TestCoroutineOutlivesTheHostCall(t *testing.T) {
	// A coroutine made during one host call (one REPL line, whose context
	// the command cancels once it ends) resumes in the next, under that
	// call's context.
	L := NewState(Options{})
	defer L.Close()
	run := func(src string) error {
		ctx, cancel := context.WithCancel(context.Background())
		L.SetContext(ctx)
		err := callChunk(t, L, src, func(nargs int) error { return PCall(L, nargs, 0) })
		L.RemoveContext()
		cancel()
		return err
	}
	if err := run("co = coroutine.wrap(function() while true do coroutine.yield(1) end end)"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := run("assert(co() == 1)"); err != nil {
			t.Fatalf("resume %d in a later call: %v", i+1, err)
		}
	}
}

func TestHookCallAndReturn(t *testing.T) {
	// Call and return events come for Lua functions: each call as the
	// function starts, its return as it returns (debug.getinfo(2) is the
	// function), a tail call as a call; Go functions give none.
	L := NewState(Options{})
	defer L.Close()
	err := callChunk(t, L, `
		local events = {}
		local function f(x) return x * 2 end
		local function g() return f(2) end
		debug.sethook(function(event)
			local info = debug.getinfo(2, "S")
			events[#events + 1] = event .. "@" .. info.linedefined
		end, "cr")
		f(1)
		g()
		tostring(1)
		debug.sethook()
		return table.concat(events, " ")`, func(nargs int) error { return PCall(L, nargs, 1) })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lua.LVAsString(L.Get(-1)), "call@3 return@3 call@4 call@3 return@3"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
}

func TestUnwatchedCodeGetsWatchedOnceHooked(t *testing.T) {
	// Code run with gopher-lua's own DoString is not watched; once it sets
	// a hook, its later protected calls are, and a count hook stops a loop
	// in one.
	L := NewState(Options{})
	defer L.Close()
	err := L.DoString(`
		debug.sethook(function() error("stopped", 0) end, "", 1000)
		local ok, msg = pcall(function() while true do end end)
		debug.sethook()
		assert(not ok and msg == "stopped", tostring(msg))`)
	if err != nil {
		t.Fatal(err)
	}
}

func TestCoroutineMadeUnwatchedIsWatchedWhenResumedWatched(t *testing.T) {
	// A coroutine made by code that was not watched, resumed by a call of
	// lua51, counts against that call's budget.
	L := NewState(Options{})
	defer L.Close()
	if err := L.DoString(`co = coroutine.create(function() while true do end end)`); err != nil {
		t.Fatal(err)
	}
	err := callChunk(t, L, `return coroutine.resume(co)`, func(nargs int) error { return PCallBudget(L, nargs, lua.MultRet, 100000) })
	if err != nil {
		t.Fatal(err)
	}
	if ok, msg := L.Get(-2), lua.LVAsString(L.Get(-1)); ok != lua.LFalse || !strings.Contains(msg, "instruction budget exhausted") {
		t.Errorf("resume gave %v, %q; want the budget's error", ok, msg)
	}
}

// endingContext is a context that ends when its end function is called,
// and counts how often its Err is asked.
type endingContext struct {
	context.Context
	ended bool
	asked int
}

func (c *endingContext) Err() error {
	c.asked++
	if c.ended {
		return context.Canceled
	}
	return nil
}

func TestHostContextEndStopsCodeWithinAPoll(t *testing.T) {
	// The host's context is looked at every hostPollEvery instructions,
	// inside pcall too: a loop that goes on after it ended runs at most
	// that many more instructions, and a long loop asks it about once a
	// poll, not at every instruction.
	for _, chunk := range []string{
		"for i = 1, 5000 do end ended() n = 0 while true do n = n + 1 end",
		"for i = 1, 5000 do end pcall(function() ended() n = 0 while true do n = n + 1 end end) error('pcall went on')",
	} {
		L := NewState(Options{})
		host := &endingContext{Context: context.Background()}
		L.SetGlobal("ended", L.NewFunction(func(*lua.LState) int { host.ended = true; return 0 }))
		L.SetContext(host)
		err := callChunk(t, L, chunk, func(nargs int) error { return PCall(L, nargs, 0) })
		n := int(lua.LVAsNumber(L.GetGlobal("n")))
		if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
			t.Errorf("%q ended with %v; want the context's end", chunk, err)
		}
		// An iteration is three instructions (ADD, SETGLOBAL, JMP).
		if n > hostPollEvery/3+1 {
			t.Errorf("%q ran %d iterations after its context ended; want at most a poll's (%d instructions)", chunk, n, hostPollEvery)
		}
		if host.asked > 5000*4/hostPollEvery+8 {
			t.Errorf("%q asked the host's context %d times in about 5,000 loop iterations; want about one a poll", chunk, host.asked)
		}
		L.Close()
	}
}

func TestContextOfAnotherUniverseIsAHostContext(t *testing.T) {
	// A Go function called from one state passes its context (this
	// package's, of that universe) to another state it runs code in, as
	// resident.check does: cancelling the first state's host context stops
	// a loop in the second.
	outer, inner := NewState(Options{}), NewState(Options{})
	defer outer.Close()
	defer inner.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var innerErr error
	outer.SetGlobal("runInner", outer.NewFunction(func(L *lua.LState) int {
		inner.SetContext(L.Context())
		defer inner.RemoveContext()
		cancel()
		innerErr = callChunk(t, inner, "while true do end", func(nargs int) error { return PCall(inner, nargs, 0) })
		return 0
	}))
	outer.SetContext(ctx)
	outerErr := callChunk(t, outer, "runInner() while true do end", func(nargs int) error { return PCall(outer, nargs, 0) })
	for _, err := range []error{innerErr, outerErr} {
		if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
			t.Errorf("the inner loop, then the outer chunk, ended with %v, %v; want both cancelled", innerErr, outerErr)
		}
	}
}

// The work of library functions counts against a budget: a catastrophic
// pattern search, a sort of a long list and a long string.rep are stopped
// at their caller's line.
func TestPCallBudgetStopsLongLibraryCalls(t *testing.T) {
	for _, src := range []string{
		`return string.rep("a", 3000):find(".-.-.-.-b")`,
		`return string.gsub(string.rep("a", 3000), ".-.-.-b", "")`,
		"local t = {} for i = 1, 200000 do t[i] = -i end\ntable.sort(t)",
		"local s = 'x'\nreturn #string.rep(s, 2^27)",
	} {
		_, err := budgeted(t, src, 1500000)
		line := "1"
		if strings.Contains(src, "\n") {
			line = "2"
		}
		wantBudgetError(t, err, "budget:"+line+": ")
	}
}

// The end of the host's context stops a pattern search inside the matcher.
func TestHostContextStopsAPatternSearch(t *testing.T) {
	L := NewState(Options{})
	t.Cleanup(L.Close)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	L.SetContext(ctx)
	// The search is entered at once: its function is a Go function, which
	// the interpreter runs without asking the context.
	L.Push(L.GetField(L.GetGlobal("string"), "find"))
	L.Push(lua.LString(strings.Repeat("a", 3000)))
	L.Push(lua.LString(".-.-.-.-b"))
	err := PCall(L, 2, 1)
	if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("got %v, want the search stopped with %v", err, context.Canceled)
	}
}

// Every library function whose work grows with its input counts that work
// against a budget: each call below runs a handful of instructions of the
// VM and is stopped by a budget of 10,000 only for what it does inside.
func TestPCallBudgetCountsEachLibraryCall(t *testing.T) {
	const setup = `big = string.rep("x", 65536)
		huge = string.rep("x", 2^21)
		strs = {} for i = 1, 20 do strs[i] = big end
		items = {} for i = 1, 200000 do items[i] = i end`
	for _, src := range []string{
		`return string.format(string.rep("%s", 20), unpack(strs))`,
		`return string.format(huge)`,
		`return string.format("%q", huge)`,
		`return table.concat(strs)`,
		`return string.gsub(string.rep("x", 100), "x", big)`,
		`return string.gsub(string.rep("x", 100), "x", "%0" .. big)`,
		`return string.gsub(string.rep("x", 100), "x", function() return big end)`,
		`return string.find(huge, "y", 1, true)`,
		`return string.find(huge, "y")`,
		`return string.find(huge, "x*y")`,
		`return string.match(huge, ".-y")`,
		`for w in string.gmatch(huge, "y") do end`,
		`return select("#", string.byte(huge, 1, 200000))`,
		`return select("#", unpack(items))`,
		`return string.upper(huge)`,
		`return string.lower(huge)`,
		`return string.reverse(huge)`,
		`return huge .. huge`,
		`return huge .. 1 .. huge`,
		`table.insert(items, 1, 0)`,
		`return table.remove(items, 1)`,
		`return table.maxn(items)`,
		`return string.rep(big, 100)`,
		`table.sort(items, function(a, b) return a > b end)`,
	} {
		L := NewState(Options{})
		if err := L.DoString(setup); err != nil {
			t.Fatal(err)
		}
		err := callChunk(t, L, src, func(nargs int) error { return PCallBudget(L, nargs, lua.MultRet, 10000) })
		if !errors.Is(err, ErrInstructionBudget) || !strings.Contains(err.Error(), "budget:1: instruction budget exhausted") {
			t.Errorf("%s under a budget of 10,000 instructions: %v, want it stopped by the budget at its line", src, err)
		}
		L.Close()
	}
}
