package lua51

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
)

// This file is the one place that relies on how gopher-lua works inside,
// beyond its documented API. Everything else in the package uses its
// exported functions, types and fields only. What is relied on here:
//
//   - the layout of a compiled instruction (opcode in the top 6 bits, then
//     A, C and B), to read the instruction that failed and to patch the
//     first instruction of a chunk;
//   - the names of the interpreter's Go functions (mainLoop,
//     mainLoopWithContext, threadRun) on the Go call stack, and how
//     GetInfo names a frame, to tell whether a yield would unwind a Go call;
//   - GetInfo's ">l" option reading the line of the frame's instruction
//     from the function it is given, to find which instruction a frame runs;
//   - the text of the Go panic of a full call stack;
//   - the interpreter calling ctx.Done() before each instruction once a
//     context is set (SetContext), which lets a context count instructions;
//   - the fields of the running call frame, read (never written) through
//     reflect, for debug.sethook's call and line events;
//   - a table's array part and its index of keys (which keeps a key whose
//     value was removed), read through reflect, for next's "invalid key",
//     and the array part's length, to check the memory budget before a
//     store that makes gopher-lua fill the array up to its key;
//   - a state's data stack's top and largest size, read through reflect,
//     so that unpack and string.byte refuse what would overflow it.
//
// checkedGopherLua is the version all of it was checked against;
// internals_test.go fails, naming this file, when another version is
// built or when something looked up here is not found.
const checkedGopherLua = "v1.1.2"

// internalsFile names this file in the errors of what it looks up.
const internalsFile = "lua51/internals.go"

// Instructions: the opcode in the top 6 bits, then A in 8, C in 9 and B in
// the low 9 (Bx is C and B together); an RK operand with rkBit set is a
// constant.

func opcodeOf(inst uint32) int { return int(inst >> 26) }
func argA(inst uint32) int     { return int(inst>>18) & 0xff }
func argB(inst uint32) int     { return int(inst & 0x1ff) }
func argC(inst uint32) int     { return int(inst>>9) & 0x1ff }
func argBx(inst uint32) int    { return int(inst & 0x3ffff) }

// rkBit marks a constant in an RK operand.
const rkBit = 1 << 8

// patchGlobalToUpvalue makes the first instruction of a main chunk, which
// reads the global name into register 0, read the chunk's first upvalue
// instead, and gives the chunk that one upvalue. A hidden local of the
// chunk is initialised so, from a value the loader provides, without
// touching the globals.
func patchGlobalToUpvalue(proto *lua.FunctionProto, name string) error {
	if len(proto.Code) == 0 {
		return fmt.Errorf("internal error: empty chunk")
	}
	inst := proto.Code[0]
	bx := argBx(inst)
	if opcodeOf(inst) != lua.OP_GETGLOBAL || argA(inst) != 0 || bx >= len(proto.Constants) ||
		proto.Constants[bx] != lua.LString(name) {
		return fmt.Errorf("internal error: unexpected start of the compiled chunk (see %s)", internalsFile)
	}
	proto.Code[0] = uint32(lua.OP_GETUPVAL) << 26 // A = 0, B = 0
	proto.NumUpvalues = 1
	proto.DbgUpvalues = []string{name}
	return nil
}

// callstackOverflow is the Go panic of gopher-lua's growing call stack
// when it is full (MinimizeStackMemory), in place of its Lua error.
const callstackOverflow = "lua callstack overflow"

// currentPC is the index of the instruction the frame dbg of a function
// with prototype p is running. GetInfo's "l" reads the line of that
// instruction from the prototype of the function it is given (">l"): given
// a stand-in whose "lines" are the instructions' indices plus one, it
// tells the index.
func currentPC(L *lua.LState, dbg *lua.Debug, p *lua.FunctionProto) (int, bool) {
	standIn := &lua.LFunction{Proto: &lua.FunctionProto{DbgSourcePositions: pcIndex(len(p.Code))}}
	probe := *dbg
	probe.CurrentLine = 0
	if _, err := L.GetInfo(">l", &probe, standIn); err != nil || probe.CurrentLine <= 0 {
		return 0, false
	}
	return probe.CurrentLine - 1, true
}

// pcIndices holds 1, 2, 3, ...: the stand-in lines of currentPC, shared
// and never written once published.
var pcIndices atomic.Pointer[[]int]

// pcIndex returns pcIndices with at least n entries.
func pcIndex(n int) []int {
	if p := pcIndices.Load(); p != nil && len(*p) >= n {
		return *p
	}
	index := make([]int, max(n, 1024))
	for i := range index {
		index[i] = i + 1
	}
	pcIndices.Store(&index)
	return index
}

// maxInlineCheck bounds the Lua frames calledInline inspects.
const maxInlineCheck = 8

// calledInline reports, cheaply, that every frame of L above its bottom one
// was called by a call instruction of the Lua function below it, so that one
// interpreter loop runs them all and a yield crosses no Go call. gopher-lua
// names a frame after the call instruction that called it; a frame called
// otherwise (by a metamethod, a generic for, a Go function) gets a name in
// angle brackets, or "(anonymous)" for a Go function, as does a Lua
// function called from an expression with no name, or by a tail call.
// Then, or for deep stacks, it reports false, and crossesGoCall decides.
func calledInline(L *lua.LState) bool {
	for level := 0; level <= maxInlineCheck; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return false
		}
		if _, err := L.GetInfo("nS", dbg, lua.LNil); err != nil {
			return false
		}
		if dbg.What == "main" {
			return true // the coroutine's body, run by threadRun's loop
		}
		if dbg.Name == "(anonymous)" || strings.HasPrefix(dbg.Name, "<") {
			return false
		}
	}
	return false
}

// goStackDepth bounds the Go frames crossesGoCall inspects (each costs
// about 100 ns): between coroutine.yield and the threadRun of its coroutine
// there are four (callGFunction, the instruction's function, mainLoop,
// threadRun), or three when the coroutine's body is yield itself; one more
// is allowed.
const goStackDepth = 5

// maxGoStackDepth bounds the depth crossesGoCallAbove may be asked for.
const maxGoStackDepth = 16

// luaPkgPath prefixes the names of gopher-lua's functions on the Go call
// stack.
var luaPkgPath = reflect.TypeFor[lua.LState]().PkgPath() + "."

// Kinds of Go frames, as crossesGoCall sees them.
const (
	otherFrame  = iota + 1
	loopFrame   // gopher-lua's interpreter loop (mainLoop, mainLoopWithContext)
	resumeFrame // gopher-lua's threadRun, which resumes a coroutine
)

// goFrameNames are the functions of gopher-lua crossesGoCall looks for, by
// kind.
var goFrameNames = map[string]int{
	luaPkgPath + "mainLoop":            loopFrame,
	luaPkgPath + "mainLoopWithContext": loopFrame,
	luaPkgPath + "threadRun":           resumeFrame,
}

// frameKinds caches the kind of the function of each return address seen
// (a program has few call sites on these paths): naming a frame costs more
// than a yield.
var frameKinds sync.Map // uintptr -> int

// frameKind is the kind of the function a return address is in.
func frameKind(pc uintptr) int {
	if k, ok := frameKinds.Load(pc); ok {
		return k.(int)
	}
	k := otherFrame
	if f := runtime.FuncForPC(pc - 1); f != nil {
		if named, ok := goFrameNames[f.Name()]; ok {
			k = named
		}
	}
	frameKinds.Store(pc, k)
	return k
}

// crossesGoCall reports whether a yield from the calling coroutine would
// unwind a Go call: gopher-lua runs a coroutine in one interpreter loop
// (threadRun calls mainLoop), and each call through Go (a metamethod, a Go
// function calling Lua, the iterator of a generic for) runs a nested loop,
// which a yield would leave behind and corrupt. Its caller is the Go
// function coroutine.yield.
func crossesGoCall() bool { return crossesGoCallAbove(4, goStackDepth) }

// crossesGoCallAbove is crossesGoCall for a caller skip frames above
// runtime.Callers (which counts as one), looking at most depth frames
// above those: a Go function Lua called that asks through helpers of its
// own. Beyond depth it answers true, which refuses a yield that may well
// have been safe, never the reverse.
func crossesGoCallAbove(skip, depth int) bool {
	var buf [maxGoStackDepth]uintptr
	pcs := buf[:min(depth, maxGoStackDepth)]
	loops := 0
	for _, pc := range pcs[:runtime.Callers(skip, pcs)] {
		switch frameKind(pc) {
		case loopFrame:
			loops++
		case resumeFrame:
			return loops != 1
		}
	}
	return true
}

// missingInternals lists what this file looks up and did not find; the
// tests fail on any. A reader whose lookup failed answers as if it could
// not tell (tableHasSlot: true).
var missingInternals []string

// unexportedField is the index of the field name of the struct type T, of
// kind kind; ok is false (and the field listed in missingInternals) when
// T has no such field.
func unexportedField[T any](name string, kind reflect.Kind) (index int, ok bool) {
	typ := reflect.TypeFor[T]()
	if f, found := typ.FieldByName(name); found && f.Type.Kind() == kind && len(f.Index) == 1 {
		return f.Index[0], true
	}
	missingInternals = append(missingInternals, fmt.Sprintf("%s.%s (a %s)", typ, name, kind))
	return 0, false
}

// The fields of a table that tableHasSlot reads: its array part and the
// index of its hash keys.
var (
	tableArray, tableArrayOK = unexportedField[lua.LTable]("array", reflect.Slice)
	tableKeys, tableKeysOK   = unexportedField[lua.LTable]("k2i", reflect.Map)
)

// tableArrayLen is the length of t's array part; 0 when it can't be read,
// which makes a caller that sizes the array's growth by it assume the
// most.
func tableArrayLen(t *lua.LTable) int {
	if !tableArrayOK {
		return 0
	}
	return reflect.ValueOf(t).Elem().Field(tableArray).Len()
}

// tableHasSlot reports whether key has a place in t that Lua 5.1's next
// accepts: an index of t's array part, or a key of its hash part, even one
// whose value was removed (gopher-lua keeps such keys in its index, so that
// a traversal that clears the fields it visits goes on).
func tableHasSlot(t *lua.LTable, key lua.LValue) bool {
	if !tableArrayOK || !tableKeysOK {
		return true
	}
	v := reflect.ValueOf(t).Elem()
	if n, ok := key.(lua.LNumber); ok && n >= 1 && n == lua.LNumber(int(n)) && int(n) <= v.Field(tableArray).Len() {
		return true
	}
	keys := v.Field(tableKeys)
	return !keys.IsNil() && keys.MapIndex(reflect.ValueOf(&key).Elem()).IsValid()
}

// The VM and contexts: once a state has a context (SetContext), gopher-lua
// runs it with mainLoopWithContext, which calls ctx.Done() before each
// instruction of a Lua function and raises ctx.Err() when the channel it
// returns is closed. A context whose Done counts its calls (monitor.go)
// thus counts the instructions a thread runs, and can stop or hook it
// between two of them. Done is also called by Go code that derives a
// context (context.WithCancel) or waits on it; those calls come while the
// running frame is a Go function, which runningLua tells apart.

// The fields of a running call frame that runningFrame reads: the state's
// current frame, its function and the index of its next instruction.
var (
	stateFrame, stateFrameOK = unexportedField[lua.LState]("currentFrame", reflect.Pointer)
	frameType                = reflect.TypeFor[lua.LState]().Field(stateFrame).Type.Elem()
	frameFn, frameFnOK       = fieldOf(frameType, "Fn", reflect.Pointer)
	framePc, framePcOK       = fieldOf(frameType, "Pc", reflect.Int)
	framesOK                 = stateFrameOK && frameFnOK && framePcOK
)

// fieldOf is unexportedField for a type known only by reflect.
func fieldOf(typ reflect.Type, name string, kind reflect.Kind) (int, bool) {
	if typ.Kind() == reflect.Struct {
		if f, found := typ.FieldByName(name); found && f.Type.Kind() == kind && len(f.Index) == 1 {
			return f.Index[0], true
		}
	}
	missingInternals = append(missingInternals, fmt.Sprintf("%s.%s (a %s)", typ, name, kind))
	return 0, false
}

// frameState is what a frameReader tells of the frame a state runs.
type frameState struct {
	frame uintptr // the call frame, reused by the next call at its depth
	proto *lua.FunctionProto
	pc    int // the index of the instruction about to run
	op    int // its opcode
	line  int // its line
}

// frameReader reads the frame a state runs; it keeps the last function it
// found, by address (which the reference it keeps stops being reused).
type frameReader struct {
	addr uintptr
	fn   *lua.LFunction
}

// read describes the Lua function L is running, between two instructions
// (mainLoopWithContext has already moved the frame's Pc past the
// instruction it is about to run); ok is false when the running frame is a
// Go function or there is none.
func (r *frameReader) read(L *lua.LState) (frameState, bool) {
	if !framesOK {
		return frameState{}, false
	}
	cf := reflect.ValueOf(L).Elem().Field(stateFrame)
	if cf.IsNil() {
		return frameState{}, false
	}
	fnv := cf.Elem().Field(frameFn)
	if fnv.IsNil() || fnv.Pointer() != r.addr {
		// The value read through reflect can't be used as a function:
		// the public API gives the same function.
		dbg, ok := L.GetStack(0)
		if !ok {
			return frameState{}, false
		}
		f, _ := L.GetInfo("f", dbg, lua.LNil)
		fn, isFn := f.(*lua.LFunction)
		if !isFn || fnv.IsNil() || fnv.Pointer() != reflect.ValueOf(fn).Pointer() {
			return frameState{}, false
		}
		r.addr, r.fn = fnv.Pointer(), fn
	}
	if r.fn.IsG {
		return frameState{}, false
	}
	p := r.fn.Proto
	pc := int(cf.Elem().Field(framePc).Int()) - 1
	if pc < 0 || pc >= len(p.Code) {
		return frameState{}, false
	}
	st := frameState{frame: cf.Pointer(), proto: p, pc: pc, op: opcodeOf(p.Code[pc])}
	if pc < len(p.DbgSourcePositions) {
		st.line = p.DbgSourcePositions[pc]
	}
	return st, true
}

// runningLua reports whether the frame L runs is a Lua function's: a call
// of a context's Done by the VM, not by Go code.
func runningLua(L *lua.LState) bool {
	if !framesOK {
		return true
	}
	cf := reflect.ValueOf(L).Elem().Field(stateFrame)
	if cf.IsNil() {
		return false
	}
	fnv := cf.Elem().Field(frameFn)
	return !fnv.IsNil() && !fnv.Elem().Field(lfunctionIsG).Bool()
}

// lfunctionIsG is the index of LFunction.IsG.
var lfunctionIsG, _ = fieldOf(reflect.TypeFor[lua.LFunction](), "IsG", reflect.Bool)

// The fields of a state's data stack that stackRoom reads: the state's
// registry, its top and the size it may grow to.
var (
	stateReg, stateRegOK = unexportedField[lua.LState]("reg", reflect.Pointer)
	regType              = reflect.TypeFor[lua.LState]().Field(stateReg).Type.Elem()
	regTop, regTopOK     = fieldOf(regType, "top", reflect.Int)
	regMax, regMaxOK     = fieldOf(regType, "maxSize", reflect.Int)
)

// stackRoom is how many more values L's data stack can take before
// gopher-lua raises "registry overflow": inside a Go function that pushes
// them, that error leaves the stack full, and the protected call that
// catches it then fails to push it and panics out of the interpreter. It
// is the most an int holds when the stack can't be read.
func stackRoom(L *lua.LState) int {
	if !stateRegOK || !regTopOK || !regMaxOK {
		return math.MaxInt
	}
	reg := reflect.ValueOf(L).Elem().Field(stateReg).Elem()
	return int(reg.Field(regMax).Int() - reg.Field(regTop).Int())
}
