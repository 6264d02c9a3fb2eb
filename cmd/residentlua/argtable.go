package main

import lua "github.com/yuin/gopher-lua"

// setArgTable sets the global arg as lua.c does: the script name at index 0,
// its arguments at 1, 2, ..., and the interpreter and its options at the
// negative indices (the interpreter's name lowest). With no script, the
// interpreter's name is at 0 and its options follow.
func setArgTable(L *lua.LState, args []string, script int) {
	if script >= len(args) {
		script = 0
	}
	t := L.NewTable()
	for i, a := range args {
		t.RawSetInt(i-script, lua.LString(a))
	}
	L.SetGlobal("arg", t)
}
