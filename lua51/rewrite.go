package lua51

import (
	"bytes"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// gopher-lua's VM does three operations otherwise than Lua 5.1, and it
// can't be hooked: it formats the numbers of a concatenation with Go's %v
// ("x" .. 0.1+0.2 is x0.30000000000000004; Lua 5.1 gives x0.3), computes
// a % b with fmod (5 % math.huge is 5, -4 % 2 is -0; Lua 5.1 computes
// a - floor(a/b)*b: nan and 0), and calls the __len metamethod of a table
// (Lua 5.1 ignores it). So each loaded chunk is rewritten before it is
// compiled: every concatenation chain a..b..c, every a % b and every #a
// becomes one call of a hidden Go function (operators.go) that does what
// Lua 5.1's VM does, with Lua 5.1's error naming the operand.
//
// The hidden function is a local of the main chunk whose name is not a Lua
// name (so no script can write it); nested functions reach it as an
// upvalue. Its first instruction, which would read a global, is patched to
// read an upvalue of the main chunk's closure instead, so nothing is put
// in the globals.

// operatorsName is the name of the hidden local.
const operatorsName = "(operators)"

// opKind is what one rewritten operation does.
type opKind uint8

const (
	opConcat   opKind = iota + 1 // a .. b .. c
	opArith                      // a % b, a ^ b, and arithmetic of constants Lua 5.1 does not fold
	opLen                        // #a
	opAppend                     // t[#t + 1] = v, with a v that has no effects
	opForBound                   // a numeric for's initial value, limit or step
	opTable                      // a constructor of more than constructorBatch items
	opSpread                     // the arguments of a call, or values of a return, that take too many registers
	opStore                      // t[k] = v, with a k that may be a large integer (store.go)
	opKey                        // a constructor's [k] = v, with such a k (store.go)
)

// site is one rewritten operation of a chunk: its kind, the names of its
// operands for error messages, and the operator of an opArith.
type site struct {
	op       opKind
	names    operandNames
	operator string
	sizes    []int // an opTable's or opSpread's number of items in each part
}

// operandNames describes the operands of one chain for error messages:
// "global 'x'", "local 'x'", "upvalue 'x'", "field 'x'" or "" for a value
// without a name.
type operandNames []string

// compileChunk parses src, rewrites its operations and assignments and
// compiles it as a main chunk called id; constructors are its table
// constructors as the syntax check found them. A chunk that the rewrite
// leaves without room (a function with 200 registers already in use) is
// compiled as it is. It touches no state, so that a host may leave it
// running on another goroutine when its call is cancelled (loadBytes).
func compileChunk(src []byte, id string, constructors []constructorStores) (*compiled, error) {
	src, gotoName := hideGotoNames(src)
	chunk, err := parse.Parse(bytes.NewReader(src), id)
	if err != nil {
		return nil, err
	}
	if !rewriteChunks {
		return compileTransformed(chunk, id, nil)
	}
	tr := &transformer{rewrite: true, gotoName: gotoName, stores: &storeLines{checked: constructors}}
	tr.function(0, mainChunk, nil, chunk)
	tr.stores.mark()
	c, err := compileTransformed(chunk, id, tr.sites)
	if err == nil {
		tr.stores.fix(c.proto)
		fixLocalEnds(c.proto, tr.locals)
	}
	if err == nil || !tr.changed {
		return c, err
	}
	if chunk, err = parse.Parse(bytes.NewReader(src), id); err != nil {
		return nil, err
	}
	tr = &transformer{gotoName: gotoName, stores: &storeLines{checked: constructors}}
	tr.function(0, mainChunk, nil, chunk)
	tr.stores.mark()
	c, err = compileTransformed(chunk, id, nil)
	if err == nil {
		tr.stores.fix(c.proto)
		fixLocalEnds(c.proto, tr.locals)
	}
	return c, err
}

// compiled is a compiled chunk not yet made a function of a state: its
// prototype, and the sites of its rewritten operations when it calls the
// hidden local (its first upvalue).
type compiled struct {
	proto *lua.FunctionProto
	sites []site
}

// function makes the chunk a function of L, with its hidden upvalue.
func (c *compiled) function(L *lua.LState) *lua.LFunction {
	fn := L.NewFunctionFromProto(c.proto)
	if len(c.sites) > 0 {
		uv := &lua.Upvalue{}
		uv.SetValue(L.NewFunction((&operators{sites: c.sites}).call))
		fn.Upvalues[0] = uv
	}
	return fn
}

// compileTransformed compiles a transformed chunk, with the hidden local
// when its operations call it.
func compileTransformed(chunk []ast.Stmt, id string, sites []site) (*compiled, error) {
	if len(sites) > 0 {
		return compileRewritten(chunk, id, sites)
	}
	proto, err := lua.Compile(chunk, id)
	if err != nil {
		return nil, err
	}
	return &compiled{proto: proto}, nil
}

// compileRewritten compiles a chunk whose operations call the hidden local,
// which becomes its first upvalue.
func compileRewritten(chunk []ast.Stmt, id string, sites []site) (*compiled, error) {
	local := &ast.LocalAssignStmt{Names: []string{operatorsName}, Exprs: []ast.Expr{&ast.IdentExpr{Value: operatorsName}}}
	local.SetLine(chunk[0].Line())
	local.SetLastLine(chunk[0].Line())
	proto, err := lua.Compile(append([]ast.Stmt{local}, chunk...), id)
	if err != nil {
		return nil, err
	}
	if err := patchGlobalToUpvalue(proto, operatorsName); err != nil {
		return nil, err
	}
	return &compiled{proto: proto, sites: sites}, nil
}

// scope is one function being walked: its blocks of local names, inner
// last, with the last line of each, the function around it, and the
// function's locals as the compiler registers them.
type scope struct {
	blocks [][]string
	ends   []int
	loops  []int // for a for loop's block, the line of its loop instruction
	outer  *scope
	locals *localEnds
}

// declare declares names in the innermost block.
func (s *scope) declare(names ...string) {
	s.blocks[len(s.blocks)-1] = append(s.blocks[len(s.blocks)-1], names...)
	for _, name := range names {
		s.locals.add(name, s.ends[len(s.ends)-1], s.loops[len(s.loops)-1])
	}
}

// enter opens a block that ends on line end, with names declared in it;
// an end of 0 (the parser gives no last line to an elseif) is that of the
// block around it.
func (s *scope) enter(end int, names ...string) { s.enterLoop(end, 0, names...) }

// enterLoop is enter for the block of a for loop whose loop instruction
// has line loop.
func (s *scope) enterLoop(end, loop int, names ...string) {
	if end <= 0 && len(s.ends) > 0 {
		end = s.ends[len(s.ends)-1]
	}
	s.blocks = append(s.blocks, nil)
	s.ends = append(s.ends, end)
	s.loops = append(s.loops, loop)
	s.declare(names...)
}

// leave closes the innermost block.
func (s *scope) leave() {
	s.blocks = s.blocks[:len(s.blocks)-1]
	s.ends = s.ends[:len(s.ends)-1]
	s.loops = s.loops[:len(s.loops)-1]
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
// operations the hidden function does (when rewrite is set), numbering
// them; local f =
// function, whose f gopher-lua's compiler puts in scope too early; the
// line of a generic for's iterator calls; and the name that stands for goto
// (gotoName, when the loader hid goto so) back to goto.
type transformer struct {
	rewrite  bool
	gotoName string
	sc       *scope
	sites    []site
	changed  bool         // a site or an assignment was rewritten
	locals   []*localEnds // each function's locals, the main chunk's first
	stores   *storeLines  // the lines of constructors' stores (storelines.go)
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

// function walks a function's body, defined from line to lastLine (0 and
// mainChunk for the main chunk), with its parameters declared.
func (t *transformer) function(line, lastLine int, params []string, body []ast.Stmt) {
	locals := &localEnds{line: line, lastLine: lastLine}
	t.locals = append(t.locals, locals)
	t.sc = &scope{outer: t.sc, locals: locals}
	t.sc.enter(lastLine, params...)
	t.stmts(body)
	t.sc = t.sc.outer
}

// block walks stmts in a block of their own that ends on line end; declare
// names the block's locals that are declared before its statements (loop
// variables).
func (t *transformer) block(stmts []ast.Stmt, end int, declare ...string) {
	t.sc.enter(end, declare...)
	t.stmts(stmts)
	t.sc.leave()
}

func (t *transformer) stmts(stmts []ast.Stmt) {
	for i, s := range stmts {
		if s, ok := s.(*ast.IfStmt); ok {
			stmts[i] = t.ifStmt(s)
			continue
		}
		if f, ok := s.(*ast.GenericForStmt); ok && breaks(f.Stmts) {
			t.restoreGotos(f.Names)
			stmts[i] = genericFor(f)
			t.stmt(stmts[i])
			t.changed = true
			continue
		}
		if a, ok := s.(*ast.AssignStmt); ok && t.rewrite {
			if call := t.appendCall(a); call != nil {
				stmts[i] = call
				continue
			}
			if call := t.storeCall(a); call != nil {
				stmts[i] = call
				continue
			}
			if block := t.assignment(a); block != nil {
				stmts[i] = block
				continue
			}
		}
		t.stmt(s)
	}
}

// appendCall is the call (operators)(id, t, v) that replaces t[#t + 1] = v
// (t a name), the usual append, which would otherwise cost a call for #t:
// it does the length, the sum and the assignment in one. Lua 5.1 takes #t
// before it evaluates v, so only a v whose evaluation changes nothing is
// taken (a constant, a local, a function, a table of such values); nil
// when a is not such an append.
func (t *transformer) appendCall(a *ast.AssignStmt) ast.Stmt {
	if len(a.Lhs) != 1 || len(a.Rhs) != 1 || !t.plainValue(a.Rhs[0]) {
		return nil
	}
	target, ok := a.Lhs[0].(*ast.AttrGetExpr)
	if !ok {
		return nil
	}
	table, ok := target.Object.(*ast.IdentExpr)
	sum, isSum := target.Key.(*ast.ArithmeticOpExpr)
	if !ok || !isSum || sum.Operator != "+" {
		return nil
	}
	length, isLen := sum.Lhs.(*ast.UnaryLenOpExpr)
	one, isNumber := sum.Rhs.(*ast.NumberExpr)
	if !isLen || !isNumber || one.Value != "1" {
		return nil
	}
	if measured, ok := length.Expr.(*ast.IdentExpr); !ok || measured.Value != table.Value {
		return nil
	}
	value := t.expr(a.Rhs[0])
	call := t.call(a.Rhs[0], opAppend, t.expr(table), value).(*ast.FuncCallExpr)
	stmt := &ast.FuncCallStmt{Expr: call}
	stmt.SetLine(a.Line())
	stmt.SetLastLine(a.LastLine())
	return stmt
}

// plainValue reports whether evaluating e changes nothing a script could
// see: a constant, a local or upvalue, a function, a vararg, a table of
// such values.
func (t *transformer) plainValue(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr, *ast.NumberExpr, *ast.StringExpr, *ast.FunctionExpr, *ast.Comma3Expr:
		return true
	case *ast.IdentExpr:
		return t.kind(e.Value) != "global"
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil && !t.plainValue(f.Key) || !t.plainValue(f.Value) {
				return false
			}
		}
		return true
	}
	return false
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
		t.block(s.Stmts, s.LastLine())
	case *ast.WhileStmt:
		s.Condition = t.expr(s.Condition)
		t.block(s.Stmts, s.LastLine())
	case *ast.RepeatStmt:
		t.sc.enter(s.LastLine())
		t.stmts(s.Stmts)
		s.Condition = t.expr(s.Condition)
		t.sc.leave()
	case *ast.NumberForStmt:
		t.restoreGoto(&s.Name)
		s.Init, s.Limit = t.forBound(s.Init), t.forBound(s.Limit)
		if s.Step != nil {
			s.Step = t.forBound(s.Step)
		}
		t.sc.enterLoop(s.LastLine(), s.Line(), "(for index)", "(for limit)", "(for step)", s.Name)
		t.stmts(s.Stmts)
		t.sc.leave()
	case *ast.GenericForStmt:
		// Lua 5.1 gives the loop's calls of its iterator (TFORLOOP) the
		// line where the expressions after 'in' start; gopher-lua gives
		// them the statement's line, that of 'for'.
		s.SetLine(s.Exprs[0].Line())
		t.restoreGotos(s.Names)
		t.exprs(s.Exprs)
		t.sc.enterLoop(s.LastLine(), s.Line(), append([]string{"(for generator)", "(for state)", "(for control)"}, s.Names...)...)
		t.stmts(s.Stmts)
		t.sc.leave()
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
		s.Exprs = t.spread(s.Exprs)
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
	if f.ParList.HasVargs {
		params = append(params, "arg") // gopher-lua's compiler declares it, as Lua 5.1's LUA_COMPAT_VARARG
	}
	t.function(f.Line(), f.LastLine(), params, f.Stmts)
}

func (t *transformer) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.StringConcatOpExpr:
		return t.chain(e)
	case *ast.AttrGetExpr:
		e.Object, e.Key = t.expr(e.Object), t.expr(e.Key)
	case *ast.TableExpr:
		t.stores.meet(e)
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = t.constructorKey(t.expr(f.Key))
			}
			f.Value = t.expr(f.Value)
		}
		return t.constructor(e)
	case *ast.NumberExpr:
		// gopher-lua's compiler reads a literal with Go's rules: 010 as
		// octal, 1e309 and 0xffffffffffffffffff as nan. Lua 5.1 reads it
		// with strtod: 10, inf, 4.7223664828696e+21.
		if v, ok := ParseNumber(e.Value); ok {
			e.Value = strconv.FormatFloat(float64(v), 'g', -1, 64)
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
		e.Args = t.spread(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = t.expr(e.Lhs), t.expr(e.Rhs)
		return foldLogical(e)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = t.expr(e.Lhs), t.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = t.expr(e.Lhs), t.expr(e.Rhs)
		if v, ok := numeral(e); ok && e.Operator == "^" && v > 0 && !math.IsInf(v, 0) {
			// Lua 5.1 folds it with glibc's pow; gopher-lua would with
			// Go's math.Pow, which can be a unit in the last place off.
			n := &ast.NumberExpr{Value: strconv.FormatFloat(v, 'g', -1, 64)}
			n.SetLine(e.Line())
			n.SetLastLine(e.LastLine())
			return n
		}
		if t.rewrite && (rewritten(e) || t.namedChain(e.Lhs) || t.namedChain(e.Rhs)) {
			c := t.call(e, opArith, e.Lhs, e.Rhs)
			t.sites[len(t.sites)-1].operator = e.Operator
			return c
		}
	case *ast.UnaryMinusOpExpr:
		e.Expr = t.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = t.expr(e.Expr)
		return foldNot(e)
	case *ast.UnaryLenOpExpr:
		e.Expr = t.expr(e.Expr)
		if t.rewrite {
			return t.call(e, opLen, e.Expr)
		}
	case *ast.FunctionExpr:
		t.functionExpr(e, false)
	}
	return e
}

// forBound is e, a numeric for's initial value, limit or step, as a call
// of the hidden function that converts a numeric string, as Lua 5.1 does;
// e itself when it can only be a number (a numeral, arithmetic, a length).
func (t *transformer) forBound(e ast.Expr) ast.Expr {
	e = t.expr(e)
	if !t.rewrite {
		return e
	}
	switch e := e.(type) {
	case *ast.NumberExpr, *ast.ArithmeticOpExpr, *ast.UnaryMinusOpExpr:
		return e
	case *ast.FuncCallExpr:
		if id, ok := e.Func.(*ast.IdentExpr); ok && id.Value == operatorsName {
			return e // an operation the hidden function does: %, ^, #
		}
	}
	return t.call(e, opForBound, e)
}

// chain rewrites a..b..c into (operators)(id, a, b, c), or leaves it when
// all its operands are string constants.
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
	for i, op := range operands {
		operands[i] = t.expr(op)
		_, isString := operands[i].(*ast.StringExpr)
		constant = constant && isString
	}
	if constant || !t.rewrite {
		return e
	}
	return t.call(e, opConcat, operands...)
}

// call is the call (operators)(id, operands...) that replaces e, the
// operation op on operands, numbered id among the chunk's sites.
func (t *transformer) call(e ast.Expr, op opKind, operands ...ast.Expr) ast.Expr {
	names := make(operandNames, len(operands))
	for i, operand := range operands {
		names[i] = t.describe(operand)
	}
	if last, ok := operands[len(operands)-1].(*ast.FuncCallExpr); ok {
		last.AdjustRet = true // one value, as an operand
	}
	if last, ok := operands[len(operands)-1].(*ast.Comma3Expr); ok {
		last.AdjustRet = true
	}
	// Ids start at 1: a constant 0 would make a later literal -0 of the
	// function read as 0.
	id := &ast.NumberExpr{Value: strconv.Itoa(len(t.sites) + 1)}
	t.sites = append(t.sites, site{op: op, names: names})
	t.changed = true
	fn := &ast.IdentExpr{Value: operatorsName}
	call := &ast.FuncCallExpr{Func: fn, Args: append([]ast.Expr{id}, operands...)}
	// Lua 5.1 gives an operation the line its last operand ends on.
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

// rewritten reports whether the hidden function does the arithmetic e:
// every a % b; every a ^ b whose operands are not constants that fold, for
// the sign of its nan (gopher-lua's VM computes it with Go's math.Pow,
// whose nan is positive; glibc's pow gives -nan); and an operation on
// number constants that Lua 5.1's compiler leaves to the VM (a division
// by zero, a result that is nan), whose operands are then among the
// function's constants, so that a later literal -0 is the constant 0 when
// there is one (constants equal as numbers are one), as in Lua 5.1.
func rewritten(e *ast.ArithmeticOpExpr) bool {
	switch {
	case e.Operator == "%":
		return true
	case isNumeral(e.Lhs) && isNumeral(e.Rhs):
		return !isNumeral(e)
	}
	return e.Operator == "^"
}

// isNumeral reports whether Lua 5.1's compiler makes e a number constant:
// a number literal, or arithmetic of such constants that it folds (not a
// division by zero, nor one that gives nan).
func isNumeral(e ast.Expr) bool {
	_, ok := numeral(e)
	return ok
}

// numeral is the value of e when isNumeral.
func numeral(e ast.Expr) (float64, bool) {
	switch e := e.(type) {
	case *ast.NumberExpr:
		v, ok := ParseNumber(e.Value)
		return float64(v), ok
	case *ast.UnaryMinusOpExpr:
		v, ok := numeral(e.Expr)
		return -v, ok && !math.IsNaN(v)
	case *ast.ArithmeticOpExpr:
		a, okA := numeral(e.Lhs)
		b, okB := numeral(e.Rhs)
		if !okA || !okB || (e.Operator == "/" || e.Operator == "%") && b == 0 {
			return 0, false
		}
		r := float64(arith(e.Operator, lua.LNumber(a), lua.LNumber(b)))
		return r, !math.IsNaN(r)
	}
	return 0, false
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
	case *ast.LogicalOpExpr:
		return chainName(e, t.kind)
	}
	return ""
}

// namedChain reports whether e is an and/or chain that Lua 5.1 names when
// arithmetic on it fails: gopher-lua's VM names none, so such arithmetic
// is done by the hidden function, which names it as Lua 5.1 does.
func (t *transformer) namedChain(e ast.Expr) bool {
	_, ok := e.(*ast.LogicalOpExpr)
	return ok && t.describe(e) != ""
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
