package luaapi

import (
	"errors"
	"fmt"

	"github.com/residentlua/residentlua/devices/failure"
	lua "github.com/yuin/gopher-lua"
)

// errorTypeName is the __name of the error values' metatable.
const errorTypeName = "resident.error"

// newErrorMeta makes the metatable of protocol error values: tables with
// kind, op and message whose tostring is "<kind>: <op>: <message>", or
// "<kind>: <message>" when op is empty, as failure.Error's text is.
func newErrorMeta(L *lua.LState) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString("__name", lua.LString(errorTypeName))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			L.Push(lua.LString(L.Get(1).String()))
			return 1
		}
		text := lua.LVAsString(t.RawGetString("kind")) + ": "
		if op := lua.LVAsString(t.RawGetString("op")); op != "" {
			text += op + ": "
		}
		L.Push(lua.LString(text + lua.LVAsString(t.RawGetString("message"))))
		return 1
	}))
	return mt
}

// errorValue turns e into the Lua value raised for it.
func (m *Module) errorValue(L *lua.LState, e *failure.Error) *lua.LTable {
	t := L.CreateTable(0, 3)
	t.RawSetString("kind", lua.LString(e.Kind.String()))
	t.RawSetString("op", lua.LString(e.Op))
	t.RawSetString("message", lua.LString(e.Message))
	L.SetMetatable(t, m.errorMeta)
	return t
}

// ErrorOf returns the protocol error that a Lua error value stands for: lv
// may be the value itself (a table with kind, op and message, as pcall returns
// it) or the *lua.ApiError that L.DoString or L.PCall returned. ok is false
// for anything else.
func ErrorOf(v any) (e *failure.Error, ok bool) {
	if api, isAPI := v.(*lua.ApiError); isAPI {
		v = api.Object
	}
	t, isTable := v.(*lua.LTable)
	if !isTable {
		return nil, false
	}
	mt, _ := t.Metatable.(*lua.LTable)
	if mt == nil || mt.RawGetString("__name") != lua.LString(errorTypeName) {
		return nil, false
	}
	k, known := failure.ParseKind(lua.LVAsString(t.RawGetString("kind")))
	if !known {
		return nil, false
	}
	return &failure.Error{Kind: k, Op: lua.LVAsString(t.RawGetString("op")), Message: lua.LVAsString(t.RawGetString("message"))}, true
}

// ErrorString renders a Lua error value as a person reads it: a protocol
// error as "<kind>: <op>: <message>" (or "<kind>: <message>" when its op
// is empty), a string as itself, anything else with
// tostring. v may be an LValue or the *lua.ApiError of a failed call (then
// the stack trace is left out).
func ErrorString(v any) string {
	if api, ok := v.(*lua.ApiError); ok {
		v = api.Object
	}
	if e, ok := ErrorOf(v); ok {
		return e.Error()
	}
	if lv, ok := v.(lua.LValue); ok {
		return lv.String()
	}
	if err, ok := v.(error); ok {
		return err.Error()
	}
	return fmt.Sprint(v)
}

// raise raises err in L: a protocol error as an error value, anything else as
// a string.
func (m *Module) raise(L *lua.LState, err error) {
	var e *failure.Error
	if errors.As(err, &e) {
		L.Error(m.errorValue(L, e), 1)
		return
	}
	raiseString(L, "%s", err.Error())
}

// invalid raises an invalid error value for op.
func (m *Module) invalid(L *lua.LState, op, format string, args ...any) {
	m.raise(L, failure.Errorf(failure.Invalid, op, format, args...))
}

// argError raises "bad argument #n to 'name' (msg)", as Lua's auxiliary
// library does.
func argError(L *lua.LState, n int, name, msg string) {
	raiseString(L, "bad argument #%d to '%s' (%s)", n, name, msg)
}

// raiseString raises a string error as Lua 5.1's luaL_error does: the
// position of the nearest Lua code that called, "chunk:line: ", then the
// message. gopher-lua's RaiseError puts a space before the message even
// where there is no position (a module function called by pcall itself).
func raiseString(L *lua.LState, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for level := 0; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What != "G" && dbg.CurrentLine >= 0 {
			msg = fmt.Sprintf("%s:%d: %s", dbg.Source, dbg.CurrentLine, msg)
			break
		}
	}
	L.Error(lua.LString(msg), 0)
}

// typeName names the type of argument n, "no value" when it is absent.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return valueTypeName(L.Get(n))
}

func valueTypeName(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		if _, ok := ud.Value.(*session); ok {
			return "session"
		}
	}
	return v.Type().String()
}

// typeError raises "bad argument #n to 'name' (want expected, got type)".
func typeError(L *lua.LState, n int, name, want string) {
	argError(L, n, name, want+" expected, got "+typeName(L, n))
}

// internalError marks a Go panic turned into a Lua error; tests look for it.
const internalError = "resident: internal error"

// guard wraps a module function so that no Go panic escapes it: gopher-lua's
// own errors pass through, anything else becomes a Lua error.
func guard(name string, fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(*lua.ApiError); ok {
					panic(r)
				}
				raiseString(L, "%s in '%s': %v (please report this)", internalError, name, r)
			}
		}()
		return fn(L)
	}
}
