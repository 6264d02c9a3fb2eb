package lua51

import (
	"errors"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// UncaughtMessage is the message lua.c prints for an error that ends a
// script, without its program name and traceback: a string error value as
// it is (up to a NUL byte, as C reads it), a number as a string, any other
// value "(error object is not a string)" (Lua 5.1's lua.c does not call
// __tostring), and nothing for error() or error(nil): print is then false.
// An error that is not a *lua.ApiError is its Error().
func UncaughtMessage(err error) (msg string, print bool) {
	var api *lua.ApiError
	if !errors.As(err, &api) || api.Object == nil {
		return err.Error(), true
	}
	switch v := api.Object.(type) {
	case lua.LString:
		msg, _, _ = strings.Cut(string(v), "\x00")
		return msg, true
	case lua.LNumber:
		return NumberToString(v), true
	case *lua.LNilType:
		return "", false
	}
	return "(error object is not a string)", true
}
