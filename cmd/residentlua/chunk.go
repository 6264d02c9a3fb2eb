package main

import (
	"context"
	"errors"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/lua51"
)

// chunkError is a failed chunk: the message lua.c's message handler would
// make of the error value, and the traceback where it was raised.
type chunkError struct {
	msg       string
	traceback string // "stack traceback:\n\t..." or empty (syntax errors)
	silent    bool   // error() or error(nil): lua.c prints nothing
}

// Error is the message, then the traceback on the lines below it.
func (e *chunkError) Error() string {
	if e.traceback == "" {
		return e.msg
	}
	return e.msg + "\n" + e.traceback
}

// call runs fn with args in protected mode and returns its results. While
// it runs, Ctrl-C cancels the state's context, which stops the chunk (and
// any wait inside it) with an error marked as interrupted.
func (c *command) call(fn *lua.LFunction, args ...lua.LValue) ([]lua.LValue, error) {
	L := c.L
	L.SetContext(c.intr.arm())
	base := L.GetTop()
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	err := lua51.PCall(L, len(args), lua.MultRet)
	// Remove the context before disarming cancels it: rendering the error
	// may run __tostring.
	L.RemoveContext()
	if err = c.chunkFailure(err, c.intr.disarm()); err != nil {
		return nil, err
	}
	n := L.GetTop() - base
	results := make([]lua.LValue, n)
	for i := range results {
		results[i] = L.Get(base + 1 + i)
	}
	L.SetTop(base)
	return results, nil
}

// loadArmed compiles a chunk with load (a lua51 loader), Ctrl-C and SIGTERM
// armed as while a chunk runs: a long compile stops as a running chunk
// does, with an error marked as interrupted.
func (c *command) loadArmed(load func(L *lua.LState) (*lua.LFunction, error)) (*lua.LFunction, error) {
	c.L.SetContext(c.intr.arm())
	fn, err := load(c.L)
	c.L.RemoveContext()
	if err = c.chunkFailure(err, c.intr.disarm()); err != nil {
		return nil, err
	}
	return fn, nil
}

// chunkFailure is the chunkError of err (nil for none), said to be
// interrupted when a signal stopped the chunk.
func (c *command) chunkFailure(err error, interrupted bool) error {
	if err == nil {
		return nil
	}
	ce := asChunkError(c.L, err)
	if interrupted {
		// gopher-lua stops a running chunk with the context's error, in
		// Go's words ("context canceled").
		ce.msg = strings.Replace(ce.msg, context.Canceled.Error(), "interrupted", 1)
		if !strings.Contains(ce.msg, "interrupted") {
			ce.msg = "interrupted: " + ce.msg
		}
	}
	return ce
}

// asChunkError turns an error of gopher-lua into a chunkError, rendering the
// error value the way lua.c's message handler does (lua51.UncaughtMessage:
// strings up to a NUL byte, numbers, "(error object is not a string)",
// nothing for nil), except that values with __tostring print through it.
func asChunkError(L *lua.LState, err error) *chunkError {
	var api *lua.ApiError
	if !errors.As(err, &api) {
		return &chunkError{msg: err.Error()}
	}
	ce := &chunkError{traceback: api.StackTrace}
	var print bool
	ce.msg, print = lua51.UncaughtMessage(err)
	ce.silent = !print
	if v := api.Object; v != nil && L.GetMetaField(v, "__tostring") != lua.LNil {
		ce.msg = lua51.Message(L, v)
	}
	// Syntax errors from the parser end with a newline; the message is one line.
	ce.msg = strings.TrimRight(ce.msg, "\n")
	return ce
}

// tostring is Lua's tostring(v), protected: ok is false when __tostring fails.
func tostring(L *lua.LState, v lua.LValue) (string, bool) {
	fn := L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(lua51.ToString(L, L.Get(1))))
		return 1
	})
	if err := L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, v); err != nil {
		return "", false
	}
	s := L.Get(-1)
	L.Pop(1)
	return lua.LVAsString(s), true
}
