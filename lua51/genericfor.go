package lua51

import "github.com/yuin/gopher-lua/ast"

// gopher-lua's compiler never places the end of a generic for, so a break
// out of one jumps near the start of the function instead: the chunk runs
// again, an outer loop starts over or never ends. So a generic for whose
// body breaks is rewritten into the loop the Lua 5.1 manual (section
// 2.4.5) defines it as, whose break gopher-lua compiles right:
//
//	for k, v in explist do block end
//
// becomes
//
//	do
//		local (for generator), (for state), (for control) = explist
//		while true do
//			local k, v = (for generator)((for state), (for control))
//			if k == nil then break end
//			(for control) = k
//			block
//		end
//	end
//
// A generic for without a break is compiled as it is.

// breaks reports whether stmts break out of the loop they are the body
// of: a break among them or in their if and do blocks (not in a nested
// loop or function).
func breaks(stmts []ast.Stmt) bool {
	for _, s := range stmts {
		switch s := s.(type) {
		case *ast.BreakStmt:
			return true
		case *ast.DoBlockStmt:
			if breaks(s.Stmts) {
				return true
			}
		case *ast.IfStmt:
			if breaks(s.Then) || breaks(s.Else) {
				return true
			}
		}
	}
	return false
}

// genericFor is the loop that replaces s, a generic for whose body
// breaks, not yet walked.
func genericFor(s *ast.GenericForStmt) ast.Stmt {
	line, iterLine := s.Line(), s.Exprs[0].Line()
	at := func(e ast.Expr, l int) ast.Expr {
		e.SetLine(l)
		e.SetLastLine(l)
		return e
	}
	hidden := func(name string) ast.Expr { return at(&ast.IdentExpr{Value: name}, iterLine) }
	setup := &ast.LocalAssignStmt{Names: []string{"(for generator)", "(for state)", "(for control)"}, Exprs: s.Exprs}
	call := at(&ast.FuncCallExpr{Func: hidden("(for generator)"), Args: []ast.Expr{hidden("(for state)"), hidden("(for control)")}}, iterLine)
	step := &ast.LocalAssignStmt{Names: s.Names, Exprs: []ast.Expr{call}}
	stop := &ast.IfStmt{
		Condition: at(&ast.RelationalOpExpr{Operator: "==", Lhs: hidden(s.Names[0]), Rhs: at(&ast.NilExpr{}, iterLine)}, iterLine),
		Then:      []ast.Stmt{&ast.BreakStmt{}},
	}
	advance := &ast.AssignStmt{Lhs: []ast.Expr{hidden("(for control)")}, Rhs: []ast.Expr{hidden(s.Names[0])}}
	body := append([]ast.Stmt{step, stop, advance}, s.Stmts...)
	loop := &ast.WhileStmt{Condition: at(&ast.TrueExpr{}, line), Stmts: body}
	block := &ast.DoBlockStmt{Stmts: []ast.Stmt{setup, loop}}
	for _, st := range []ast.Stmt{setup, step, stop, stop.Then[0], advance} {
		st.SetLine(iterLine)
		st.SetLastLine(iterLine)
	}
	for _, st := range []ast.Stmt{loop, block} {
		st.SetLine(line)
		st.SetLastLine(s.LastLine())
	}
	return block
}
