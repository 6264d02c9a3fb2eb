package luaapi

import (
	"maps"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// ScriptArgs are the named arguments a trial or scenario script is run
// with (the command's --arg k=v): Words as given, and Values by name, each
// a float64, a bool or a string.
type ScriptArgs struct {
	Words  []string
	Values map[string]any
}

// SetArg sets the global arg of L for the script at path, which the
// command's subcommand runs ("campaign" or "check"), as the interpreter
// sets a script's: arg[0] is the path, arg[1], arg[2], ... are the words
// as given, as `residentlua SCRIPT k=v ...` would give them, and arg[-1]
// is the subcommand, so that a script tells a campaign's or a check's run
// of it from a direct one (if arg[-1] ~= "campaign" then ...).
func (a ScriptArgs) SetArg(L *lua.LState, path, subcommand string) {
	argv := L.CreateTable(len(a.Words), 2)
	argv.RawSetInt(-1, lua.LString(subcommand))
	argv.RawSetInt(0, lua.LString(path))
	for i, w := range a.Words {
		argv.RawSetInt(i+1, lua.LString(w))
	}
	L.SetGlobal("arg", argv)
}

// Table is a table of the values by name, in L: what a trial reads as
// t.args and a scenario as c.args.
func (a ScriptArgs) Table(L *lua.LState) *lua.LTable {
	values := L.CreateTable(0, len(a.Values))
	for _, k := range slices.Sorted(maps.Keys(a.Values)) {
		switch v := a.Values[k].(type) {
		case float64:
			values.RawSetString(k, lua.LNumber(v))
		case bool:
			values.RawSetString(k, lua.LBool(v))
		case string:
			values.RawSetString(k, lua.LString(v))
		}
	}
	return values
}
