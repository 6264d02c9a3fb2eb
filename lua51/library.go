package lua51

import lua "github.com/yuin/gopher-lua"

// installLibrary replaces the standard library functions that differ from Lua 5.1's.
func installLibrary(L *lua.LState, opts Options) {}
