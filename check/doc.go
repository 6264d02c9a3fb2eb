// Package check is a model checker of the resident-session protocol as
// the engine implements it: it explores every schedule of a bounded
// scenario, CHESS style, on the simulated executor, whose every
// nondeterministic choice (which program steps next, when a host release
// lands for a non-coherent family, whether a fault fires, whether a wait's
// deadline passes first) it makes through a devices.Chooser. The engine's
// oracle checks its invariants on every event of every run; for each
// invariant broken, Check reports the shortest schedule it found, in words,
// with a string that replays it. It checks, too, that the scenario is a
// function of its choices, which its search and replays assume.
//
// A scenario is the host side, a Scenario function that drives sessions
// through a Host and asks it for host-side choices; Builtin is the
// built-in one. A scenario written in Lua is luaapi.Scenario, which drives
// sessions through the Lua module and reports its operations to the Host.
// The command residentlua check and the Lua function resident.check run
// the checker; docs/checking.md says what is explored and what is not.
package check
