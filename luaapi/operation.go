package luaapi

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/lua51"
)

// operation is one call of a module function that acts on the fabric or on
// a session (those operations names), as Options.onOperation sees it once
// the call has returned or raised.
type operation struct {
	// text is the call as a script writes it, sessions named s<id>, then
	// " = " and what it returned: "ok" for nothing, or the values, or
	// "error: " and the error raised. For example
	// `resident.startup{credits = 1, rounds = 1} = s1`, `s1:wait(0) = false`,
	// `s1:start() = error: busy: ...`.
	text string
	// session is the engine session the call made or acted on, or nil.
	session *engine.Session
}

// operations are the module functions that act on the fabric or on a
// session: what Options.onOperation observes.
var operations = map[string]bool{
	"fabric": true, "startup": true, "submit_gpu": true, "submit_npu": true, "start": true,
	"abort": true, "wait": true, "close": true, "fault": true, "clear_faults": true, "reset": true,
}

// observed wraps the function fn of the module function name so that
// Options.onOperation sees each call, whether it returns or raises.
func (m *Module) observed(name string, fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		call, s := m.callWords(L, name)
		returned := false
		defer func() {
			if returned {
				return
			}
			r := recover()
			if api, ok := r.(*lua.ApiError); ok {
				m.opts.onOperation(operation{text: call + " = error: " + strings.TrimSpace(ErrorString(api)), session: s})
			}
			panic(r)
		}()
		n := fn(L)
		returned = true
		result, made := m.valueWords(L, L.GetTop()-n+1, L.GetTop())
		if made != nil {
			s = made
		}
		if n == 0 {
			result = "ok"
		}
		m.opts.onOperation(operation{text: call + " = " + result, session: s})
		return n
	}
}

// callWords writes the call in progress of name as a script would
// (s1:wait(0), resident.fault("npu.run", "hang"), resident.startup{...}),
// and returns the engine session of its first argument, if it is one.
func (m *Module) callWords(L *lua.LState, name string) (string, *engine.Session) {
	top := L.GetTop()
	if s := m.sessionOf(L.Get(1)); s != nil && top >= 1 {
		args, _ := m.valueWords(L, 2, top)
		return "s" + strconv.FormatUint(s.id, 10) + ":" + name + "(" + args + ")", s.eng
	}
	if t, ok := L.Get(1).(*lua.LTable); ok && top == 1 {
		return "resident." + name + m.valueWord(t), nil
	}
	args, _ := m.valueWords(L, 1, top)
	return "resident." + name + "(" + args + ")", nil
}

// valueWords writes the values from stack index from to to, separated by
// commas, and returns the engine session of the first that is a session.
func (m *Module) valueWords(L *lua.LState, from, to int) (string, *engine.Session) {
	var words []string
	var made *engine.Session
	for i := from; i <= to; i++ {
		v := L.Get(i)
		if s := m.sessionOf(v); s != nil && made == nil {
			made = s.eng
		}
		words = append(words, m.valueWord(v))
	}
	return strings.Join(words, ", "), made
}

// valueWord writes v as a script would: a session by its name, a program
// by its name (its file's path), a kernel by its entry and file, a string
// quoted, a table's fields in the order of their keys (two levels deep), a
// value of another type by its type's name (a userdata's __name).
func (m *Module) valueWord(v lua.LValue) string { return m.valueWordIn(v, 2) }

func (m *Module) valueWordIn(v lua.LValue, depth int) string {
	switch v := v.(type) {
	case lua.LString:
		return strconv.Quote(string(v))
	case lua.LNumber:
		return lua51.NumberToString(v)
	case *lua.LTable:
		if depth == 0 {
			return "{...}"
		}
		var fields []string
		v.ForEach(func(k, fv lua.LValue) {
			w := m.valueWordIn(fv, depth-1)
			if ks, ok := k.(lua.LString); ok {
				fields = append(fields, string(ks)+" = "+w)
			} else {
				fields = append(fields, "["+m.valueWordIn(k, 0)+"] = "+w)
			}
		})
		slices.SortFunc(fields, cmp.Compare)
		return "{" + strings.Join(fields, ", ") + "}"
	case *lua.LUserData:
		if s := m.sessionOf(v); s != nil {
			return "s" + strconv.FormatUint(s.id, 10)
		}
		if p := m.asProgram(v); p != nil {
			return "program " + strconv.Quote(p.prog.Name())
		}
		if k := m.asKernel(v); k != nil {
			return "kernel " + strconv.Quote(k.entry) + " of " + strconv.Quote(k.path)
		}
		if mt, ok := v.Metatable.(*lua.LTable); ok {
			if name, ok := mt.RawGetString("__name").(lua.LString); ok {
				return string(name)
			}
		}
	case *lua.LNilType, lua.LBool:
		return v.String()
	}
	return valueTypeName(v)
}

// sessionOf returns the session v is, if it is one of this module's.
func (m *Module) sessionOf(v lua.LValue) *session {
	if ud, ok := v.(*lua.LUserData); ok {
		if s, ok := ud.Value.(*session); ok && s.m == m {
			return s
		}
	}
	return nil
}
