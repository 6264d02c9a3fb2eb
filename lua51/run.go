package lua51

import lua "github.com/yuin/gopher-lua"

// DoString loads src as Lua 5.1 would (a chunk named [string "..."] after
// its first line) and runs it with PCall: what L.DoString does, with this
// package's loader and protected call, so that an embedder's chunks get the
// same messages and upvalue semantics as scripts. Results are left on the
// stack, as with L.DoString.
func DoString(L *lua.LState, src string) error {
	fn, err := LoadString(L, src, "")
	if err != nil {
		return err
	}
	L.Push(fn)
	return PCall(L, 0, lua.MultRet)
}

// DoFile loads the file at path as lua.c loads a script (skipping a "#!"
// line) and runs it with PCall, leaving its results on the stack.
func DoFile(L *lua.LState, path string) error {
	fn, err := LoadFile(L, path)
	if err != nil {
		return err
	}
	L.Push(fn)
	return PCall(L, 0, lua.MultRet)
}
