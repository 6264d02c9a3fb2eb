package luaapi

import (
	"errors"
	"os"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/trace"
)

// validateFn is resident.validate(file, ...): the traces in the files,
// merged by time, checked against the oracle's invariants (package trace).
// It returns the report as a table; a malformed trace is an invalid error
// naming the file, the line and the field.
func (m *Module) validateFn(L *lua.LState) int {
	const name = "validate"
	n := L.GetTop()
	if n == 0 {
		argError(L, 1, name, "string expected, got no value")
	}
	if m.opts.Sandbox {
		m.raise(L, failure.Errorf(failure.Unsupported, name, "a trace is a file, which this sandboxed state may not read"))
	}
	paths := make([]string, n)
	for i := range paths {
		path, ok := L.Get(i + 1).(lua.LString)
		if !ok {
			argError(L, i+1, name, "string expected, got "+valueTypeName(L.Get(i+1)))
		}
		paths[i] = string(path)
	}
	inputs := make([]trace.Input, 0, n)
	closeAll := func() {
		for _, in := range inputs {
			_ = in.R.(*os.File).Close()
		}
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			closeAll()
			m.invalid(L, name, "%v", err)
		}
		inputs = append(inputs, trace.Input{Name: path, R: f})
	}
	r, err := trace.Validate(inputs...)
	closeAll()
	var fe *trace.FormatError
	if errors.As(err, &fe) {
		m.invalid(L, name, "%v", fe)
	} else if err != nil {
		m.invalid(L, name, "%v", err)
	}
	L.Push(traceReportTable(L, r))
	return 1
}

// traceReportTable is a trace.Report as resident.validate returns it.
func traceReportTable(L *lua.LState, r *trace.Report) *lua.LTable {
	t := L.CreateTable(0, 8)
	t.RawSetString("ok", lua.LBool(r.OK()))
	t.RawSetString("events", lua.LNumber(r.Events))
	t.RawSetString("sessions", lua.LNumber(r.Sessions))
	checked := L.CreateTable(len(r.Checked), 0)
	for _, n := range r.Checked {
		checked.Append(lua.LNumber(n))
	}
	t.RawSetString("checked", checked)
	unchecked := L.CreateTable(len(r.Unchecked), 0)
	for _, u := range r.Unchecked {
		ut := L.CreateTable(0, 2)
		ut.RawSetString("invariant", lua.LNumber(u.Invariant))
		ut.RawSetString("why", lua.LString(u.Why))
		unchecked.Append(ut)
	}
	t.RawSetString("not_checked", unchecked)
	violations := L.CreateTable(len(r.Violations), 0)
	for _, v := range r.Violations {
		vt := L.CreateTable(0, 10)
		vt.RawSetString("invariant", lua.LNumber(v.Invariant))
		vt.RawSetString("text", lua.LString(v.Text))
		vt.RawSetString("message", lua.LString(v.Message))
		vt.RawSetString("session", lua.LNumber(v.Session))
		vt.RawSetString("file", lua.LString(v.File))
		vt.RawSetString("line", lua.LNumber(v.Line))
		vt.RawSetString("event", lua.LString(v.Event))
		vt.RawSetString("count", lua.LNumber(v.Count))
		vt.RawSetString("events", stringList(L, v.Events))
		violations.Append(vt)
	}
	t.RawSetString("violations", violations)
	if r.Truncated != nil {
		t.RawSetString("truncated", lua.LString(r.Truncated.Error()))
	}
	t.RawSetString("report", lua.LString(r.String()))
	return t
}
