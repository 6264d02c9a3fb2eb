// Package lua51 makes a gopher-lua state behave like Lua 5.1: it is the one
// place where every Lua state of the project (scripts, -e chunks, the REPL,
// and the states embedders open the resident module in) gets its fixes.
//
// gopher-lua is kept as it is (no fork, no replace); every fix goes through
// its public API:
//   - pcall and xpcall run the protected function on a pooled helper thread,
//     so that an error closes exactly the protected frames' upvalues, as Lua
//     5.1 does (gopher-lua closes every frame's);
//   - the standard library functions that differ from Lua 5.1's are replaced:
//     number formatting (%.14g), tonumber and string coercion, string.format,
//     the pattern functions, math.random on a generator the state owns,
//     collectgarbage, os.clock and os.date;
//   - chunks are loaded with lua.c's syntax error format and Lua 5.1's
//     limits, goto as an ordinary name and number literals read as strtod
//     reads them; their .., %, ^ and # do what Lua 5.1's VM does (each a
//     call of a hidden function); runtime and argument errors name the
//     variable or function involved where the debug information allows,
//     and debug.getinfo gives the chunkname as source;
//   - NewState sets limits like Lua's: a growing data stack and a deep call
//     stack;
//   - every thread a script runs on counts its instructions through its
//     context: debug.sethook, PCallBudget and ResumeBudget (an instruction
//     budget for a call, or for a step of a host's coroutine) and the memory
//     budget (Options.MemoryLimit: Lua 5.1's catchable
//     "not enough memory" instead of Go's fatal out of memory) rest on it.
//
// docs/lua.md lists what was changed, why, and what still differs.
package lua51
