package lua51

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// These tests check what internals.go relies on in the gopher-lua that is
// built, and fail naming that file: after an upgrade of gopher-lua, each
// failure says which reliance to check again.

// internalsBroken fails t with a message that sends the reader to
// internals.go.
func internalsBroken(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Fatalf("%s: %s; check that file against the gopher-lua now built", internalsFile, fmt.Sprintf(format, args...))
}

func TestInternalsGopherLuaVersion(t *testing.T) {
	file, _ := runtime.FuncForPC(reflect.ValueOf(lua.NewState).Pointer()).FileLine(reflect.ValueOf(lua.NewState).Pointer())
	m := regexp.MustCompile(`gopher-lua@(v[^/\\]+)`).FindStringSubmatch(file)
	if m == nil {
		internalsBroken(t, "cannot tell gopher-lua's version from its source path %q", file)
	}
	if m[1] != checkedGopherLua {
		internalsBroken(t, "gopher-lua %s is built, and the file was checked against %s (then update checkedGopherLua)", m[1], checkedGopherLua)
	}
}

func TestInternalsGoFrameNames(t *testing.T) {
	// Every Go function crossesGoCall looks for is on the stack of a Go
	// function called from a coroutine, with and without a context.
	seen := map[string]bool{}
	record := func(L *lua.LState) int {
		pcs := make([]uintptr, 64)
		for _, pc := range pcs[:runtime.Callers(1, pcs)] {
			if f := runtime.FuncForPC(pc - 1); f != nil {
				seen[f.Name()] = true
			}
		}
		return 0
	}
	for _, withContext := range []bool{false, true} {
		L := lua.NewState()
		if withContext {
			L.SetContext(t.Context())
		}
		L.SetGlobal("record", L.NewFunction(record))
		if err := L.DoString(`coroutine.resume(coroutine.create(function() record() end))`); err != nil {
			t.Fatal(err)
		}
		L.Close()
	}
	for name := range goFrameNames {
		if !seen[name] {
			internalsBroken(t, "gopher-lua's Go function %s is not on the stack of a coroutine calling Go, where yield looks for it", name)
		}
	}
}

func TestInternalsInstructionLayout(t *testing.T) {
	chunk, err := parse.Parse(bytes.NewReader([]byte("local x = y; x = x + 1")), "layout")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := lua.Compile(chunk, "layout")
	if err != nil {
		t.Fatal(err)
	}
	if len(proto.Code) < 2 {
		internalsBroken(t, "compiled %d instructions for two statements", len(proto.Code))
	}
	get, add := proto.Code[0], proto.Code[1]
	if opcodeOf(get) != lua.OP_GETGLOBAL || argA(get) != 0 || argBx(get) >= len(proto.Constants) ||
		proto.Constants[argBx(get)] != lua.LString("y") {
		internalsBroken(t, "local x = y decodes as opcode %d, A %d, Bx %d, not GETGLOBAL of constant 'y' into register 0", opcodeOf(get), argA(get), argBx(get))
	}
	if opcodeOf(add) != lua.OP_ADD || argA(add) != 0 || argB(add) != 0 || argC(add)&rkBit == 0 ||
		proto.Constants[argC(add)&^rkBit] != lua.LNumber(1) {
		internalsBroken(t, "x = x + 1 decodes as opcode %d, A %d, B %d, C %d, not ADD of register 0 and constant 1", opcodeOf(add), argA(add), argB(add), argC(add))
	}
	if err := patchGlobalToUpvalue(proto, "y"); err != nil {
		internalsBroken(t, "%v", err)
	}
	L := lua.NewState()
	defer L.Close()
	fn := L.NewFunctionFromProto(proto)
	uv := &lua.Upvalue{}
	uv.SetValue(lua.LNumber(41))
	fn.Upvalues[0] = uv
	fn.Proto.Code = append(fn.Proto.Code[:len(fn.Proto.Code)-1], uint32(lua.OP_RETURN)<<26|2) // return x
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil || L.Get(-1) != lua.LNumber(42) {
		internalsBroken(t, "the chunk patched to read its upvalue returned %v (%v), not 42", L.Get(-1), err)
	}
}

func TestInternalsCurrentPC(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	var op int
	var found bool
	L.SetGlobal("probe", L.NewFunction(func(L *lua.LState) int {
		dbg, _ := L.GetStack(1)
		fn, _ := L.GetInfo("f", dbg, lua.LNil)
		p := fn.(*lua.LFunction).Proto
		var pc int
		if pc, found = currentPC(L, dbg, p); found {
			op = opcodeOf(p.Code[pc])
		}
		return 0
	}))
	if err := L.DoString("local a = 1\nlocal b = a + 2\nprobe(a, b)"); err != nil {
		t.Fatal(err)
	}
	if !found || op != lua.OP_CALL {
		internalsBroken(t, "currentPC of a Lua function calling Go found %v, opcode %d, not its CALL", found, op)
	}
}

func TestInternalsCallstackOverflowPanic(t *testing.T) {
	L := lua.NewState(lua.Options{CallStackSize: 64, MinimizeStackMemory: true})
	defer L.Close()
	err := L.DoString("local function f() return 1 + f() end f()")
	api, ok := err.(*lua.ApiError)
	if !ok || api.Object != lua.LString(callstackOverflow) {
		internalsBroken(t, "a full call stack gave %v, not the panic %q", err, callstackOverflow)
	}
}

func TestInternalsFieldsFound(t *testing.T) {
	for _, missing := range missingInternals {
		internalsBroken(t, "gopher-lua has no field %s", missing)
	}
}

func TestInternalsTableSlots(t *testing.T) {
	// A removed hash key keeps its slot, an array index within the array
	// part has one, and a key never set has none.
	tb := &lua.LTable{}
	tb.RawSetString("kept", lua.LTrue)
	tb.RawSetString("removed", lua.LTrue)
	tb.RawSetString("removed", lua.LNil)
	tb.RawSetInt(1, lua.LTrue)
	tb.RawSetInt(2, lua.LTrue)
	tb.RawSetInt(2, lua.LNil)
	for key, want := range map[lua.LValue]bool{
		lua.LString("kept"): true, lua.LString("removed"): true, lua.LNumber(1): true,
		lua.LString("never"): false, lua.LNumber(5): false, lua.LNumber(1.5): false,
	} {
		if got := tableHasSlot(tb, key); got != want {
			internalsBroken(t, "tableHasSlot(%v) is %v, want %v", key, got, want)
		}
	}
}

// recordingContext is a context whose Done, which the interpreter calls
// before each instruction, records what a frameReader reads.
type recordingContext struct {
	context.Context
	L      *lua.LState
	reader frameReader
	lines  []int
	ops    map[int]bool
	inLua  int
}

func (c *recordingContext) Done() <-chan struct{} {
	if runningLua(c.L) {
		c.inLua++
	}
	if st, ok := c.reader.read(c.L); ok {
		c.lines = append(c.lines, st.line)
		c.ops[st.op] = true
	}
	return nil
}

func TestInternalsDoneBeforeEachInstruction(t *testing.T) {
	// With a context set, Done is called before each instruction, and the
	// running frame read then gives the instruction's line and opcode.
	L := lua.NewState()
	defer L.Close()
	c := &recordingContext{Context: context.Background(), L: L, ops: map[int]bool{}}
	L.SetContext(c)
	if err := L.DoString("local a = 1\nlocal b = a + 2\nreturn b"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.lines); got != "[1 2 3]" || !c.ops[lua.OP_ADD] || !c.ops[lua.OP_RETURN] || c.inLua != 3 {
		internalsBroken(t, "Done before each instruction read lines %s, opcodes %v, %d times in Lua code; want [1 2 3] with ADD and RETURN (LOADK, ADD, RETURN), 3 times", got, c.ops, c.inLua)
	}
	// From a Go function, the running frame is not Lua's.
	L.SetGlobal("probe", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LBool(runningLua(L)))
		return 1
	}))
	if err := L.DoString("assert(probe() == false)"); err != nil {
		internalsBroken(t, "runningLua in a Go function: %v", err)
	}
}
