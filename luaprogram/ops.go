package luaprogram

import (
	"errors"
	"math"
	"strconv"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/lua51"
)

// handle is a buffer handle a program holds: p.startup or one of
// p.buffers. It belongs to one invocation.
type handle struct {
	in    *Instance
	index int // -1 for the startup line
}

// view is the buffer the handle names, its name and the view of it.
func (h *handle) view() (string, *devices.View) {
	if h.index < 0 {
		return "startup", h.in.cfg.Startup
	}
	b := h.in.cfg.Buffers[h.index]
	return b.Name, b.View
}

// initMethods makes p's methods and the metatables of p and of buffer
// handles.
func (m *machine) initMethods() {
	L := m.L
	methods := map[string]lua.LGFunction{
		"load":        m.load,
		"wait":        m.wait,
		"store":       m.store(opStore, "store"),
		"store_plain": m.store(opStorePlain, "store_plain"),
		"read":        m.read,
		"write":       m.write,
		"flip":        m.flip,
		"drain":       m.drainOrDiscard(opDrain, "drain"),
		"discard":     m.drainOrDiscard(opDiscard, "discard"),
		"delay":       m.delay,
		"hang":        m.hang,
		"retire":      m.retire,
		"fault":       m.fault,
		"event":       m.event,
		"now":         m.now,
	}
	for name, fn := range methods {
		m.method = append(m.method, field{lua.LString(name), L.NewFunction(fn)})
	}
	m.bufMT = L.NewTable()
	m.bufMT.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		h := L.CheckUserData(1).Value.(*handle)
		name, v := h.view()
		switch L.CheckString(2) {
		case "name":
			L.Push(lua.LString(name))
		case "size":
			L.Push(lua.LNumber(v.Size()))
		default:
			L.Push(lua.LNil)
		}
		return 1
	}))
	m.bufMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		name, v := L.CheckUserData(1).Value.(*handle).view()
		L.Push(lua.LString("buffer " + name + " (" + strconv.Itoa(v.Size()) + " bytes)"))
		return 1
	}))
	m.bufMT.RawSetString("__metatable", lua.LString("buffer"))
	m.none = []lua.LValue{}
}

// newP makes the p of an invocation: its own fields (the buffers, the
// arguments, the session, the timing), the methods, and the fields its
// device's invocations share, so that nothing one invocation writes to its
// p is seen by another. It has no metatable. As with the environment, the
// machine gives the next invocation the last one's p and timing table when
// they hold exactly what they were made with (the invocation's own fields
// set anew), and makes new ones when they do not.
func (m *machine) newP(in *Instance, args lua.LValue) *lua.LTable {
	L := m.L
	shared := m.deviceFields(in.cfg)
	p := m.p
	if p == nil || !m.pAsMade(p, shared) {
		p = L.CreateTable(0, len(pOwnFields)+len(shared))
		for _, k := range pOwnFields {
			p.RawSetString(k, lua.LTrue) // each set below: here for their place first
		}
		for _, f := range shared {
			p.RawSet(f.k, f.v)
		}
		m.p = p
	}
	startup, bufs := m.handles(in)
	p.RawSetString("startup", startup)
	p.RawSetString("buffers", bufs)
	p.RawSetString("args", args)
	p.RawSetString("owner", lua.LNumber(in.cfg.Owner))
	p.RawSetString("timing", m.timingOf(in.env.Timing()))
	return p
}

// pOwnFields are the fields of p that are each invocation's own, set first
// in a p as made.
var pOwnFields = [...]string{"startup", "buffers", "args", "owner", "timing"}

// pAsMade reports whether p, the last invocation's, holds exactly its own
// fields (whatever their values) and shared, and has no metatable.
func (m *machine) pAsMade(p *lua.LTable, shared []field) bool {
	if p.Metatable != lua.LNil || len(shared) == 0 {
		return false
	}
	for _, f := range shared {
		if p.RawGet(f.k) != f.v {
			return false
		}
	}
	for _, k := range pOwnFields {
		if p.RawGetString(k) == lua.LNil {
			return false
		}
	}
	return nothingElse(p, lua.LString(pOwnFields[0]), shared[len(shared)-1].k)
}

// timingOf is p.timing for the figures of tm, in seconds: the last one
// given when it holds exactly them and has no metatable, else a new one.
func (m *machine) timingOf(tm program.Timing) *lua.LTable {
	if m.timing != nil && m.timingFor == tm && holdsOnly(m.timing, m.timingFields) {
		return m.timing
	}
	if m.timingFields == nil || m.timingFor != tm {
		m.timingFields = m.timingFields[:0]
		for _, name := range program.TimingFigures {
			d, _ := tm.Figure(name)
			m.timingFields = append(m.timingFields, field{lua.LString(name), lua.LNumber(d.Seconds())})
		}
		m.timingFor = tm
	}
	m.timing = m.L.CreateTable(0, len(m.timingFields))
	for _, f := range m.timingFields {
		m.timing.RawSet(f.k, f.v)
	}
	return m.timing
}

// deviceKey names what p's shared fields depend on.
type deviceKey struct {
	device, kind, queue string
}

// maxDeviceFields bounds the lists of shared fields a machine keeps.
const maxDeviceFields = 8

// deviceFields are the fields of the p of invocations on one device and
// queue: its methods, the device's name, kind and queue and the startup
// word's values. They are listed once and kept (a few), as a campaign's
// trials run on fabrics alike.
func (m *machine) deviceFields(cfg Config) []field {
	key := deviceKey{cfg.Device, cfg.Kind, cfg.Queue}
	if f, ok := m.pShare[key]; ok {
		return f
	}
	f := append([]field(nil), m.method...)
	for _, kv := range []struct {
		k string
		v lua.LValue
	}{
		{"device", lua.LString(cfg.Device)}, {"kind", lua.LString(cfg.Kind)}, {"queue", lua.LString(cfg.Queue)},
		{"WAIT", lua.LNumber(program.StartupWait)}, {"RUN", lua.LNumber(program.StartupRun)}, {"ABORT", lua.LNumber(program.StartupAbort)},
	} {
		f = append(f, field{lua.LString(kv.k), kv.v})
	}
	if len(m.pShare) >= maxDeviceFields {
		clear(m.pShare)
	}
	m.pShare[key] = f
	return f
}

// handles are in's p.startup and p.buffers: the last invocation's, each
// handle pointed at in, when the buffers have the same names and the table
// holds exactly their handles and has no metatable, else new ones. Nothing
// of an earlier invocation reaches them otherwise (its p is given anew only
// as made, its environment likewise, and a function it made is given again
// only when it holds no table), so no program sees a handle change hands.
func (m *machine) handles(in *Instance) (*lua.LUserData, *lua.LTable) {
	if m.bufs == nil || !m.handlesAsMade(in.cfg.Buffers) {
		m.startup = m.newHandle(in, -1)
		m.bufs = m.L.CreateTable(0, len(in.cfg.Buffers))
		m.bufHandles, m.bufNames = m.bufHandles[:0], m.bufNames[:0]
		for i, b := range in.cfg.Buffers {
			h := m.newHandle(in, i)
			m.bufs.RawSetString(b.Name, h)
			m.bufHandles, m.bufNames = append(m.bufHandles, h), append(m.bufNames, b.Name)
		}
		return m.startup, m.bufs
	}
	m.startup.Value.(*handle).in = in
	for _, h := range m.bufHandles {
		h.Value.(*handle).in = in
	}
	return m.startup, m.bufs
}

// handlesAsMade reports whether the last p.buffers is of buffers of the
// names bufs has and holds exactly their handles.
func (m *machine) handlesAsMade(bufs []View) bool {
	if len(bufs) != len(m.bufNames) || m.bufs.Metatable != lua.LNil {
		return false
	}
	for i, b := range bufs {
		if b.Name != m.bufNames[i] || m.bufs.RawGetString(b.Name) != m.bufHandles[i] {
			return false
		}
	}
	if len(bufs) == 0 {
		return nothingElse(m.bufs, lua.LNil, lua.LNil)
	}
	return nothingElse(m.bufs, lua.LString(bufs[0].Name), lua.LString(bufs[len(bufs)-1].Name))
}

// newHandle makes the handle of in's buffer i (-1: the startup line).
func (m *machine) newHandle(in *Instance, i int) *lua.LUserData {
	ud := m.L.NewUserData()
	ud.Value = &handle{in: in, index: i}
	ud.Metatable = m.bufMT
	return ud
}

// current is the invocation a memory operation called name acts on: the
// one the machine steps, whose p is argument 1.
func (m *machine) current(L *lua.LState, name string) *Instance {
	in := m.run
	if in == nil {
		L.RaiseError("p:%s: memory operations run only inside the program's function, while its device runs it", name)
	}
	if L.Get(1) != in.p {
		L.RaiseError("p:%s: call it as a method of the program's p, p:%s(...)", name, name)
	}
	return in
}

// stop stops the program at a memory operation: op is what its next step
// does first, next what the step waits for. It yields to the device's
// executor, which resumes it with the operation's results.
func (m *machine) stop(L *lua.LState, in *Instance, op pendingOp, next program.Next) int {
	name := opNames[op.kind]
	switch next.Kind() {
	case program.NextRetire:
		name = "retire"
	case program.NextHang:
		name = "hang"
	}
	if L != m.th {
		in.misuse = "p:" + name + " was called inside pcall, xpcall or another protected call; a memory operation yields to the device, which it cannot do from there: call memory operations outside protected calls"
		L.RaiseError("%s", in.misuse)
	}
	if !lua51.CanYield(L) {
		in.misuse = "p:" + name + " was called inside a function that Lua's library or a metamethod called (an iterator of a generic for, a callback of string.gsub or table.sort, __index, __add, __tostring, __concat, ...); a memory operation yields to the device, which it cannot do from there: call memory operations in the program's own code, and hand their results to such functions"
		L.RaiseError("%s", in.misuse)
	}
	in.pending, in.next = op, spinning(in, op, next)
	return L.Yield()
}

// spinning is next, or a pause when the program polls: a load of the word
// its last operation loaded too. In simulated time a step takes no time,
// so a program that polls a word with p:load for ever would stop the
// clock, and no deadline would pass; a poll there lets time pass as a
// real-time device's polling backs off, from a microsecond doubling to a
// millisecond. Where a device runs its own steps (real time), the clock
// runs by itself and next is kept.
func spinning(in *Instance, op pendingOp, next program.Next) program.Next {
	prev := in.last
	in.last = pendingOp{kind: op.kind, buf: op.buf, off: op.off}
	if op.kind != opLoad || prev.kind != opLoad || prev.buf != op.buf || prev.off != op.off {
		in.polls = 0
		return next
	}
	in.polls++
	if in.env == nil || !in.env.Interleaved() {
		return next
	}
	return program.Sleep(min(time.Microsecond<<min(in.polls-1, 10), time.Millisecond))
}

// buffer reads argument n as a buffer handle of in; write says the
// operation stores, which the startup line refuses.
func (m *machine) buffer(L *lua.LState, in *Instance, n int, name string, write bool) (*handle, *devices.View) {
	ud, ok := L.Get(n).(*lua.LUserData)
	h, isHandle := (*handle)(nil), false
	if ok {
		h, isHandle = ud.Value.(*handle)
	}
	if !isHandle {
		L.RaiseError("p:%s: argument #%d must be a buffer (p.startup or one of p.buffers), got %s", name, n-1, L.Get(n).Type())
	}
	if h.in != in {
		L.RaiseError("p:%s: that buffer belongs to another session's invocation; use this invocation's p.startup and p.buffers", name)
	}
	if write && h.index < 0 {
		L.RaiseError("p:%s: the startup line is the host's: a program never writes it, only reads it (p:load, p:wait)", name)
	}
	_, v := h.view()
	return h, v
}

// offset reads argument n as a byte offset of words words (whole, a
// multiple of 4) inside the buffer.
func offset(L *lua.LState, n int, name string, h *handle, v *devices.View, words int) int {
	f, ok := L.Get(n).(lua.LNumber)
	if !ok {
		L.RaiseError("p:%s: the offset (argument #%d) must be a number of bytes, got %s", name, n-1, L.Get(n).Type())
	}
	bufName, _ := h.view()
	off := float64(f)
	if off != math.Trunc(off) || int(off)%4 != 0 || off < 0 || off+4*float64(words) > float64(v.Size()) {
		last := v.Size() - 4*max(words, 1)
		L.RaiseError("p:%s: offset %s of buffer %s (%d bytes) is outside it or not a word's; offsets are multiples of 4 from 0 to %d", name, lua.LNumber(f).String(), bufName, v.Size(), last)
	}
	return int(off)
}

// wordArg reads argument n as a word: a whole number from -2^31 to
// 2^32-1, taken modulo 2^32.
func wordArg(L *lua.LState, n int, name string) uint32 {
	f, ok := L.Get(n).(lua.LNumber)
	v := float64(f)
	if !ok || v != math.Trunc(v) || v < -(1<<31) || v >= 1<<32 {
		L.RaiseError("p:%s: a word is a whole number from -2^31 to 2^32-1, got %s", name, L.Get(n).String())
	}
	return uint32(int64(v))
}

func (m *machine) load(L *lua.LState) int {
	in := m.current(L, "load")
	h, v := m.buffer(L, in, 2, "load", false)
	off := offset(L, 3, "load", h, v, 1)
	return m.stop(L, in, pendingOp{kind: opLoad, buf: h.index, off: off, view: v}, program.Continue())
}

func (m *machine) wait(L *lua.LState) int {
	in := m.current(L, "wait")
	h, v := m.buffer(L, in, 2, "wait", false)
	off := offset(L, 3, "wait", h, v, 1)
	old := wordArg(L, 4, "wait")
	waitFor := old
	if h.index < 0 && off == 0 {
		waitFor = in.observer.WaitFor(old)
	}
	return m.stop(L, in, pendingOp{kind: opWait, buf: h.index, off: off, val: old, view: v}, program.WaitWord(v, off, waitFor))
}

func (m *machine) store(kind opKind, name string) lua.LGFunction {
	return func(L *lua.LState) int {
		in := m.current(L, name)
		h, v := m.buffer(L, in, 2, name, true)
		off := offset(L, 3, name, h, v, 1)
		val := wordArg(L, 4, name)
		return m.stop(L, in, pendingOp{kind: kind, buf: h.index, off: off, val: val, view: v}, program.Continue())
	}
}

func (m *machine) read(L *lua.LState) int {
	in := m.current(L, "read")
	h, v := m.buffer(L, in, 2, "read", false)
	f, ok := L.Get(4).(lua.LNumber)
	n := int(f)
	if !ok || float64(f) != float64(n) || n < 0 || n > v.Size()/4 {
		L.RaiseError("p:read: the count of words (argument #3) must be a whole number from 0 to %d, got %s", v.Size()/4, L.Get(4).String())
	}
	off := offset(L, 3, "read", h, v, n)
	into, ok := L.Get(5).(*lua.LTable)
	if !ok {
		if L.Get(5) != lua.LNil {
			L.RaiseError("p:read: argument #4, if given, is the table to read into, got %s", L.Get(5).Type())
		}
		into = L.CreateTable(n, 0)
	}
	return m.stop(L, in, pendingOp{kind: opRead, buf: h.index, off: off, n: n, into: into, view: v}, program.Continue())
}

func (m *machine) write(L *lua.LState) int {
	in := m.current(L, "write")
	h, v := m.buffer(L, in, 2, "write", true)
	t, ok := L.Get(4).(*lua.LTable)
	if !ok {
		L.RaiseError("p:write: argument #3 must be a table of words, got %s", L.Get(4).Type())
	}
	n := t.Len()
	off := offset(L, 3, "write", h, v, n)
	words := make([]uint32, n)
	for i := range words {
		f, ok := t.RawGetInt(i + 1).(lua.LNumber)
		x := float64(f)
		if !ok || x != math.Trunc(x) || x < -(1<<31) || x >= 1<<32 {
			L.RaiseError("p:write: word %d of the table is not a whole number from -2^31 to 2^32-1: %s", i+1, t.RawGetInt(i+1).String())
		}
		words[i] = uint32(int64(x))
	}
	return m.stop(L, in, pendingOp{kind: opWrite, buf: h.index, off: off, words: words, view: v}, program.Continue())
}

func (m *machine) flip(L *lua.LState) int {
	in := m.current(L, "flip")
	h, v := m.buffer(L, in, 2, "flip", true)
	off := offset(L, 3, "flip", h, v, 1)
	mask := wordArg(L, 4, "flip")
	return m.stop(L, in, pendingOp{kind: opFlip, buf: h.index, off: off, val: mask, view: v}, program.Continue())
}

func (m *machine) drainOrDiscard(kind opKind, name string) lua.LGFunction {
	return func(L *lua.LState) int {
		in := m.current(L, name)
		h, v := m.buffer(L, in, 2, name, true)
		return m.stop(L, in, pendingOp{kind: kind, buf: h.index, view: v}, program.Continue())
	}
}

func (m *machine) delay(L *lua.LState) int {
	in := m.current(L, "delay")
	f, ok := L.Get(2).(lua.LNumber)
	s := float64(f)
	if !ok || math.IsNaN(s) || s < 0 || s > 1e9 {
		L.RaiseError("p:delay: give a number of seconds from 0 to 1e9, got %s", L.Get(2).String())
	}
	d := time.Duration(math.Round(s * 1e9))
	return m.stop(L, in, pendingOp{kind: opDelay, d: d}, program.Sleep(d))
}

func (m *machine) hang(L *lua.LState) int {
	in := m.current(L, "hang")
	return m.stop(L, in, pendingOp{}, program.Hang())
}

func (m *machine) retire(L *lua.LState) int {
	in := m.current(L, "retire")
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
		return m.stop(L, in, pendingOp{}, program.Retire(nil))
	case lua.LString:
		return m.stop(L, in, pendingOp{}, program.Retire(errors.New(truncateMessage(string(v)))))
	}
	L.RaiseError("p:retire: give nothing to retire cleanly, or a message to retire with an error; got %s", L.Get(2).Type())
	return 0
}

// fault hits a fault site and returns what fired: nil, or the action's
// name and its argument (an error's or crash's message, a delay in
// seconds). It is not a memory operation: it does not stop the program.
func (m *machine) fault(L *lua.LState) int {
	in := m.current(L, "fault")
	site, err := fault.ParseSite(L.CheckString(2))
	if err != nil {
		L.RaiseError("p:fault: %v", err)
	}
	if !builtinSites[site] && !m.prog.sites[site] {
		L.RaiseError("p:fault: %s is a site another program declared; declare it in this program's sites (sites = {%q}) to hit it", site, site.String())
	}
	fired := in.env.Fault(site)
	in.mix(uint64(fired.Action))
	switch fired.Action {
	case fault.None, fault.Off:
		L.Push(lua.LNil)
		return 1
	case fault.Delay:
		in.mix(uint64(fired.Delay))
		L.Push(lua.LString(fired.Action.String()))
		L.Push(lua.LNumber(fired.Delay.Seconds()))
		return 2
	case fault.Error, fault.Crash:
		in.mixString(fired.Message)
		L.Push(lua.LString(fired.Action.String()))
		L.Push(lua.LString(fired.Message))
		return 2
	}
	L.Push(lua.LString(fired.Action.String()))
	return 1
}

// builtinSites are the runtime's fault sites, which every program may hit.
var builtinSites = func() map[fault.Site]bool {
	set := map[fault.Site]bool{}
	for _, s := range fault.Sites() {
		set[s] = true
	}
	return set
}()

// maxDetail bounds an event's detail.
const maxDetail = 200

// event records an event of the invocation: a kind of the round category
// (payload.write, credit, ...) or observe by its name, any other name as a
// note. It is not a memory operation.
func (m *machine) event(L *lua.LState) int {
	in := m.current(L, "event")
	name := L.CheckString(2)
	b := 0.0
	if v, ok := L.Get(3).(lua.LNumber); ok {
		b = float64(v)
	} else if L.Get(3) != lua.LNil {
		L.RaiseError("p:event: the value (argument #2) must be a number, got %s", L.Get(3).Type())
	}
	if b != math.Trunc(b) || b < 0 || b > 1<<53 {
		L.RaiseError("p:event: the value must be a whole number from 0 to 2^53, got %s", lua.LNumber(b).String())
	}
	detail := L.OptString(4, "")
	kind, ok := program.LookupEvent(name)
	if !ok || (kind != program.EvObserve && kind.Category() != program.CategoryRound) {
		kind = program.EvNote
		if detail == "" {
			detail = name
		} else {
			detail = name + " " + detail
		}
	}
	if len(detail) > maxDetail {
		L.RaiseError("p:event: name and detail are %d bytes; at most %d", len(detail), maxDetail)
	}
	in.env.Emit(kind, uint64(b), detail)
	return 0
}

// now is the fabric's time in seconds. It is not a memory operation.
func (m *machine) now(L *lua.LState) int {
	in := m.current(L, "now")
	t := in.env.Now()
	in.mix(uint64(t))
	L.Push(lua.LNumber(t.Seconds()))
	return 1
}

// seedLazily makes the state's math.random seed itself with the seed of
// the invocation that first draws a number after reseed: seeding glibc's
// generator draws 310 numbers, and most programs never draw one. What a
// program draws is what it drew when every invocation seeded at its start:
// nothing draws from the generator but math.random, and math.randomseed
// replaces a seed still pending.
func (m *machine) seedLazily() {
	math, _ := m.L.GetGlobal("math").(*lua.LTable)
	if math == nil {
		return
	}
	random, ok := math.RawGetString("random").(*lua.LFunction)
	randomseed, ok2 := math.RawGetString("randomseed").(*lua.LFunction)
	if !ok || !ok2 || random.GFunction == nil || randomseed.GFunction == nil {
		return
	}
	math.RawSetString("random", m.L.NewFunction(func(L *lua.LState) int {
		m.draws++
		if m.pendingSeed {
			m.pendingSeed = false
			L.Push(randomseed)
			L.Push(lua.LNumber(m.seed))
			L.Call(1, 0) // a number never makes it fail
		}
		return random.GFunction(L)
	}))
	math.RawSetString("randomseed", m.L.NewFunction(func(L *lua.LState) int {
		m.draws++
		m.pendingSeed = false
		return randomseed.GFunction(L)
	}))
}

// reseed seeds the state's math.random for an invocation, once it draws.
func (m *machine) reseed(seed uint64) {
	m.seed, m.pendingSeed = seed%(1<<31), true
}
