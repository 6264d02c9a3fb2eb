// Package luamodule lists what the Lua module "resident" offers: its
// functions (which are also a session's methods, which are globals, which
// still work once the module is closed, and what each does) and a
// session's fields. Package luaapi implements each of them, the command's
// REPL completes their names, and luaapi's tests keep docs/lua-api.md and
// docs/resident.d.lua true to them: one list behind all three, which no
// embedder needs.
package luamodule

import "slices"

// Function is one function of the module.
type Function struct {
	Name       string // resident.<Name>
	Method     bool   // also the session method s:<Name>
	Global     bool   // also a global where the module sets its globals
	AfterClose bool   // still works once the module is closed: it only reads (close is idempotent by then)
	Summary    string // what it does, as its declaration in docs/resident.d.lua says (a test keeps them equal)
}

// functions are the module's functions, in the order docs/lua-api.md
// describes them.
var functions = []Function{
	{Name: "fabric",
		Summary: "Makes a new fabric and makes it current (invalid while sessions are open); without an argument, describes the current one."},
	{Name: "seed", AfterClose: true,
		Summary: "The current fabric's seed."},
	{Name: "now", AfterClose: true,
		Summary: "The fabric's clock in seconds (virtual in simulated time)."},
	{Name: "trial",
		Summary: "Runs one randomized protocol trial (the engine's campaign harness) on a fabric of its own and returns what it found."},
	{Name: "check",
		Summary: "Model checking: explores every schedule of the built-in scenario, or of a scenario script, within bounds and returns the shortest counterexample of each invariant broken; with replay, reruns one schedule."},
	{Name: "validate",
		Summary: "Checks traces, recorded runs of any implementation of the session (docs/traces.md), against the oracle's invariants and returns what it found."},
	{Name: "program",
		Summary: "Makes a device program written in Lua, from a file or a source string, for resident.startup{gpu = ..., npu = ...}."},
	{Name: "kernel",
		Summary: "Makes a GPU program of your own PTX kernel, for a fabric whose GPU is real (--gpu cuda), to run beside an NPU program."},
	{Name: "startup", Global: true,
		Summary: "Makes a session on the fabric's first GPU and NPU: the built-in exchange, or two programs of your own."},
	{Name: "submit_gpu", Method: true, Global: true,
		Summary: "Dispatches the GPU participant, once. A rejected dispatch publishes ABORT for the peer, then raises the device's error."},
	{Name: "submit_npu", Method: true, Global: true,
		Summary: "Dispatches the NPU participant, once. A rejected dispatch publishes ABORT for the peer, then raises the device's error."},
	{Name: "start", Method: true, Global: true,
		Summary: "Publishes RUN; busy unless both participants were accepted."},
	{Name: "abort", Method: true, Global: true,
		Summary: "Publishes ABORT, before a decision only (busy after start)."},
	{Name: "wait", Method: true, Global: true,
		Summary: "Joins both participants under one deadline: true when both retired, false on timeout."},
	{Name: "is_complete", Method: true, AfterClose: true,
		Summary: "Whether a decision was made and every accepted participant retired, without waiting."},
	{Name: "close", Method: true, AfterClose: true,
		Summary: "The drop path: aborts if undecided, joins for up to seconds (default 10), releases or quarantines."},
	{Name: "stats", Method: true, AfterClose: true,
		Summary: "What the session did: shape, bytes, decision, per-device timeline, verification."},
	{Name: "events", Method: true, AfterClose: true,
		Summary: "The session's events still held by its fabric, oldest first."},
	{Name: "sessions", AfterClose: true,
		Summary: "The sessions not yet closed, oldest first."},
	{Name: "fault",
		Summary: "Sets a fault site's chain of terms `[p%][N*]action[(arg)]` joined by `->`; \"off\" clears it."},
	{Name: "faults", AfterClose: true,
		Summary: "The configured fault sites and their terms."},
	{Name: "clear_faults",
		Summary: "Clears every fault site."},
	{Name: "reset",
		Summary: "Resets a device (\"gpu\", \"npu\" or a name): stops what runs on it and ends quarantines whose devices were all reset."},
	{Name: "quarantined", AfterClose: true,
		Summary: "The quarantines in force, oldest first."},
	{Name: "budget", AfterClose: true,
		Summary: "The memory budget."},
	{Name: "violations", AfterClose: true,
		Summary: "The protocol oracle's violations; a correct engine has none."},
	{Name: "plot",
		Summary: "Draws a script's figures into an SVG or PNG file: each series' distribution as a CDF, or y against x as lines."},
}

// Functions lists the module's functions, in the order docs/lua-api.md
// describes them.
func Functions() []Function { return slices.Clone(functions) }

// Names lists the names of the module's functions, sorted.
func Names() []string { return names(func(Function) bool { return true }) }

// SessionMethods lists the names of a session's methods, sorted.
func SessionMethods() []string { return names(func(f Function) bool { return f.Method }) }

// names lists the names of the functions that keep says to, sorted.
func names(keep func(Function) bool) []string {
	var names []string
	for _, f := range functions {
		if keep(f) {
			names = append(names, f.Name)
		}
	}
	slices.Sort(names)
	return names
}

// SessionFields lists the names of a session's read-only fields, s.<name>,
// beside its methods, sorted.
func SessionFields() []string { return []string{"id", "state"} }
