package lua51

import (
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// gopher-lua's compiler stores the items of a table constructor 50 at a
// time, numbering the batches in 9 bits: past 511 batches (25,550 items)
// the batch number it writes is 0, so the rest of the items are dropped or
// overwrite the first ones. It also looks every constant up in a list, so
// compiling a constructor of 80,000 number literals takes tens of seconds.
// So a constructor of more than constructorBatch items, all positional, is
// built by the hidden function from tables of at most constructorBatch
// items each, evaluated in order, and the values of a last call or ...,
// in the order Lua 5.1 evaluates them:
//
//	{e1, ..., e2500, f()}
//
// becomes
//
//	(operators)(id, {e1 .. e1000}, {e1001 .. e2000}, {e2001 .. e2500}, f())
//
// When no item reads the function's locals or ..., each part is built by a
// function of its own, (function() return {e1 .. e1000} end)(), so that
// each function has at most constructorBatch constants to look up and
// compiling stays linear.

// constructorBatch is the most items one part of a long constructor has,
// unless the constructor has more than constructorBatch*maxParts items.
const constructorBatch = 1000

// maxParts is the most parts of one constructor: each is an argument of
// the hidden function's call, and gopher-lua's compiler runs out of
// registers past about 200 (its error then took minutes to word). A longer
// constructor has larger parts.
const maxParts = 100

// constructor is e, a transformed table constructor, or the call that
// builds it when it is long.
func (t *transformer) constructor(e *ast.TableExpr) ast.Expr {
	if !t.rewrite || len(e.Fields) <= constructorBatch {
		return e
	}
	items := make([]ast.Expr, 0, len(e.Fields))
	constant := true
	for _, f := range e.Fields {
		if f.Key != nil {
			return e
		}
		items = append(items, f.Value)
		constant = constant && t.standalone(f.Value)
	}
	items, rest := splitRest(items)
	batch := max(constructorBatch, (len(items)+maxParts-1)/maxParts)
	parts, sizes := splitItems(items, batch, constant)
	operands := parts
	if rest != nil {
		operands = append(operands, rest)
	}
	call := t.call(e, opTable, operands...)
	giveAll(rest)
	t.sites[len(t.sites)-1].sizes = sizes
	return call
}

// splitRest takes the last of items off when it gives any number of
// values (a call or ... not in parentheses), and returns it as rest.
func splitRest(items []ast.Expr) (_ []ast.Expr, rest ast.Expr) {
	switch last := items[len(items)-1].(type) {
	case *ast.FuncCallExpr:
		if !last.AdjustRet {
			return items[:len(items)-1], last
		}
	case *ast.Comma3Expr:
		if !last.AdjustRet {
			return items[:len(items)-1], last
		}
	}
	return items, nil
}

// giveAll makes rest, a call or ... that splitRest took off and call made
// an operand of one value, give all its values again, as the last operand.
func giveAll(rest ast.Expr) {
	switch rest := rest.(type) {
	case *ast.FuncCallExpr:
		rest.AdjustRet = false
	case *ast.Comma3Expr:
		rest.AdjustRet = false
	}
}

// splitItems puts items, in order, into constructors of at most batch
// items each, with the number of items of each; when wrap is set each is
// built by a function of its own (see above). An item that gives any
// number of values (a call, ...) may give them all when it ends a part:
// the sizes say which to read.
func splitItems(items []ast.Expr, batch int, wrap bool) (parts []ast.Expr, sizes []int) {
	for len(items) > 0 {
		n := min(len(items), batch)
		part := &ast.TableExpr{}
		for _, item := range items[:n] {
			part.Fields = append(part.Fields, &ast.Field{Value: item})
		}
		part.SetLine(items[0].Line())
		part.SetLastLine(items[n-1].LastLine())
		var built ast.Expr = part
		if wrap {
			ret := &ast.ReturnStmt{Exprs: []ast.Expr{part}}
			ret.SetLine(part.Line())
			ret.SetLastLine(part.LastLine())
			fn := &ast.FunctionExpr{ParList: &ast.ParList{}, Stmts: []ast.Stmt{ret}}
			fn.SetLine(part.Line())
			fn.SetLastLine(part.LastLine())
			call := &ast.FuncCallExpr{Func: fn, AdjustRet: true}
			call.SetLine(part.Line())
			call.SetLastLine(part.LastLine())
			built = call
		}
		parts = append(parts, built)
		sizes = append(sizes, n)
		items = items[n:]
	}
	return parts, sizes
}

// standalone reports whether e means the same in a function of its own:
// it reads no local or ... of the function it is in (those would be
// upvalues there, or absent, and an error would name them otherwise).
func (t *transformer) standalone(e ast.Expr) bool {
	return !t.readsFunction(e)
}

// readsFunction reports whether e may read a local or the ... of the
// function it is in, or its locals as upvalues (a function inside e is
// taken as reading them).
func (t *transformer) readsFunction(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.NumberExpr, *ast.StringExpr, *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr:
		return false
	case *ast.IdentExpr:
		return t.kind(e.Value) != "global"
	case *ast.UnaryMinusOpExpr:
		return t.readsFunction(e.Expr)
	case *ast.UnaryNotOpExpr:
		return t.readsFunction(e.Expr)
	case *ast.UnaryLenOpExpr:
		return t.readsFunction(e.Expr)
	case *ast.ArithmeticOpExpr:
		return t.readsFunction(e.Lhs) || t.readsFunction(e.Rhs)
	case *ast.RelationalOpExpr:
		return t.readsFunction(e.Lhs) || t.readsFunction(e.Rhs)
	case *ast.LogicalOpExpr:
		return t.readsFunction(e.Lhs) || t.readsFunction(e.Rhs)
	case *ast.StringConcatOpExpr:
		return t.readsFunction(e.Lhs) || t.readsFunction(e.Rhs)
	case *ast.AttrGetExpr:
		return t.readsFunction(e.Object) || t.readsFunction(e.Key)
	case *ast.FuncCallExpr:
		if e.Func != nil && t.readsFunction(e.Func) || e.Receiver != nil && t.readsFunction(e.Receiver) {
			return true
		}
		for _, a := range e.Args {
			if t.readsFunction(a) {
				return true
			}
		}
		return false
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil && t.readsFunction(f.Key) || t.readsFunction(f.Value) {
				return true
			}
		}
		return false
	}
	return true
}

// buildTable is the hidden function's part of a long constructor: the
// parts' items in order, then the values after them (at index 2 +
// len(sizes) of the stack on).
func buildTable(L *lua.LState, s *site) lua.LValue {
	top := L.GetTop()
	extra := top - 1 - len(s.sizes)
	total := extra
	for _, n := range s.sizes {
		total += n
	}
	t := L.CreateTable(total, 0)
	i := 0
	for p, n := range s.sizes {
		part, _ := L.Get(2 + p).(*lua.LTable)
		for j := 1; j <= n; j++ {
			i++
			if v := part.RawGetInt(j); v != lua.LNil {
				t.RawSetInt(i, v)
			}
		}
	}
	for k := 2 + len(s.sizes); k <= top; k++ {
		i++
		if v := L.Get(k); v != lua.LNil {
			t.RawSetInt(i, v)
		}
	}
	return t
}
