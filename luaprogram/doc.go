// Package luaprogram runs device programs written in Lua: the researcher's
// own GPU and NPU programs, under the same runtime, executors, faults,
// events and checks as the built-in exchange.
//
// A program is a Lua chunk that returns its function, function(p, args),
// or a table {run = function(p, args), buffers = ..., check = ...}. It runs
// in a Lua state of its own, never the host script's, so it can run on a
// real-time device's thread, and each invocation gets a fresh environment:
// fresh globals, fresh copies of the libraries, a fresh run of the chunk.
// Its body is straight-line code; every memory operation (p:load,
// p:store, p:wait, p:read, p:write, p:drain, ...) is one step of the model:
// the program stops at it, and the executor decides when it happens, so
// the simulated executor interleaves it with the other device, the model
// checker explores it, and a seed replays it. docs/programs.md is the
// reference.
package luaprogram
