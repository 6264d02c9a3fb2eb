package lua51

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// installGetinfo wraps gopher-lua's debug.getinfo so that its table is
// Lua 5.1's: source is the chunkname a function was loaded with
// ("@script.lua", "=stdin", or a string chunk's text; gopher-lua gives the
// chunk id), short_src (which gopher-lua lacks) is its chunk id, a Go
// function is what "C" with source "=[C]" and no lines, a main chunk is what "main",
// only the fields of the options asked for are set (gopher-lua sets
// them all, empty or zero when not asked for), option "L" gives the table
// activelines, and an option Lua 5.1 does not know is its "invalid option"
// error (gopher-lua returned nil for both).
func installGetinfo(L *lua.LState) {
	debug := library(L, "debug")
	if debug == nil {
		return
	}
	getinfo := goFunction(debug, "getinfo")
	if getinfo == nil {
		return
	}
	debug.RawSetString("getinfo", L.NewFunction(func(L *lua.LState) int {
		what := "flnSu"
		if s, ok := L.Get(2).(lua.LString); ok {
			what = string(s)
			// The function is needed to find its source and lines; "L" is
			// done here.
			L.Replace(2, lua.LString(strings.ReplaceAll(what, "L", ""))+"f")
		}
		level, isLevel := toNumber(L.Get(1))
		switch {
		case isLevel:
			L.Replace(1, level)
		case L.Get(1).Type() != lua.LTFunction:
			argError(L, 1, "function or level expected")
		}
		// Lua 5.1 checks the options once it has the function or level.
		if strings.Trim(what, "SlunfL") != "" {
			if _, ok := L.GetStack(int(level)); isLevel && !ok {
				L.Push(lua.LNil)
				return 1
			}
			argError(L, 2, "invalid option")
		}
		n := getinfo(L)
		info, ok := L.Get(-1).(*lua.LTable)
		if !ok {
			return n
		}
		if strings.Contains(what, "L") {
			info.RawSetString("activelines", activeLines(L, info.RawGetString("func")))
		}
		if strings.Contains(what, "S") {
			setSourceInfo(info)
		}
		for option, fields := range getinfoFields {
			if !strings.ContainsRune(what, option) {
				for _, field := range fields {
					info.RawSetString(field, lua.LNil)
				}
			}
		}
		return n
	}))
}

// getinfoFields are the fields each option of debug.getinfo sets.
var getinfoFields = map[rune][]string{
	'S': {"source", "short_src", "what", "linedefined", "lastlinedefined"},
	'l': {"currentline"},
	'u': {"nups"},
	'n': {"name"},
	'f': {"func"},
}

// setSourceInfo sets source, short_src and what of a getinfo table as Lua
// 5.1 gives them for the function in its field func.
func setSourceInfo(info *lua.LTable) {
	fn, ok := info.RawGetString("func").(*lua.LFunction)
	if !ok {
		return
	}
	source, known := Source(fn)
	shortSrc := ChunkID(source)
	switch {
	case fn.IsG:
		source, shortSrc = "=[C]", "[C]"
		info.RawSetString("what", lua.LString("C"))
		info.RawSetString("linedefined", lua.LNumber(-1))
		info.RawSetString("lastlinedefined", lua.LNumber(-1))
	case !known:
		// Loaded otherwise: gopher-lua knows only the chunk id.
		source, shortSrc = fn.Proto.SourceName, fn.Proto.SourceName
	}
	if !fn.IsG {
		// gopher-lua says "main" for the bottom frame of a thread.
		if fn.Proto.LineDefined == 0 {
			info.RawSetString("what", lua.LString("main"))
		} else if info.RawGetString("what") == lua.LString("main") {
			info.RawSetString("what", lua.LString("Lua"))
		}
	}
	info.RawSetString("source", lua.LString(source))
	info.RawSetString("short_src", lua.LString(shortSrc))
}

// activeLines is debug.getinfo's activelines: a table whose keys are the
// lines that have code in a Lua function (nil for a Go function).
func activeLines(L *lua.LState, fn lua.LValue) lua.LValue {
	f, ok := fn.(*lua.LFunction)
	if !ok || f.IsG {
		return lua.LNil
	}
	lines := L.NewTable()
	for _, line := range f.Proto.DbgSourcePositions {
		lines.RawSetInt(line, lua.LTrue)
	}
	return lines
}

// installTraceback wraps gopher-lua's debug.traceback so that its
// arguments are Lua 5.1's, debug.traceback([thread,] [message [, level]]):
// a message that is neither a string nor a number is returned as it is
// (nil included), a number is a message too, a message is followed by a
// line break even when it is "", and a level may follow a thread
// (gopher-lua dropped a number message, traced back on nil and took a
// thread's second argument as its level).
func installTraceback(L *lua.LState) {
	debug := library(L, "debug")
	if debug == nil {
		return
	}
	traceback := goFunction(debug, "traceback")
	if traceback == nil {
		return
	}
	debug.RawSetString("traceback", L.NewFunction(func(L *lua.LState) int {
		arg := 0
		th, isThread := L.Get(1).(*lua.LState)
		if isThread {
			arg = 1
		}
		level := 1
		if isThread && th != L {
			level = 0
		}
		if n, ok := toNumber(L.Get(arg + 2)); ok {
			level = int(n)
		}
		prefix := ""
		if L.GetTop() > arg {
			switch msg := L.Get(arg + 1).(type) {
			case lua.LString:
				prefix = string(msg) + "\n"
			case lua.LNumber:
				prefix = NumberToString(msg) + "\n"
			default:
				L.SetTop(arg + 1)
				return 1
			}
		}
		L.SetTop(0)
		if isThread {
			L.Push(th)
		} else {
			L.Push(lua.LString(""))
		}
		L.Push(lua.LNumber(level))
		traceback(L)
		L.Push(lua.LString(prefix + lua.LVAsString(L.Get(-1))))
		return 1
	}))
}

// installDebugMetatable replaces debug.getmetatable and debug.setmetatable
// with Lua 5.1's: getmetatable gives the metatable itself, whatever its
// __metatable field says (gopher-lua gave that field, as the base
// getmetatable does, so a class library could not reach its instances'
// metatables), and setmetatable returns true rather than its first
// argument.
func installDebugMetatable(L *lua.LState) {
	debug := library(L, "debug")
	if debug == nil {
		return
	}
	debug.RawSetString("getmetatable", L.NewFunction(func(L *lua.LState) int {
		var mt lua.LValue
		switch v := checkAny(L, 1).(type) {
		case *lua.LTable:
			mt = v.Metatable
		case *lua.LUserData:
			mt = v.Metatable
		default:
			mt = L.GetMetatable(v)
		}
		if mt == nil {
			mt = lua.LNil
		}
		L.Push(mt)
		return 1
	}))
	debug.RawSetString("setmetatable", L.NewFunction(func(L *lua.LState) int {
		mt := L.Get(2)
		if mt.Type() != lua.LTNil && mt.Type() != lua.LTTable {
			argError(L, 2, "nil or table expected")
		}
		L.SetMetatable(L.Get(1), mt)
		L.Push(lua.LTrue)
		return 1
	}))
}
