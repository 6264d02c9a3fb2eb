package lua51

import (
	"io"

	lua "github.com/yuin/gopher-lua"
)

// Options configure NewState and Install.
type Options struct {
	// Seed seeds the state's random generator (math.random, glibc's rand())
	// until a script calls math.randomseed: a seed below 2^32 as srand(Seed),
	// so Seed 42 gives the numbers math.randomseed(42) gives in lua5.1, and 0
	// the sequence of a lua5.1 script that never calls math.randomseed; the
	// two halves of a larger seed are combined by exclusive or. The resident
	// module passes its fabric's seed so that a script's random choices
	// replay with --seed.
	Seed int64
	// Stdout receives print's output; nil means os.Stdout.
	Stdout io.Writer
	// ExitRefused, when not empty, makes os.exit raise an error with this
	// message instead of ending the process, from the moment the state is
	// made, so that no script (at its top level, or through a copy of
	// os.exit kept in a local) can end a run that still has results to
	// write: a campaign's trials, the checker's scenarios.
	ExitRefused string
	// MemoryLimit is the memory budget in bytes: a string or table that a
	// library function would build past it, or the interpreter's growth
	// past it, raises Lua 5.1's "not enough memory", which pcall catches.
	// Go cannot tell one state's memory from another's, so the budget
	// bounds the Go heap of the whole process as this state sees it. 0
	// means DefaultMemoryLimit().
	MemoryLimit int64
}

// NewState makes a Lua state with Lua 5.1's limits and every fix of this
// package installed. Close it with L.Close.
func NewState(opts Options) *lua.LState {
	L := lua.NewState(stateOptions())
	Install(L, opts)
	return L
}

// installedKey marks, in the Lua registry, a universe Install has set up.
const installedKey = "residentlua.lua51.installed"

// Install applies this package's fixes to a state made elsewhere (an
// embedder's): every replaced library function, pcall and xpcall, and the
// loaders. The limits of NewState can only be chosen when a state is made.
// It sets up a Lua universe (a state and its threads, which share their
// globals) once: a later Install for the state or any of its threads
// changes nothing, so print and io.write keep the first Options.Stdout and
// math.random its generator.
func Install(L *lua.LState, opts Options) {
	if L.G.Registry.RawGetString(installedKey) != lua.LNil {
		return
	}
	L.G.Registry.RawSetString(installedKey, lua.LTrue)
	installProtect(L)
	if opts.MemoryLimit > 0 {
		protectorOf(L).monitor.memory.limit = opts.MemoryLimit
	}
	installLibrary(L, opts)
	installPatterns(L)
	installLoad(L)
	installHooks(L)
}
