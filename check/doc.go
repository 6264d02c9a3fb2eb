// Package check is a model checker of the resident-session protocol as
// the engine implements it: it explores every schedule of a bounded
// scenario, CHESS style, on the simulated executor, whose every
// nondeterministic choice (which program steps next, when a host release
// lands for a non-coherent family, whether a fault fires, whether a wait's
// deadline passes first) it makes through a choice.Chooser. The engine's
// oracle checks its invariants on every event of every run; for each
// invariant broken, Check reports the shortest schedule it found, in words,
// with a string that replays it. It checks, too, that the scenario is a
// function of its choices, which its search and replays assume.
//
// # Checking a scenario
//
//	x := check.Exchange{Rounds: 2, Credits: 2} // the built-in exchange's arguments
//	scenario, pair := x.Scenario(check.Builtin), x.Pair()
//	rep := check.Check(ctx, scenario, check.Options{Bounds: check.Bounds{Faults: 1}, Pair: pair})
//	fmt.Print(rep.String()) // the figures, and each counterexample with its replay string
//	if !rep.OK() {
//		r, err := check.ReplayPair(ctx, scenario, pair, rep.Counterexamples[0].Replay, nil)
//		...
//	}
//
// Bounds limit the search of any pair of programs (BoundNames lists those
// a person sets); the pair's own arguments, the built-in exchange's rounds
// and credits among them, are not bounds. A replay string records the
// pair's digest (Options.Pair), and a replay on another pair is refused.
// Cancelling ctx stops a search with what it found.
//
// # Scenarios
//
// A scenario is the host side, a Scenario function that drives sessions
// through a Host (Host.Open of any pair of programs, or Host.NewSession of
// the built-in exchange, then the Session's verbs) and asks it for
// host-side choices (Host.Choose); Builtin is the built-in one, and
// BuiltinWith and BuiltinOf run it on programs of one's own. A scenario
// written in Lua
// is luaapi.Scenario, which drives sessions through the Lua module and
// reports its operations to the Host. The command residentlua check and the
// Lua function resident.check run the checker; docs/checking.md says what
// is explored and what is not.
package check
