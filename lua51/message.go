package lua51

import (
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// Message is the message of the error value v as lua.c's message handler
// words it: a string as it is, a number as NumberToString, a value with
// __tostring through it (called protected), anything else by its type. A
// __tostring that raises an error, or returns neither a string nor a
// number, gives a message that says so rather than an empty one.
func Message(L *lua.LState, v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return NumberToString(v)
	}
	if L.GetMetaField(v, "__tostring") == lua.LNil {
		return fmt.Sprintf("(error object is a %s value)", v.Type())
	}
	var s lua.LValue = lua.LNil
	L.Push(L.NewFunction(func(L *lua.LState) int {
		s = toStringValue(L, L.Get(1))
		return 0
	}))
	L.Push(v)
	if err := PCall(L, 1, 0); err != nil {
		why := err.Error()
		var api *lua.ApiError
		if errors.As(err, &api) {
			why = plainMessage(api.Object)
		}
		return fmt.Sprintf("(error object is a %s value whose __tostring raised an error: %s)", v.Type(), why)
	}
	switch s := s.(type) {
	case lua.LString:
		return string(s)
	case lua.LNumber:
		return NumberToString(s)
	}
	return fmt.Sprintf("(error object is a %s value whose __tostring returned a %s value, not a string)", v.Type(), s.Type())
}

// plainMessage is Message without metamethods: what an error raised while
// making a message says.
func plainMessage(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return NumberToString(v)
	}
	return fmt.Sprintf("(error object is a %s value)", v.Type())
}
