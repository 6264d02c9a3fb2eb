package lua51

import (
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// describeError is called by the error handler of pcall, xpcall and
// ProtectedCall while the frames of the failed call are still on the stack
// (level 1 is the function that raised the error). It returns the error
// value with gopher-lua's runtime messages reworded as Lua 5.1's, naming the
// variable involved where the debug information allows; other values are
// returned as they are.
func describeError(L *lua.LState, v lua.LValue) lua.LValue {
	s, ok := v.(lua.LString)
	if !ok {
		return v
	}
	msg := string(s)
	for _, r := range runtimeMessages {
		m := r.pattern.FindStringSubmatchIndex(msg)
		if m == nil {
			continue
		}
		groups := make([]string, len(m)/2)
		for i := range groups {
			if m[2*i] >= 0 {
				groups[i] = msg[m[2*i]:m[2*i+1]]
			}
		}
		site := newFaultSite(L)
		position := msg[:m[0]]
		if r.vm && site.inGo && position == gopherPosition(L) {
			// Lua 5.1's luaG_runerror gives the position of the running
			// function only when it is a Lua function.
			position = ""
		}
		return lua.LString(position + r.reword(site, groups))
	}
	return v
}

// gopherPosition is what gopher-lua's raiseError put before a message
// raised at level 1 of L's stack: the position of the first Lua function
// from there down ("chunk:line:"), or nothing when there is none, and a
// space.
func gopherPosition(L *lua.LState) string {
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return " "
		}
		if fv, err := L.GetInfo("f", dbg, lua.LNil); err == nil {
			if fn, ok := fv.(*lua.LFunction); ok && !fn.IsG {
				return L.Where(level) + " "
			}
		}
	}
}

// runtimeMessage is one of gopher-lua's runtime error messages (without
// the position before it) and how Lua 5.1 words it; vm marks the errors of
// Lua 5.1's virtual machine (luaG_runerror), which have no position when a
// Go function raised them (a sort comparing, a call from Go), unlike the
// errors of the auxiliary library (luaL_error).
type runtimeMessage struct {
	pattern *regexp.Regexp
	reword  func(site *faultSite, groups []string) string
	vm      bool
}

// gopherTypeNames matches the name of a Lua type as gopher-lua's messages show it.
const gopherTypeNames = `(nil|boolean|number|string|function|userdata|thread|table|channel)`

// runtimeMessages are gopher-lua's messages that Lua 5.1 words otherwise.
var runtimeMessages = []runtimeMessage{
	{regexp.MustCompile(`attempt to call a non-function object$`), rewordCall, true},
	{regexp.MustCompile(`(?s)attempt to index a non-table object\(` + gopherTypeNames + `\) with key '(.*)'$`), rewordIndex, true},
	{regexp.MustCompile(`cannot perform (add|sub|mul|div|mod|pow) operation between ` + gopherTypeNames + ` and ` + gopherTypeNames + `$`), rewordArith, true},
	{regexp.MustCompile(`cannot perform concat operation between ` + gopherTypeNames + ` and ` + gopherTypeNames + `$`), rewordConcat, true},
	{regexp.MustCompile(`__unm undefined$`), rewordUnary(lua.OP_UNM, "perform arithmetic on"), true},
	{regexp.MustCompile(`__len undefined$`), rewordUnary(lua.OP_LEN, "get length of"), true},
	{regexp.MustCompile(`attempt to compare ` + gopherTypeNames + ` with ` + gopherTypeNames + `$`), rewordCompare, true},
	{regexp.MustCompile(`for statement (init|limit|step) must be a number$`), rewordFor, true},
	{regexp.MustCompile(`(?s)bad argument #(\d+) to ([^'\s]\S*) \((.*)\)$`), quoteArgument, false},
}

// quoteArgument quotes the function's name in an argument error of
// gopher-lua's own library functions, as luaL_argerror does.
func quoteArgument(_ *faultSite, g []string) string {
	return "bad argument #" + g[1] + " to '" + g[2] + "' (" + g[3] + ")"
}

// rewordCall names the called value of the CALL, TAILCALL or TFORLOOP
// that failed, whose type gopher-lua's message does not give.
func rewordCall(site *faultSite, _ []string) string {
	if op, ok := site.find(func(inst uint32) (int, bool) {
		switch opcodeOf(inst) {
		case lua.OP_CALL, lua.OP_TAILCALL, lua.OP_TFORLOOP:
			return argA(inst), true
		}
		return 0, false
	}, func(v lua.LValue) bool { _, fn := v.(*lua.LFunction); return !fn }); ok {
		return operandError(op.value, "call", op.name)
	}
	return "attempt to call a non-function value"
}

// rewordIndex names the indexed value of the failed GETTABLE, SELF or
// SETTABLE; an index through __index of a value that can't be indexed has
// no name, as in Lua 5.1.
func rewordIndex(site *faultSite, g []string) string {
	typ, key := g[1], g[2]
	op, ok := site.find(func(inst uint32) (int, bool) {
		switch opcodeOf(inst) {
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
			return argB(inst), site.keyIs(argC(inst), key)
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			return argA(inst), site.keyIs(argB(inst), key)
		}
		return 0, false
	}, hasType(typ))
	if !ok {
		return "attempt to index a " + typ + " value"
	}
	return operandError(op.value, "index", op.name)
}

// arithOps maps gopher-lua's operation names to opcodes.
var arithOps = map[string]int{
	"add": lua.OP_ADD, "sub": lua.OP_SUB, "mul": lua.OP_MUL,
	"div": lua.OP_DIV, "mod": lua.OP_MOD, "pow": lua.OP_POW,
}

// rewordArith names the operand Lua 5.1 names: the first unless it is a
// number (gopher-lua's message shows a string that converts as a number).
func rewordArith(site *faultSite, g []string) string {
	opcode, types := arithOps[g[1]], g[2:4]
	if tm := site.arithMetamethod(opcode, "__"+g[1]); tm != lua.LNil {
		// gopher-lua calls only a metamethod that is a function; Lua 5.1
		// calls what it finds.
		return operandError(tm, "call", "")
	}
	side := 0
	if types[0] == "number" {
		side = 1
	}
	bad, ok := site.find(func(inst uint32) (int, bool) {
		if side == 0 {
			return argB(inst), opcodeOf(inst) == opcode
		}
		return argC(inst), opcodeOf(inst) == opcode
	}, hasType(types[side]))
	if !ok {
		return "attempt to perform arithmetic on a " + types[side] + " value"
	}
	return operandError(bad.value, "perform arithmetic on", bad.name)
}

// arithMetamethod is the metamethod event of the operands of the failed
// arithmetic instruction (opcode), as Lua 5.1's call_binTM finds it: the
// first operand's, else the second's; nil when there is none or the
// operands are not known.
func (s *faultSite) arithMetamethod(opcode int, event string) lua.LValue {
	if s.proto == nil || s.pc >= len(s.proto.Code) || opcodeOf(s.proto.Code[s.pc]) != opcode {
		return lua.LNil
	}
	inst := s.proto.Code[s.pc]
	for _, rk := range []int{argB(inst), argC(inst)} {
		if v, ok := s.value(rk); ok {
			if tm := s.L.GetMetaField(v, event); tm != lua.LNil {
				return tm
			}
		}
	}
	return lua.LNil
}

// arithOperandName describes operand B (or C, when second) of the
// arithmetic instruction that the Lua function at level 1 of L's stack is
// running, as Lua 5.1's getobjname does; "" when it has no name or the
// caller is not such an instruction (the running Go function is an
// arithmetic metamethod).
func arithOperandName(L *lua.LState, second bool) string {
	site := newFaultSite(L)
	if site.proto == nil || site.pc >= len(site.proto.Code) {
		return ""
	}
	inst := site.proto.Code[site.pc]
	switch opcodeOf(inst) {
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
		if second {
			return site.describe(site.pc, argC(inst))
		}
		return site.describe(site.pc, argB(inst))
	case lua.OP_UNM:
		return site.describe(site.pc, argB(inst))
	}
	return ""
}

// rewordConcat words a failed OP_CONCAT of a chunk gopher-lua compiled
// (this package's chunks concatenate with their own function).
func rewordConcat(_ *faultSite, g []string) string {
	bad := g[1]
	if bad == "string" || bad == "number" {
		bad = g[2]
	}
	return "attempt to concatenate a " + bad + " value"
}

// rewordUnary words the failure of the unary operation opcode on R(B);
// gopher-lua's message has no type, so without the instruction it stays.
func rewordUnary(opcode int, what string) func(*faultSite, []string) string {
	return func(site *faultSite, g []string) string {
		op, ok := site.find(func(inst uint32) (int, bool) {
			return argB(inst), opcodeOf(inst) == opcode
		}, func(v lua.LValue) bool { return !unaryOperandOK(v, opcode) })
		if !ok {
			return g[0]
		}
		return operandError(op.value, what, op.name)
	}
}

// unaryOperandOK reports whether v is a valid operand of opcode (OP_UNM or
// OP_LEN) without a metamethod.
func unaryOperandOK(v lua.LValue, opcode int) bool {
	if opcode == lua.OP_UNM {
		_, ok := toNumber(v)
		return ok
	}
	switch v.(type) {
	case lua.LString, *lua.LTable:
		return true
	}
	return false
}

// rewordCompare is luaG_ordererror's message.
func rewordCompare(_ *faultSite, g []string) string {
	if g[1] == g[2] {
		return "attempt to compare two " + g[1] + " values"
	}
	return "attempt to compare " + g[1] + " with " + g[2]
}

// rewordFor is the message of a numeric for's bad initial value, limit
// or step.
func rewordFor(_ *faultSite, g []string) string {
	what := g[1]
	if what == "init" {
		what = "initial value"
	}
	return "'for' " + what + " must be a number"
}

// hasType is a value check for site.find: the value is of type typ.
func hasType(typ string) func(lua.LValue) bool {
	return func(v lua.LValue) bool { return v.Type().String() == typ }
}

// faultSite is the Lua function that raised an error and the instruction
// it was running; find looks there for the operand that failed.
type faultSite struct {
	L     *lua.LState
	inGo  bool // level 1 is a Go function, or absent
	dbg   *lua.Debug
	proto *lua.FunctionProto
	pc    int
}

// newFaultSite is the function at level 1 of L's stack, or a site without
// a function when that is not a Lua function.
func newFaultSite(L *lua.LState) *faultSite {
	site := &faultSite{L: L, inGo: true}
	dbg, ok := L.GetStack(1)
	if !ok {
		return site
	}
	fv, err := L.GetInfo("f", dbg, lua.LNil)
	fn, isFn := fv.(*lua.LFunction)
	if err != nil || !isFn || fn.IsG {
		return site
	}
	site.inGo = false
	if pc, ok := currentPC(L, dbg, fn.Proto); ok {
		site.dbg, site.proto, site.pc = dbg, fn.Proto, pc
	}
	return site
}

// operand is a value an instruction used, and its description
// ("global 'x'", "" when it has none).
type operand struct {
	value lua.LValue
	name  string
}

// find looks at the instruction that failed: operandOf says whether it is
// one that may have raised the error and gives the register or constant
// (RK) of its operand; check says whether the operand's value may be the
// one that failed.
func (s *faultSite) find(operandOf func(inst uint32) (int, bool), check func(lua.LValue) bool) (operand, bool) {
	if s.proto == nil || s.pc >= len(s.proto.Code) {
		return operand{}, false
	}
	rk, ok := operandOf(s.proto.Code[s.pc])
	if !ok {
		return operand{}, false
	}
	v, known := s.value(rk)
	if !known || !check(v) {
		return operand{}, false
	}
	return operand{value: v, name: s.describe(s.pc, rk)}, true
}

// value is the current value of register or constant rk.
func (s *faultSite) value(rk int) (lua.LValue, bool) {
	if rk&rkBit != 0 {
		k := rk &^ rkBit
		if k < len(s.proto.Constants) {
			return s.proto.Constants[k], true
		}
		return nil, false
	}
	name, v := s.L.GetLocal(s.dbg, rk+1)
	return v, name != ""
}

// keyIs reports whether the key operand rk may be key, as gopher-lua's
// message shows it.
func (s *faultSite) keyIs(rk int, key string) bool {
	v, ok := s.value(rk)
	return !ok || v.String() == key || (v.Type() == lua.LTNumber && NumberToString(v.(lua.LNumber)) == key)
}

// describe names register or constant rk as used by the instruction at pc,
// as Lua 5.1's getobjname does: a local, or what loaded a temporary.
func (s *faultSite) describe(pc, rk int) string {
	if rk&rkBit != 0 {
		return ""
	}
	reg := rk
	p := s.proto
	if name := localName(p, reg, pc); name != "" {
		return "local '" + name + "'"
	}
	pseudo := closureOperands(p, pc)
	for i := pc - 1; i >= 0; i-- {
		inst := p.Code[i]
		if pseudo[i] || !setsRegister(inst, reg) {
			continue
		}
		switch opcodeOf(inst) {
		case lua.OP_GETGLOBAL:
			return "global '" + s.constant(argBx(inst)) + "'"
		case lua.OP_MOVE, lua.OP_MOVEN:
			if b := argB(inst); b < argA(inst) {
				if name := localName(p, b, i); name != "" {
					return "local '" + name + "'"
				}
			}
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
			return "field '" + s.keyName(argC(inst)) + "'"
		case lua.OP_GETUPVAL:
			if b := argB(inst); b < len(p.DbgUpvalues) {
				return "upvalue '" + p.DbgUpvalues[b] + "'"
			}
		case lua.OP_SELF:
			if argA(inst) == reg {
				return "method '" + s.keyName(argC(inst)) + "'"
			}
		}
		return ""
	}
	return ""
}

// localName is the name of the local in register reg at pc, "" if none
// (or one of the compiler's own, such as "(for index)"). Unlike
// LFunction.LocalName, a local is active from its StartPc, as in Lua 5.1's
// luaF_getlocalname.
func localName(p *lua.FunctionProto, reg, pc int) string {
	n := -1
	for _, l := range p.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc < l.EndPc {
			n++
			if n == reg {
				if strings.HasPrefix(l.Name, "(") {
					return ""
				}
				return l.Name
			}
		}
	}
	return ""
}

// calledFunction describes the running Go function as Lua 5.1's
// getfuncname does, from the call instruction of the Lua function at level
// 1 of L's stack: its name ("?" when it has none, or when a Go function
// called it) and whether it was called as a method (obj:name(...)).
func calledFunction(L *lua.LState) (name string, method bool) {
	site := newFaultSite(L)
	if site.proto == nil || site.pc >= len(site.proto.Code) {
		return "?", false
	}
	inst := site.proto.Code[site.pc]
	switch opcodeOf(inst) {
	case lua.OP_CALL, lua.OP_TAILCALL:
		kind, quoted, ok := strings.Cut(site.describe(site.pc, argA(inst)), " ")
		if ok {
			return strings.Trim(quoted, "'"), kind == "method"
		}
	case lua.OP_TFORLOOP:
		// Its register A is always the hidden local Lua 5.1 names so
		// (gopher-lua's compiler ends that local before the TFORLOOP).
		return "(for generator)", false
	}
	return "?", false
}

// closureOperands marks the instructions before pc that follow an
// OP_CLOSURE to say where its upvalues come from (an OP_MOVE or
// OP_GETUPVAL each, whose A is not a register they write): the VM skips
// them, and so does Lua 5.1's symbolic execution, so that the function
// called with a closure as argument is not named after the closure's first
// upvalue.
func closureOperands(p *lua.FunctionProto, pc int) map[int]bool {
	var pseudo map[int]bool
	for i := 0; i < pc; i++ {
		if opcodeOf(p.Code[i]) != lua.OP_CLOSURE {
			continue
		}
		if bx := argBx(p.Code[i]); bx < len(p.FunctionPrototypes) {
			nups := int(p.FunctionPrototypes[bx].NumUpvalues)
			for j := 1; j <= nups && i+j < pc; j++ {
				if pseudo == nil {
					pseudo = map[int]bool{}
				}
				pseudo[i+j] = true
			}
			i += nups
		}
	}
	return pseudo
}

// setsRegister reports whether inst writes register reg.
func setsRegister(inst uint32, reg int) bool {
	a := argA(inst)
	switch opcodeOf(inst) {
	case lua.OP_LOADNIL:
		return a <= reg && reg <= argB(inst)
	case lua.OP_SELF:
		return reg == a || reg == a+1
	case lua.OP_CALL:
		return reg >= a
	case lua.OP_TFORLOOP:
		return reg >= a+2
	case lua.OP_VARARG:
		return reg >= a
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_SETTABLE, lua.OP_SETTABLEKS,
		lua.OP_JMP, lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_RETURN,
		lua.OP_TAILCALL, lua.OP_SETLIST, lua.OP_CLOSE, lua.OP_NOP:
		return false
	}
	return reg == a
}

// constant is constant k as a string.
func (s *faultSite) constant(k int) string {
	if k < len(s.proto.Constants) {
		return lua.LVAsString(s.proto.Constants[k])
	}
	return "?"
}

// keyName is Lua 5.1's kname: a constant string key, else "?".
func (s *faultSite) keyName(rk int) string {
	k := rk &^ rkBit
	if rk&rkBit == 0 || k >= len(s.proto.Constants) {
		return "?"
	}
	if str, ok := s.proto.Constants[k].(lua.LString); ok {
		return string(str)
	}
	return "?"
}
