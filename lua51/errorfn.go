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
	level := L.OptInt(2, 1)
	if isStringOrNumber(msg) && level > 0 {
		msg = lua.LString(Where(L, level) + toString(msg))
	}
	L.Error(msg, 0)
	return 0
}

// Where is luaL_where: "chunk:line: " for the Lua function at level of L's
// stack (0 is the running function, 1 the function that called it), or ""
// when that level is a Go function, a tail call's lost frame, or beyond
// the stack.
func Where(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
		return ""
	}
	// For a level in the gap a tail call left, gopher-lua's GetStack
	// returns the bottom frame: only the deepest level really is it.
	if dbg.What == "main" && level < stackDepth(L) {
		return ""
	}
	if dbg.CurrentLine <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
}

// stackDepth is the deepest level L.GetStack accepts.
func stackDepth(L *lua.LState) int {
	hi := 1
	for {
		if _, ok := L.GetStack(hi); !ok {
			break
		}
		hi *= 2
	}
	lo := hi / 2 // GetStack(lo) is ok (level 0 always is while a function runs)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if _, ok := L.GetStack(mid); ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
