package lua51

import "github.com/yuin/gopher-lua/ast"

// gopher-lua's compiler folds conditions that are constants (if false
// then, if nil ... elseif false, if 1 then break end, 1 or x) with jumps
// that go wrong inside a generic for: the rest of the loop's body is
// skipped or run twice, a sum comes out wrong, the loop never ends, and
// the debug information of the locals in the dead block is misplaced, so
// an error names a local that is out of scope. Lua 5.1's compiler folds
// the same conditions, so the loader folds them first, the same way: an if
// whose condition is a constant becomes the block that runs (a do block,
// or nothing), and an and, or or not whose left operand is a constant
// becomes what it evaluates to. What is left has no constant to fold.

// truth is whether e is a constant, and then whether it is true: nil and
// false are false; true, numbers (arithmetic of numerals included) and
// strings are true.
func truth(e ast.Expr) (constant, value bool) {
	switch e.(type) {
	case *ast.NilExpr, *ast.FalseExpr:
		return true, false
	case *ast.TrueExpr, *ast.NumberExpr, *ast.StringExpr:
		return true, true
	}
	// Arithmetic of numerals that Lua 5.1 folds (- 0, 2 * 3) is a number
	// constant there too; left to gopher-lua, a -0 it folds would become
	// the function's constant for every later 0.
	return isNumeral(e), true
}

// foldLogical is e, an and or or whose operands are already transformed,
// folded when its left operand is a constant.
func foldLogical(e *ast.LogicalOpExpr) ast.Expr {
	constant, value := truth(e.Lhs)
	if !constant {
		return e
	}
	if value != (e.Operator == "and") {
		return e.Lhs
	}
	// The right operand is one value, as an operand of and/or is.
	switch rhs := e.Rhs.(type) {
	case *ast.FuncCallExpr:
		rhs.AdjustRet = true
	case *ast.Comma3Expr:
		rhs.AdjustRet = true
	}
	return e.Rhs
}

// foldNot is not e's operand as a constant when that is one.
func foldNot(e *ast.UnaryNotOpExpr) ast.Expr {
	constant, value := truth(e.Expr)
	if !constant {
		return e
	}
	var folded ast.Expr = &ast.TrueExpr{}
	if value {
		folded = &ast.FalseExpr{}
	}
	folded.SetLine(e.Line())
	folded.SetLastLine(e.LastLine())
	return folded
}

// ifStmt walks s and returns the statement that replaces it: when its
// condition is a constant, the block that runs, as a do block (empty when
// none does); else s.
func (t *transformer) ifStmt(s *ast.IfStmt) ast.Stmt {
	s.Condition = t.expr(s.Condition)
	constant, value := truth(s.Condition)
	if !constant {
		t.block(s.Then, s.LastLine())
		t.block(s.Else, s.LastLine())
		return s
	}
	stmts := s.Else
	if value {
		stmts = s.Then
	}
	block := &ast.DoBlockStmt{Stmts: stmts}
	block.SetLine(s.Line())
	block.SetLastLine(s.LastLine())
	t.block(stmts, s.LastLine())
	return block
}
