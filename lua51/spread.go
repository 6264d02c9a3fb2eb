package lua51

import (
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// gopher-lua's compiler gives a function at most 200 registers, where Lua
// 5.1's gives 250, and a call puts its function and every argument in a
// register of its own, as does a return each of its values: a call with
// 200 arguments, string.char(1, 2, ..., 200), is a "register overflow" at
// compile time, and so is one with fewer arguments in a function whose
// locals hold the other registers. So the arguments of such a call, or the
// values of such a return, are passed through the hidden function in
// constructors of at most spreadBatch items, evaluated in order, with the
// values of a last call or ... after them:
//
//	f(e1, ..., e210, g())
//
// becomes
//
//	f((operators)(id, {e1 .. e100}, {e101 .. e200}, {e201 .. e210}, g()))
//
// and the hidden function gives the items back, nils included, then g()'s
// values: f gets the same arguments, evaluated in the same order.

// spreadRegisters is the most registers a call's arguments (or a return's
// values) and the function's active locals may take together before the
// arguments are spread; the rest of the 200 are left for the values a call
// around it holds while it runs.
const spreadRegisters = 160

// spreadBatch is the most items of one constructor of spread arguments.
const spreadBatch = 100

// spread is args, the transformed arguments of a call or values of a
// return, or the one call of the hidden function that gives them when they
// would take too many registers.
func (t *transformer) spread(args []ast.Expr) []ast.Expr {
	if !t.rewrite || len(args) < 2 || len(args)+t.activeLocals() <= spreadRegisters {
		return args
	}
	items, rest := splitRest(args)
	batch := max(spreadBatch, (len(items)+maxParts-1)/maxParts)
	operands, sizes := splitItems(items, batch, false)
	if rest != nil {
		operands = append(operands, rest)
	}
	call := t.call(args[0], opSpread, operands...)
	giveAll(rest)
	t.sites[len(t.sites)-1].sizes = sizes
	return []ast.Expr{call}
}

// activeLocals is the number of locals active where the transformer is in
// the function it walks, each of which holds a register.
func (t *transformer) activeLocals() int {
	n := 0
	for _, b := range t.sc.blocks {
		n += len(b)
	}
	return n
}

// spreadValues is the hidden function's part of a spread call: it pushes
// the parts' items in order, then the values after them (at index 2 +
// len(sizes) of the stack on), and returns their number.
func spreadValues(L *lua.LState, s *site) int {
	top := L.GetTop()
	pushed := 0
	for p, n := range s.sizes {
		part, _ := L.Get(2 + p).(*lua.LTable)
		for j := 1; j <= n; j++ {
			L.Push(part.RawGetInt(j))
		}
		pushed += n
	}
	for k := 2 + len(s.sizes); k <= top; k++ {
		L.Push(L.Get(k))
		pushed++
	}
	return pushed
}
