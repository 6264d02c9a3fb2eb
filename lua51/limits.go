package lua51

import lua "github.com/yuin/gopher-lua"

// Limits of the states NewState makes. Every coroutine and every helper
// thread of pcall is a state made with the same options, so the initial
// sizes are kept small and both stacks grow on demand.
const (
	// callStackSize is the deepest Lua call nesting of one thread. Lua
	// 5.1 reports a stack overflow after about 16,380 levels of Lua
	// recursion (lua5.1 -e 'local function f(n) return f(n+1)+1 end f(1)');
	// 16,384 frames, in segments of 8 allocated as the stack grows, cost a
	// 16 KiB table of segment pointers per thread.
	callStackSize = 16384
	// registrySize is the initial data stack, in values (16 bytes each);
	// 128 is the least gopher-lua accepts.
	registrySize = 128
	// registryMaxSize bounds the data stack (16 MiB): enough for deep
	// recursion and for unpack or table.concat of a million values.
	registryMaxSize = 1 << 20
	// registryGrowStep is what the data stack grows by beyond what is
	// needed; gopher-lua grows it by a constant step, so a small step makes
	// pushing n values cost O(n²) copies.
	registryGrowStep = 4096
)

// stateOptions are the lua.Options of NewState.
func stateOptions() lua.Options {
	return lua.Options{
		CallStackSize:       callStackSize,
		RegistrySize:        registrySize,
		RegistryMaxSize:     registryMaxSize,
		RegistryGrowStep:    registryGrowStep,
		MinimizeStackMemory: true,
	}
}
