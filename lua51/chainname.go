package lua51

import "github.com/yuin/gopher-lua/ast"

// Lua 5.1 names the operand of a failed operation by symbolic execution of
// its bytecode (ldebug.c's symbexec): it walks the function up to the
// failed instruction, taking every forward jump that does not pass it, and
// names the operand after the last instruction on that walk that wrote the
// operand's register. For an and/or chain, such as (t.s and "k" or g) ^ 2,
// which instruction that is depends on how lcode.c laid out the chain's
// jumps: here the walk jumps from the test of t.s to the load of g, so the
// message names global 'g' whatever value failed, while (t.s and g) ^ 2
// names nothing, as the walk ends at a TEST, which Lua 5.1's opcode table
// counts as writing its register. chainName replays lcode.c's code
// generation of the chain, reduced to what the walk sees, and walks it.

// noReg is lcode.c's NO_REG and NO_JUMP: no register, no jump.
const noReg = -1

// localReg is the register of every local of the replayed code: locals
// are below the temporaries, which start at 0.
const localReg = -2

// insn51 kinds: what an instruction of the replayed code does.
const (
	i51Write    = iota // writes register a; name is what getobjname says of it
	i51Not             // NOT a b: writes a
	i51Call            // CALL a: writes every register from a on
	i51Test            // TEST a: writes a (Lua 5.1's opcode table says so)
	i51TestSet         // TESTSET a b
	i51Compare         // EQ, LT, LE: write nothing
	i51Jump            // JMP to jump
	i51LoadBool        // LOADBOOL a
)

// insn51 is one instruction of the replayed code.
type insn51 struct {
	op   int
	a, b int
	jump int    // a JMP's target, noReg while it has none
	name string // for i51Write: "global 'x'", "field 'k'", ... or ""
}

// Expression kinds of lcode.c's expdesc.
const (
	e51Void = iota
	e51Nil
	e51True
	e51False
	e51K // a string or number constant
	e51Local
	e51Load // a global, upvalue or field, not yet loaded
	e51Jump
	e51Relocable
	e51NonReloc
)

// exp51 is lcode.c's expdesc, reduced.
type exp51 struct {
	k    int
	info int // register (e51NonReloc) or pc (e51Relocable, e51Jump)
	t, f int // jump lists: exit when true, when false
	name string
	regs []int // registers a pending load uses (freed as it loads)
}

// fs51 is lcode.c's FuncState, reduced.
type fs51 struct {
	code    []insn51
	freereg int
	jpc     int
}

// chainName is what Lua 5.1 calls the value of e, an and/or chain, when
// an operation on it fails ("global 'g'", or "" for no name). kind says
// whether a name is a local, an upvalue or a global there.
func chainName(e ast.Expr, kind func(string) string) string {
	fs := &fs51{jpc: noReg}
	v := fs.expr(e, kind)
	reg := fs.exp2anyreg(&v)
	fs.code51(insn51{op: i51Compare}) // the failed operation, where pending jumps land
	return fs.symbexec(len(fs.code)-1, reg)
}

// symbexec is ldebug.c's symbexec and getobjname for register reg at
// lastpc.
func (fs *fs51) symbexec(lastpc, reg int) string {
	last := noReg
	for pc := 0; pc < lastpc; pc++ {
		i := fs.code[pc]
		switch i.op {
		case i51Call:
			if reg >= i.a {
				last = pc
			}
		case i51Jump:
			if dest := i.jump; pc < dest && dest <= lastpc {
				pc = dest - 1
			}
		case i51Compare:
		default:
			if i.a == reg {
				last = pc
			}
		}
	}
	if last == noReg || fs.code[last].op != i51Write {
		return ""
	}
	return fs.code[last].name
}

// expr replays the code of e, as lparser.c's subexpr and lcode.c do.
func (fs *fs51) expr(e ast.Expr, kind func(string) string) exp51 {
	v := exp51{t: noReg, f: noReg}
	switch e := e.(type) {
	case *ast.NilExpr:
		v.k = e51Nil
	case *ast.TrueExpr:
		v.k = e51True
	case *ast.FalseExpr:
		v.k = e51False
	case *ast.NumberExpr, *ast.StringExpr:
		v.k = e51K
	case *ast.IdentExpr:
		switch k := kind(e.Value); k {
		case "local":
			v.k, v.info, v.name = e51Local, localReg, "local '"+e.Value+"'"
		default:
			v.k, v.name = e51Load, k+" '"+e.Value+"'"
		}
	case *ast.AttrGetExpr:
		obj := fs.expr(e.Object, kind)
		v.regs = append(v.regs, fs.exp2anyreg(&obj))
		key := fs.expr(e.Key, kind)
		if r := fs.exp2RK(&key); r >= 0 {
			v.regs = append(v.regs, r)
		}
		v.k, v.name = e51Load, "field '?'"
		if k, ok := e.Key.(*ast.StringExpr); ok {
			v.name = "field '" + k.Value + "'"
		}
	case *ast.FuncCallExpr:
		base := fs.freereg
		fs.freereg++
		v.k, v.info = e51NonReloc, base
		fs.code51(insn51{op: i51Call, a: base})
	case *ast.LogicalOpExpr:
		v = fs.expr(e.Lhs, kind)
		if e.Operator == "and" {
			fs.goIfTrue(&v)
		} else {
			fs.goIfFalse(&v)
		}
		r := fs.expr(e.Rhs, kind)
		fs.dischargeVars(&r)
		if e.Operator == "and" {
			fs.concat(&r.f, v.f)
		} else {
			fs.concat(&r.t, v.t)
		}
		v = r
	case *ast.RelationalOpExpr:
		l := fs.expr(e.Lhs, kind)
		if !isNumeral(e.Lhs) {
			fs.exp2RK(&l)
		}
		r := fs.expr(e.Rhs, kind)
		fs.exp2RK(&r)
		fs.freeExp(&r)
		fs.freeExp(&l)
		v.k, v.info = e51Jump, fs.condJump(insn51{op: i51Compare})
	case *ast.UnaryNotOpExpr:
		v = fs.expr(e.Expr, kind)
		fs.not(&v)
	default:
		if isNumeral(e) {
			v.k = e51K
			break
		}
		// Arithmetic, .., #, a constructor, a function, ...: an
		// instruction that writes its register, and whose operands' code
		// the walk passes through without their writes mattering.
		v.k, v.info = e51Relocable, fs.code51(insn51{op: i51Write})
	}
	return v
}

// code51 is luaK_code.
func (fs *fs51) code51(i insn51) int {
	fs.patchListAux(fs.jpc, len(fs.code), noReg, len(fs.code))
	fs.jpc = noReg
	fs.code = append(fs.code, i)
	return len(fs.code) - 1
}

// jump is luaK_jump.
func (fs *fs51) jump() int {
	jpc := fs.jpc
	fs.jpc = noReg
	j := fs.code51(insn51{op: i51Jump, jump: noReg})
	fs.concat(&j, jpc)
	return j
}

// condJump is lcode.c's condjump.
func (fs *fs51) condJump(i insn51) int {
	fs.code51(i)
	return fs.jump()
}

// concat is luaK_concat.
func (fs *fs51) concat(l1 *int, l2 int) {
	if l2 == noReg {
		return
	}
	if *l1 == noReg {
		*l1 = l2
		return
	}
	list := *l1
	for fs.code[list].jump != noReg {
		list = fs.code[list].jump
	}
	fs.code[list].jump = l2
}

// control is lcode.c's getjumpcontrol.
func (fs *fs51) control(pc int) *insn51 {
	if pc >= 1 {
		switch fs.code[pc-1].op {
		case i51Test, i51TestSet, i51Compare:
			return &fs.code[pc-1]
		}
	}
	return &fs.code[pc]
}

// needValue is lcode.c's need_value.
func (fs *fs51) needValue(list int) bool {
	for ; list != noReg; list = fs.code[list].jump {
		if fs.control(list).op != i51TestSet {
			return true
		}
	}
	return false
}

// patchTestReg is lcode.c's patchtestreg.
func (fs *fs51) patchTestReg(node, reg int) bool {
	i := fs.control(node)
	if i.op != i51TestSet {
		return false
	}
	if reg != noReg && reg != i.b {
		i.a = reg
	} else {
		i.op, i.a = i51Test, i.b
	}
	return true
}

// patchListAux is lcode.c's patchlistaux.
func (fs *fs51) patchListAux(list, vtarget, reg, dtarget int) {
	for list != noReg {
		next := fs.code[list].jump
		if fs.patchTestReg(list, reg) {
			fs.code[list].jump = vtarget
		} else {
			fs.code[list].jump = dtarget
		}
		list = next
	}
}

// removeValues is lcode.c's removevalues.
func (fs *fs51) removeValues(list int) {
	for ; list != noReg; list = fs.code[list].jump {
		fs.patchTestReg(list, noReg)
	}
}

// patchToHere is luaK_patchtohere.
func (fs *fs51) patchToHere(list int) { fs.concat(&fs.jpc, list) }

// freeReg is lcode.c's freereg.
func (fs *fs51) freeReg(reg int) {
	if reg >= 0 {
		fs.freereg--
	}
}

// freeExp is lcode.c's freeexp.
func (fs *fs51) freeExp(e *exp51) {
	if e.k == e51NonReloc {
		fs.freeReg(e.info)
	}
}

// dischargeVars is luaK_dischargevars.
func (fs *fs51) dischargeVars(e *exp51) {
	switch e.k {
	case e51Local:
		e.k = e51NonReloc
	case e51Load:
		for i := len(e.regs) - 1; i >= 0; i-- {
			fs.freeReg(e.regs[i])
		}
		e.regs = nil
		e.k, e.info = e51Relocable, fs.code51(insn51{op: i51Write, name: e.name})
	}
}

// discharge2reg is lcode.c's discharge2reg.
func (fs *fs51) discharge2reg(e *exp51, reg int) {
	fs.dischargeVars(e)
	switch e.k {
	case e51Nil, e51True, e51False, e51K:
		fs.code51(insn51{op: i51Write, a: reg})
	case e51Relocable:
		fs.code[e.info].a = reg
	case e51NonReloc:
		if reg != e.info {
			name := ""
			if e.info == localReg {
				name = e.name
			}
			fs.code51(insn51{op: i51Write, a: reg, name: name})
		}
	default:
		return
	}
	e.info, e.k = reg, e51NonReloc
}

// discharge2anyreg is lcode.c's discharge2anyreg.
func (fs *fs51) discharge2anyreg(e *exp51) {
	if e.k != e51NonReloc {
		fs.freereg++
		fs.discharge2reg(e, fs.freereg-1)
	}
}

// exp2reg is lcode.c's exp2reg.
func (fs *fs51) exp2reg(e *exp51, reg int) {
	fs.discharge2reg(e, reg)
	if e.k == e51Jump {
		fs.concat(&e.t, e.info)
	}
	if e.t != e.f {
		pf, pt := noReg, noReg
		if fs.needValue(e.t) || fs.needValue(e.f) {
			fj := noReg
			if e.k != e51Jump {
				fj = fs.jump()
			}
			pf = fs.code51(insn51{op: i51LoadBool, a: reg})
			pt = fs.code51(insn51{op: i51LoadBool, a: reg})
			fs.patchToHere(fj)
		}
		final := len(fs.code)
		fs.patchListAux(e.f, final, reg, pf)
		fs.patchListAux(e.t, final, reg, pt)
	}
	e.t, e.f = noReg, noReg
	e.info, e.k = reg, e51NonReloc
}

// exp2nextreg is luaK_exp2nextreg.
func (fs *fs51) exp2nextreg(e *exp51) {
	fs.dischargeVars(e)
	fs.freeExp(e)
	fs.freereg++
	fs.exp2reg(e, fs.freereg-1)
}

// exp2anyreg is luaK_exp2anyreg.
func (fs *fs51) exp2anyreg(e *exp51) int {
	fs.dischargeVars(e)
	if e.k == e51NonReloc {
		if e.t == e.f {
			return e.info
		}
		if e.info >= 0 {
			fs.exp2reg(e, e.info)
			return e.info
		}
	}
	fs.exp2nextreg(e)
	return e.info
}

// exp2RK is luaK_exp2RK: the register of e, or noReg for a constant.
func (fs *fs51) exp2RK(e *exp51) int {
	if e.t != e.f {
		fs.exp2anyreg(e)
	} else {
		fs.dischargeVars(e)
	}
	switch e.k {
	case e51Nil, e51True, e51False, e51K:
		return noReg
	}
	return fs.exp2anyreg(e)
}

// jumpOnCond is lcode.c's jumponcond.
func (fs *fs51) jumpOnCond(e *exp51) int {
	if e.k == e51Relocable && fs.code[e.info].op == i51Not {
		b := fs.code[e.info].b
		fs.code = fs.code[:len(fs.code)-1]
		return fs.condJump(insn51{op: i51Test, a: b})
	}
	fs.discharge2anyreg(e)
	fs.freeExp(e)
	return fs.condJump(insn51{op: i51TestSet, a: noReg, b: e.info})
}

// goIfTrue is luaK_goiftrue.
func (fs *fs51) goIfTrue(e *exp51) {
	fs.dischargeVars(e)
	pc := noReg
	switch e.k {
	case e51K, e51True:
	case e51False:
		pc = fs.jump()
	case e51Jump:
		pc = e.info
	default:
		pc = fs.jumpOnCond(e)
	}
	fs.concat(&e.f, pc)
	fs.patchToHere(e.t)
	e.t = noReg
}

// goIfFalse is lcode.c's luaK_goiffalse.
func (fs *fs51) goIfFalse(e *exp51) {
	fs.dischargeVars(e)
	pc := noReg
	switch e.k {
	case e51Nil, e51False:
	case e51True:
		pc = fs.jump()
	case e51Jump:
		pc = e.info
	default:
		pc = fs.jumpOnCond(e)
	}
	fs.concat(&e.t, pc)
	fs.patchToHere(e.f)
	e.f = noReg
}

// not is lcode.c's codenot.
func (fs *fs51) not(e *exp51) {
	fs.dischargeVars(e)
	switch e.k {
	case e51Nil, e51False:
		e.k = e51True
	case e51K, e51True:
		e.k = e51False
	case e51Jump:
	case e51Relocable, e51NonReloc:
		fs.discharge2anyreg(e)
		fs.freeExp(e)
		e.info, e.k = fs.code51(insn51{op: i51Not, b: e.info}), e51Relocable
	}
	e.t, e.f = e.f, e.t
	fs.removeValues(e.f)
	fs.removeValues(e.t)
}
