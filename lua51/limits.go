package lua51

import lua "github.com/yuin/gopher-lua"

// stateOptions are the lua.Options of NewState.
func stateOptions() lua.Options {
	return lua.Options{}
}
