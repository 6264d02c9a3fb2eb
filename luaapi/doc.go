// Package luaapi is the Lua module "resident": it opens the resident-session
// protocol of package engine, over the hardware model of package devices, in a
// gopher-lua state.
//
// One call opens it in a caller's state:
//
//	L := lua.NewState()
//	defer L.Close()
//	m, err := luaapi.Open(L, luaapi.Options{Config: devices.Config{Mode: devices.Simulated, Seed: 1}, Sandbox: true})
//	if err != nil { ... }
//	defer m.Close()
//	err = L.DoString(`local resident = require "resident" ... `)
//
// Lua sees `require "resident"` (and, with Options.Globals, the global
// `resident` and the verbs startup, submit_gpu, submit_npu, start, abort and
// wait). Protocol errors are raised as error values with the fields kind, op
// and message and a __tostring of "<kind>: <message>"; bad arguments raise
// the usual "bad argument #n to 'name' (...)" messages. docs/lua-api.md
// describes every function.
//
// Waits use the state's context (lua.LState.SetContext): cancelling it stops
// even a long wait promptly with a Lua error.
package luaapi
