package lua51

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// gopher-lua's VM formats the numbers of a concatenation with Go's %v
// ("x" .. 0.1+0.2 is x0.30000000000000004; Lua 5.1 gives x0.3). The VM
// can't be hooked, so each loaded chunk is rewritten before it is
// compiled: every concatenation chain a..b..c becomes one call of a hidden
// Go function that does Lua 5.1's OP_CONCAT (numbers as NumberToString,
// right to left with __concat, Lua 5.1's error naming the operand).
//
// The hidden function is a local of the main chunk whose name is not a Lua
// name (so no script can write it); nested functions reach it as an
// upvalue. Its first instruction, which would read a global, is patched to
// read an upvalue of the main chunk's closure instead, so nothing is put
// in the globals.

// concatName is the name of the hidden local.
const concatName = "(concat)"

// operandNames describes the operands of one chain for error messages:
// "global 'x'", "local 'x'", "upvalue 'x'", "field 'x'" or "" for a value
// without a name.
type operandNames []string

// compileChunk parses src, rewrites its concatenations and compiles it as
// a main chunk called id. A chunk whose main function has no room for the
// hidden local (200 locals already) is compiled as it is.
func compileChunk(L *lua.LState, src []byte, id string) (*lua.LFunction, error) {
	src, gotoName := hideGotoNames(src)
	chunk, err := parse.Parse(bytes.NewReader(src), id)
	if err != nil {
		return nil, err
	}
	tr := &transformer{concat: true, gotoName: gotoName}
	tr.function(nil, chunk)
	if len(tr.chains) > 0 {
		if fn, err := compileRewritten(L, chunk, id, tr.chains); err == nil {
			return fn, nil
		}
		if chunk, err = parse.Parse(bytes.NewReader(src), id); err != nil {
			return nil, err
		}
		(&transformer{gotoName: gotoName}).function(nil, chunk)
	}
	proto, err := lua.Compile(chunk, id)
	if err != nil {
		return nil, err
	}
	return L.NewFunctionFromProto(proto), nil
}

// compileRewritten compiles a chunk whose concatenations call the hidden
// local, and gives the function its hidden upvalue.
func compileRewritten(L *lua.LState, chunk []ast.Stmt, id string, chains []operandNames) (*lua.LFunction, error) {
	local := &ast.LocalAssignStmt{Names: []string{concatName}, Exprs: []ast.Expr{&ast.IdentExpr{Value: concatName}}}
	local.SetLine(chunk[0].Line())
	local.SetLastLine(chunk[0].Line())
	proto, err := lua.Compile(append([]ast.Stmt{local}, chunk...), id)
	if err != nil {
		return nil, err
	}
	if err := patchGlobalToUpvalue(proto, concatName); err != nil {
		return nil, err
	}
	fn := L.NewFunctionFromProto(proto)
	uv := &lua.Upvalue{}
	uv.SetValue(L.NewFunction((&concatenator{chains: chains}).call))
	fn.Upvalues[0] = uv
	return fn, nil
}

// scope is one function being walked: its blocks of local names, inner
// last, and the function around it.
type scope struct {
	blocks [][]string
	outer  *scope
}

func (s *scope) declare(names ...string) {
	s.blocks[len(s.blocks)-1] = append(s.blocks[len(s.blocks)-1], names...)
}

func (s *scope) has(name string) bool {
	for _, b := range s.blocks {
		for _, n := range b {
			if n == name {
				return true
			}
		}
	}
	return false
}

// transformer rewrites a chunk's tree before it is compiled: the
// concatenation chains (when concat is set), numbering them; local f =
// function, whose f gopher-lua's compiler puts in scope too early; the
// line of a generic for's iterator calls; and the name that stands for goto
// (gotoName, when the loader hid goto so) back to goto.
type transformer struct {
	concat   bool
	gotoName string
	sc       *scope
	chains   []operandNames
}

// restoreGoto renames gotoName back to goto in names.
func (t *transformer) restoreGoto(names ...*string) {
	for _, name := range names {
		if t.gotoName != "" && *name == t.gotoName {
			*name = "goto"
		}
	}
}

// restoreGotos is restoreGoto of a list of names.
func (t *transformer) restoreGotos(names []string) {
	for i := range names {
		t.restoreGoto(&names[i])
	}
}

// function walks a function's body with its parameters declared.
func (t *transformer) function(params []string, body []ast.Stmt) {
	t.sc = &scope{blocks: [][]string{params}, outer: t.sc}
	t.stmts(body)
	t.sc = t.sc.outer
}

// block walks stmts in a block of their own; declare names the block's
// locals that are declared before its statements (loop variables).
func (t *transformer) block(stmts []ast.Stmt, declare ...string) {
	t.sc.blocks = append(t.sc.blocks, declare)
	t.stmts(stmts)
	t.sc.blocks = t.sc.blocks[:len(t.sc.blocks)-1]
}

func (t *transformer) stmts(stmts []ast.Stmt) {
	for _, s := range stmts {
		t.stmt(s)
	}
}

func (t *transformer) exprs(es []ast.Expr) {
	for i, e := range es {
		es[i] = t.expr(e)
	}
}

func (t *transformer) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		t.exprs(s.Lhs)
		t.exprs(s.Rhs)
	case *ast.LocalAssignStmt:
		t.restoreGotos(s.Names)
		if len(s.Names) == 1 && isSingleFunction(s.Exprs) {
			if s.LastLine() != 0 {
				t.sc.declare(s.Names...) // local function f: f is in scope in its body
				t.exprs(s.Exprs)
				return
			}
			// local f = function ... end: the parser gives it the same tree
			// as local function f (only without a last line), and the
			// compiler puts f in scope in the body for both. In Lua 5.1 f
			// there is the outer f; a second, discarded value makes the
			// compiler declare f after the function, as for any local.
			s.Exprs = append(s.Exprs, &ast.NilExpr{})
		}
		t.exprs(s.Exprs)
		t.sc.declare(s.Names...)
	case *ast.FuncCallStmt:
		s.Expr = t.expr(s.Expr)
	case *ast.DoBlockStmt:
		t.block(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = t.expr(s.Condition)
		t.block(s.Stmts)
	case *ast.RepeatStmt:
		t.sc.blocks = append(t.sc.blocks, nil)
		t.stmts(s.Stmts)
		s.Condition = t.expr(s.Condition)
		t.sc.blocks = t.sc.blocks[:len(t.sc.blocks)-1]
	case *ast.IfStmt:
		s.Condition = t.expr(s.Condition)
		t.block(s.Then)
		t.block(s.Else)
	case *ast.NumberForStmt:
		t.restoreGoto(&s.Name)
		s.Init, s.Limit = t.expr(s.Init), t.expr(s.Limit)
		if s.Step != nil {
			s.Step = t.expr(s.Step)
		}
		t.block(s.Stmts, s.Name)
	case *ast.GenericForStmt:
		// Lua 5.1 gives the loop's calls of its iterator (TFORLOOP) the
		// line where the expressions after 'in' start; gopher-lua gives
		// them the statement's line, that of 'for'.
		s.SetLine(s.Exprs[0].Line())
		t.restoreGotos(s.Names)
		t.exprs(s.Exprs)
		t.block(s.Stmts, s.Names...)
	case *ast.FuncDefStmt:
		t.restoreGoto(&s.Name.Method)
		if s.Name.Func != nil {
			s.Name.Func = t.expr(s.Name.Func)
		} else {
			s.Name.Receiver = t.expr(s.Name.Receiver)
		}
		t.functionExpr(s.Func, s.Name.Func == nil)
	case *ast.ReturnStmt:
		t.exprs(s.Exprs)
	}
}

// isSingleFunction reports whether es is one function expression, as in
// local function f (gopher-lua compiles local f = function the same way).
func isSingleFunction(es []ast.Expr) bool {
	if len(es) != 1 {
		return false
	}
	_, ok := es[0].(*ast.FunctionExpr)
	return ok
}

// functionExpr walks a function expression; a method has self first.
func (t *transformer) functionExpr(f *ast.FunctionExpr, method bool) {
	t.restoreGotos(f.ParList.Names)
	params := append([]string(nil), f.ParList.Names...)
	if method {
		params = append([]string{"self"}, params...)
	}
	t.function(params, f.Stmts)
}

func (t *transformer) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.StringConcatOpExpr:
		return t.chain(e)
	case *ast.AttrGetExpr:
		e.Object, e.Key = t.expr(e.Object), t.expr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = t.expr(f.Key)
			}
			f.Value = t.expr(f.Value)
		}
	case *ast.IdentExpr:
		t.restoreGoto(&e.Value)
	case *ast.StringExpr:
		t.restoreGoto(&e.Value) // a.goto, {goto = v}
	case *ast.FuncCallExpr:
		t.restoreGoto(&e.Method)
		if e.Func != nil {
			e.Func = t.expr(e.Func)
		}
		if e.Receiver != nil {
			e.Receiver = t.expr(e.Receiver)
		}
		t.exprs(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = t.expr(e.Lhs), t.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = t.expr(e.Lhs), t.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = t.expr(e.Lhs), t.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = t.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = t.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = t.expr(e.Expr)
	case *ast.FunctionExpr:
		t.functionExpr(e, false)
	}
	return e
}

// chain rewrites a..b..c into (concat)(id, a, b, c), or leaves it when all
// its operands are string constants.
func (t *transformer) chain(e *ast.StringConcatOpExpr) ast.Expr {
	operands := []ast.Expr{e.Lhs}
	for rhs := e.Rhs; ; {
		next, ok := rhs.(*ast.StringConcatOpExpr)
		if !ok {
			operands = append(operands, rhs)
			break
		}
		operands = append(operands, next.Lhs)
		rhs = next.Rhs
	}
	constant := true
	names := make(operandNames, len(operands))
	for i, op := range operands {
		operands[i] = t.expr(op)
		names[i] = t.describe(operands[i])
		_, isString := operands[i].(*ast.StringExpr)
		constant = constant && isString
	}
	if constant || !t.concat {
		return e
	}
	if last, ok := operands[len(operands)-1].(*ast.FuncCallExpr); ok {
		last.AdjustRet = true // one value, as an operand
	}
	if last, ok := operands[len(operands)-1].(*ast.Comma3Expr); ok {
		last.AdjustRet = true
	}
	id := &ast.NumberExpr{Value: strconv.Itoa(len(t.chains))}
	t.chains = append(t.chains, names)
	fn := &ast.IdentExpr{Value: concatName}
	call := &ast.FuncCallExpr{Func: fn, Args: append([]ast.Expr{id}, operands...)}
	// Lua 5.1 gives a concatenation the line its last operand ends on.
	line := e.Line()
	if last := operands[len(operands)-1]; last.LastLine() > 0 {
		line = last.LastLine()
	} else if last.Line() > 0 {
		line = last.Line()
	}
	for _, n := range []ast.PositionHolder{id, fn, call} {
		n.SetLine(line)
		n.SetLastLine(line)
	}
	return call
}

// describe names an operand as Lua 5.1's getobjname would.
func (t *transformer) describe(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.IdentExpr:
		return t.kind(e.Value) + " '" + e.Value + "'"
	case *ast.AttrGetExpr:
		if k, ok := e.Key.(*ast.StringExpr); ok {
			return "field '" + k.Value + "'"
		}
		return "field '?'"
	}
	return ""
}

// kind says whether name is a local, an upvalue or a global where it is
// used.
func (t *transformer) kind(name string) string {
	if t.sc.has(name) {
		return "local"
	}
	for s := t.sc.outer; s != nil; s = s.outer {
		if s.has(name) {
			return "upvalue"
		}
	}
	return "global"
}

// concatenator is the hidden function of one chunk: it knows the operand
// names of the chunk's chains.
type concatenator struct {
	chains []operandNames
}

// call is (concat)(id, v1, ..., vn): v1 .. ... .. vn as Lua 5.1's
// OP_CONCAT does it.
func (c *concatenator) call(L *lua.LState) int {
	top := L.GetTop()
	if s, ok := joinStrings(L, 2, top); ok {
		L.Push(lua.LString(s))
		return 1
	}
	values := make([]lua.LValue, top-1)
	for i := range values {
		values[i] = L.Get(i + 2)
	}
	L.Push(c.concat(L, int(checkNumber(L, 1)), values))
	return 1
}

// joinStrings joins the values at stack indices from..to when all are
// strings or numbers.
func joinStrings(L *lua.LState, from, to int) (string, bool) {
	n := 0
	for i := from; i <= to; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			n += len(v)
		case lua.LNumber:
			n += 8
		default:
			return "", false
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i := from; i <= to; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			b.WriteString(string(v))
		case lua.LNumber:
			b.WriteString(NumberToString(v))
		}
	}
	return b.String(), true
}

// concat is luaV_concat: from the right, runs of strings and numbers are
// joined and other pairs go through __concat; a value that can't be
// concatenated is an error naming the operand in its slot.
func (c *concatenator) concat(L *lua.LState, chain int, values []lua.LValue) lua.LValue {
	last := len(values) - 1
	for last > 0 {
		lhs, rhs := values[last-1], values[last]
		if !isStringOrNumber(lhs) || !isStringOrNumber(rhs) {
			values[last-1] = c.metaConcat(L, chain, last, lhs, rhs)
			last--
			continue
		}
		first := last - 1
		for first > 0 && isStringOrNumber(values[first-1]) {
			first--
		}
		var b strings.Builder
		for _, v := range values[first : last+1] {
			b.WriteString(plainString(v))
		}
		values[first] = lua.LString(b.String())
		last = first
	}
	return values[0]
}

// metaConcat calls the __concat metamethod of lhs or rhs (slots i-1 and i
// of the chain), or raises Lua 5.1's error.
func (c *concatenator) metaConcat(L *lua.LState, chain, i int, lhs, rhs lua.LValue) lua.LValue {
	mm := L.GetMetaField(lhs, "__concat")
	if mm == lua.LNil {
		mm = L.GetMetaField(rhs, "__concat")
	}
	if mm == lua.LNil {
		bad, slot := lhs, i-1
		if isStringOrNumber(lhs) {
			bad, slot = rhs, i
		}
		luaError(L, "%s", operandError(bad, "concatenate", c.name(chain, slot)))
	}
	if _, ok := mm.(*lua.LFunction); !ok && L.GetMetaField(mm, "__call") == lua.LNil {
		luaError(L, "%s", operandError(mm, "call", ""))
	}
	return call1(L, mm, lhs, rhs)
}

// name is the description of operand slot of chain, "" when unknown.
func (c *concatenator) name(chain, slot int) string {
	if chain < 0 || chain >= len(c.chains) || slot >= len(c.chains[chain]) {
		return ""
	}
	return c.chains[chain][slot]
}

// operandError is luaG_typeerror's message: "attempt to <op> global 'x' (a nil
// value)", or "attempt to <op> a nil value" without a name.
func operandError(v lua.LValue, op, name string) string {
	if name == "" {
		return fmt.Sprintf("attempt to %s a %s value", op, v.Type())
	}
	return fmt.Sprintf("attempt to %s %s (a %s value)", op, name, v.Type())
}
