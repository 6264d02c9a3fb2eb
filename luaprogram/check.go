package luaprogram

import (
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
)

// check runs the program's check, check(c, args), on the host once the
// session retired under RUN: c reads the session's buffers as the host
// sees them (c:load, c:read) and knows what p knew (c.startup, c.buffers,
// c.args, c.owner). The check returns true when the results are right, or
// false (or nil) and a message saying the first thing wrong; an error in
// it is a failure too. A check that passed before with the same inputs
// passes again without running (checkMemo).
func (in *Instance) check() error {
	m, err := in.prog.take(in.cfg.Context)
	if err != nil {
		return err
	}
	defer in.prog.give(m)
	m.setContext(in.cfg.Context)
	if m.host.check == nil {
		return nil
	}
	// A check that passed with these inputs passes again. Whether the
	// environment is as made does not matter here: a check always runs in
	// one, and the sealed function is what a fresh run of the chunk makes
	// while it is intact.
	s := m.sealed[checkEntry]
	if s != nil && s.intact(s.env) == nil {
		s = nil
	}
	key, memo := m.memo.inputs(in, s)
	if memo && m.memo.passes(key) {
		return nil
	}
	check, err := m.fresh(checkEntry) // a fresh environment, as an invocation's
	if err != nil {
		return err
	}
	if check == nil {
		return errors.New(in.prog.Name() + ": the chunk returned a check when it was made, and none this time; a program's chunk must return the same table each time it runs")
	}
	memo = memo && m.sealed[checkEntry] == s && s.fn == check // not the chunk run afresh
	writes, draws := m.out.writes, m.draws
	m.checking = in
	defer func() { m.checking = nil }()
	args := m.argsOf(in.cfg.Args)
	c := m.newCheck(in, args)
	m.L.Push(check)
	m.L.Push(c)
	m.L.Push(args)
	if err := m.pcallHost(2, 2); err != nil {
		return fmt.Errorf("%s: the check failed: %s", in.prog.Name(), m.hostBudgetText(err, m.describe(err), "check"))
	}
	ok, msg := m.L.Get(-2), m.L.Get(-1)
	m.L.Pop(2)
	if lua.LVAsBool(ok) {
		if memo && m.out.writes == writes && m.draws == draws {
			m.memo.remember(key)
		}
		return nil
	}
	if msg == lua.LNil {
		return errors.New(in.prog.Name() + ": the check found the results wrong (it gave no message)")
	}
	if t := msg.Type(); t != lua.LTString && t != lua.LTNumber {
		return fmt.Errorf("%s: the check found the results wrong (its message is a %s, not a string)", in.prog.Name(), t)
	}
	return errors.New(truncateMessage(lua.LVAsString(msg)))
}

// newCheck makes a check's c for in: its fields (c.args is args, the
// check's second argument, as p.args is the program's), and c:load and
// c:read, which read the buffers as the host sees them (the machine's,
// made once: they act on the invocation being checked).
func (m *machine) newCheck(in *Instance, args lua.LValue) *lua.LTable {
	L := m.L
	c := L.NewTable()
	c.RawSetString("startup", m.newHandle(in, -1))
	bufs := L.CreateTable(0, len(in.cfg.Buffers))
	for i, b := range in.cfg.Buffers {
		bufs.RawSetString(b.Name, m.newHandle(in, i))
	}
	c.RawSetString("buffers", bufs)
	c.RawSetString("args", args)
	c.RawSetString("owner", lua.LNumber(in.cfg.Owner))
	c.RawSetString("load", m.checkLoad)
	c.RawSetString("read", m.checkRead)
	return c
}

// initCheck makes c:load and c:read, which every check's c shares.
func (m *machine) initCheck() {
	L := m.L
	m.checkLoad = L.NewFunction(func(L *lua.LState) int {
		h, v := m.hostView(L, "load")
		off := offset(L, 3, "load", h, v, 1)
		L.Push(lua.LNumber(v.Buffer().HostLoad(off)))
		return 1
	})
	m.checkRead = L.NewFunction(func(L *lua.LState) int {
		h, v := m.hostView(L, "read")
		size := v.Size()
		f, ok := L.Get(4).(lua.LNumber)
		n := int(f)
		if !ok || float64(f) != float64(n) || n < 0 || n > size/4 {
			L.RaiseError("c:read: the count of words (argument #3) must be a whole number from 0 to %d", size/4)
		}
		off := offset(L, 3, "read", h, v, n)
		t := L.CreateTable(n, 0)
		for i := 0; i < n; i++ {
			t.RawSetInt(i+1, lua.LNumber(v.Buffer().HostLoad(off+4*i)))
		}
		L.Push(t)
		return 1
	})
}

// hostView is argument 1 of c:name, a buffer of the invocation being
// checked, and its view.
func (m *machine) hostView(L *lua.LState, name string) (*handle, *devices.View) {
	ud, ok := L.Get(2).(*lua.LUserData)
	var h *handle
	if ok {
		h, _ = ud.Value.(*handle)
	}
	if h == nil || m.checking == nil || h.in != m.checking {
		L.RaiseError("c:%s: argument #1 must be one of this check's buffers (c.startup, c.buffers.<name>)", name)
	}
	_, v := h.view()
	return h, v
}
