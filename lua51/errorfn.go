package lua51

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// installError replaces error with Lua 5.1's: gopher-lua's skips Go
// functions when it looks for the level's position (so pcall(error, "x")
// gets its caller's line) and gives a tail call's lost frame the position
// of the bottom of the stack.
func installError(L *lua.LState) {
	L.SetGlobal("error", L.NewFunction(baseError))
}

// baseError is error(message [, level]): a string or number message gets
// the position of the function at level (1, the default, is the function
// that called error; 2 its caller; 0 none), as luaB_error does; other
// values are raised as they are.
func baseError(L *lua.LState) int {
	msg := L.Get(1)
	level := optInt(L, 2, 1)
	if isStringOrNumber(msg) && level > 0 {
		msg = lua.LString(Where(L, level) + plainString(msg))
	}
	L.Error(msg, 0)
	return 0
}

// Where is luaL_where: "chunk:line: " for the Lua function at level of L's
// stack (0 is the running function, 1 the function that called it), or ""
// when that level is a Go function, a tail call's lost frame, or beyond
// the stack. Levels count as in Lua 5.1 across a protected call: beyond the
// protected function comes pcall itself, then its caller.
func Where(L *lua.LState, level int) string {
	T, dbg, level, ok := stackLevel(L, level)
	if !ok {
		return ""
	}
	if _, err := T.GetInfo("Sl", dbg, lua.LNil); err != nil {
		return ""
	}
	if dbg.What == "main" && level > 0 && lostToTailCall(T, dbg, level) {
		return ""
	}
	if dbg.CurrentLine <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
}

// stackLevel finds level of L's stack as Lua 5.1 counts it. A protected
// call runs on a helper thread whose frames are only the protected ones;
// the levels beyond them go on in the thread that called pcall, where the
// first is pcall's own frame, as in Lua 5.1. It returns the thread that
// has the level, the level's frame and its level there.
func stackLevel(L *lua.LState, level int) (*lua.LState, *lua.Debug, int, bool) {
	for level >= 0 {
		if dbg, ok := L.GetStack(level); ok {
			return L, dbg, level, true
		}
		caller := callerOf(L)
		if caller == nil {
			break
		}
		level -= stackDepth(L)
		L = caller
	}
	return nil, nil, 0, false
}

// stackDepth is the number of levels of L's stack, lost tail calls
// included.
func stackDepth(L *lua.LState) int {
	n := 0
	for {
		if _, ok := L.GetStack(n); !ok {
			return n
		}
		n++
	}
}

// lostToTailCall reports whether level, at which gopher-lua's GetStack gave
// the bottom frame of the stack (bottom), is one of the levels a tail call
// left without a frame: GetStack gives the bottom frame for those too. The
// level is lost when the level above it was a frame that made tail calls,
// or was that same bottom frame (or another lost level).
func lostToTailCall(L *lua.LState, bottom *lua.Debug, level int) bool {
	above, ok := L.GetStack(level - 1)
	if !ok {
		return false
	}
	if _, err := L.GetInfo("S", above, lua.LNil); err != nil {
		return false
	}
	return above.What == "tail" || sameFrame(L, above, bottom)
}

// sameFrame reports whether a and b are the same activation: the same
// function, at the same line, with the same local values.
func sameFrame(L *lua.LState, a, b *lua.Debug) bool {
	fa, errA := L.GetInfo("lf", a, lua.LNil)
	fb, errB := L.GetInfo("lf", b, lua.LNil)
	if errA != nil || errB != nil || fa != fb || a.CurrentLine != b.CurrentLine {
		return false
	}
	for i := 1; ; i++ {
		na, va := L.GetLocal(a, i)
		nb, vb := L.GetLocal(b, i)
		if na != nb || va != vb {
			return false
		}
		if na == "" {
			return true
		}
	}
}
