// Package luaapi is the Lua module "resident": it opens the resident-session
// protocol of package engine, over the hardware model of package devices, in a
// gopher-lua state, for scripts, a REPL and Go programs that embed Lua.
//
// # Opening the module
//
// One call opens it in a caller's state:
//
//	L := lua51.NewState(lua51.Options{}) // Lua 5.1's behaviour and limits
//	defer L.Close()
//	m, err := luaapi.Open(L, luaapi.Options{Config: devices.Config{Mode: devices.Simulated, Seed: 1}, Sandbox: true})
//	if err != nil { ... }
//	defer m.Close()
//	err = lua51.DoString(L, `local resident = require "resident" ... `)
//
// Open installs package lua51's fixes in any state it is given, so a
// lua.NewState works too; only lua51.NewState also sets Lua 5.1's limits
// (a growing data stack, 16,000 levels of calls). Options say which fabric
// the module runs on, where it prints, whether it sets globals and whether
// the state is sandboxed.
//
// # What Lua sees
//
// Lua sees `require "resident"` (and, with Options.Globals, the global
// `resident` and the verbs startup, submit_gpu, submit_npu, start, abort and
// wait). Protocol errors are raised as error values with the fields kind, op
// and message and a __tostring of "<kind>: <op>: <message>"; bad arguments raise
// the usual "bad argument #n to 'name' (...)" messages. docs/lua-api.md
// describes every function.
//
// Waits use the state's context (lua.LState.SetContext): cancelling it stops
// even a long wait promptly with a Lua error.
//
// # Reading results back in Go
//
// ErrorOf turns an error a script raised back into a *failure.Error, which
// errors.Is understands, and ErrorString words it as Lua does.
// Module.Stats lists what every session did (SessionStats, ready for JSON),
// Module.Violations what the protocol's oracle found, and Module.Close the
// sessions a script left open and how each ended (CloseReport).
//
// # Scenarios, trials and programs in Lua
//
// LoadScenario loads a model-checking scenario written in Lua, which drives
// sessions with the module's functions, for package check; each run of it
// opens the module in a fresh state, on the checker's fabric, with its
// operations recorded for the counterexamples (ScriptChecked gives it the
// built-in exchange's arguments and the pair its replay strings record).
// ExchangeShaped runs a pair of Lua device programs where the built-in
// exchange would run, and PairChecked is the checker's built-in scenario
// on such a pair, or on one with its own arguments. Package
// luacampaign runs a campaign's trials from a Lua trial script, each
// worker's state opened with this package (Module.Restart starts each trial
// afresh).
package luaapi
