package lua51

import (
	"strconv"

	"github.com/yuin/gopher-lua/ast"
)

// gopher-lua's compiler writes the targets of an assignment while it still
// reads them: a, b = b, a stores b into a before it reads a (both end as
// b), and a local target of a single assignment is the register an and/or
// chain works in, so a = f() and 1 keeps a's old value when f() is false,
// and a = (x or 3) and a reads the x it has just stored. Lua 5.1 evaluates
// every expression before it assigns (manual section 2.4.3): the tables and
// keys of the targets left to right, then the values left to right, then
// the stores from the last target to the first. So such an assignment is
// rewritten into that order through hidden locals:
//
//	t[k], a = a, f()
//
// becomes
//
//	do
//		local (k), (v1), (v2) = k, a, f()
//		a = (v2); t[(k)] = (v1)
//	end
//
// with t and k held only when they are not constants or locals the
// assignment leaves alone (as Lua 5.1 reads those in place). The hidden
// names are not Lua names, so no script can use them, and an error names
// the variable that loaded them, as Lua 5.1's does.
//
// Where a local for each value would take more registers than gopher-lua's
// compiler has (see spread.go), the values are held in one hidden table
// instead, (values) = {a, f()}, and stored from (values)[1], (values)[2].

// assignment is the block that replaces a, or nil when gopher-lua compiles
// a right as it is: one target and one value that is not an and/or chain.
func (t *transformer) assignment(a *ast.AssignStmt) ast.Stmt {
	if len(a.Lhs) == 1 && len(a.Rhs) == 1 {
		if _, logical := a.Rhs[0].(*ast.LogicalOpExpr); !logical {
			return nil
		}
	}
	t.exprs(a.Lhs)
	t.exprs(a.Rhs)
	names := make([]string, len(a.Lhs)) // what errors call each target's table
	for i, lhs := range a.Lhs {
		if target, ok := lhs.(*ast.AttrGetExpr); ok {
			names[i] = t.describe(target.Object)
		}
	}
	assigned := map[string]bool{}
	for _, lhs := range a.Lhs {
		if id, ok := lhs.(*ast.IdentExpr); ok {
			assigned[id.Value] = true
		}
	}
	h := &held{line: a.Line()}
	targets := make([]ast.Expr, len(a.Lhs))
	for i, lhs := range a.Lhs {
		target, ok := lhs.(*ast.AttrGetExpr)
		if !ok {
			targets[i] = lhs
			continue
		}
		indexed := &ast.AttrGetExpr{Object: t.hold(h, target.Object, assigned), Key: t.hold(h, target.Key, assigned)}
		indexed.SetLine(target.Line())
		indexed.SetLastLine(target.LastLine())
		targets[i] = indexed
	}
	values := make([]ast.Expr, len(a.Lhs))
	if len(h.names)+len(a.Lhs)+t.activeLocals() > spreadRegisters {
		// A local for each value would take more registers than gopher-lua's
		// compiler has (Lua 5.1's has 50 more): the values are held in a
		// table, in order, the last call's or ...'s values all there.
		all := h.name("(values)")
		table := &ast.TableExpr{}
		for _, e := range a.Rhs {
			table.Fields = append(table.Fields, &ast.Field{Value: e})
		}
		table.SetLine(a.Rhs[0].Line())
		table.SetLastLine(a.Rhs[len(a.Rhs)-1].LastLine())
		h.exprs = append(h.exprs, table)
		for i := range a.Lhs {
			index := &ast.NumberExpr{Value: strconv.Itoa(i + 1)}
			value := &ast.AttrGetExpr{Object: all, Key: index}
			for _, n := range []ast.PositionHolder{index, value} {
				n.SetLine(h.line)
				n.SetLastLine(h.line)
			}
			values[i] = value
		}
	} else {
		for i := range a.Lhs {
			values[i] = h.name("(v" + strconv.Itoa(i+1) + ")")
		}
		h.exprs = append(h.exprs, a.Rhs...)
	}
	end := a.Line() // the parser gives an assignment no last line
	for _, e := range a.Rhs {
		end = max(end, e.Line(), e.LastLine())
	}
	t.sc.enter(end, h.names...) // the block the compiler puts them in
	t.sc.leave()
	local := &ast.LocalAssignStmt{Names: h.names, Exprs: h.exprs}
	local.SetLine(a.Line())
	local.SetLastLine(a.LastLine())
	stmts := []ast.Stmt{local}
	for i := len(targets) - 1; i >= 0; i-- {
		var store ast.Stmt = &ast.AssignStmt{Lhs: []ast.Expr{targets[i]}, Rhs: []ast.Expr{values[i]}}
		store.SetLine(targets[i].Line())
		store.SetLastLine(a.LastLine())
		if target, ok := targets[i].(*ast.AttrGetExpr); ok && checkStores && !smallKey(target.Key) {
			store = t.store(store.(*ast.AssignStmt), target.Object, target.Key, values[i])
			t.sites[len(t.sites)-1].names[0] = names[i] // not the hidden local's
		}
		stmts = append(stmts, store)
	}
	block := &ast.DoBlockStmt{Stmts: stmts}
	block.SetLine(a.Line())
	block.SetLastLine(a.LastLine())
	t.changed = true
	return block
}

// held is the hidden locals of one rewritten assignment and the
// expressions they are given, in order.
type held struct {
	line  int
	names []string
	exprs []ast.Expr
}

// name declares a hidden local called name and returns a use of it.
func (h *held) name(name string) *ast.IdentExpr {
	h.names = append(h.names, name)
	id := &ast.IdentExpr{Value: name}
	id.SetLine(h.line)
	id.SetLastLine(h.line)
	return id
}

// hold is e as a target's table or key: e itself when it is a constant or a
// local that the assignment does not assign, else a hidden local given e.
func (t *transformer) hold(h *held, e ast.Expr, assigned map[string]bool) ast.Expr {
	switch e := e.(type) {
	case *ast.StringExpr, *ast.NumberExpr, *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr:
		return e
	case *ast.IdentExpr:
		if t.kind(e.Value) == "local" && !assigned[e.Value] {
			return e
		}
	}
	if call, ok := e.(*ast.FuncCallExpr); ok {
		call.AdjustRet = true
	}
	id := h.name("(k" + strconv.Itoa(len(h.names)+1) + ")")
	h.exprs = append(h.exprs, e)
	return id
}
