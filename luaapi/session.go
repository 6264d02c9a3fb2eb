package luaapi

import (
	"context"
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/programs/exchange"
)

// session is what a session userdata holds. It carries the userdata
// itself, so that a session and its Lua value are one allocation: scripts
// open sessions by the thousand.
type session struct {
	*sessionInfo
	m  *Module
	ud lua.LUserData // its Value is the session

	eng *engine.Session // nil once frozen
	fab *fabricState    // the fabric the session was made on
}

// sessionInfo is what a session's stats are made of once it is frozen: the
// module keeps it for finished sessions (finishedStats), a pointer each,
// and makes their stats only when asked, without holding their engine
// session or fabric.
type sessionInfo struct {
	id       uint64
	seed     uint64
	cfg      exchange.Config // the built-in exchange's shape, zero for programs
	programs *programSession // the user's programs, nil for the built-in exchange
	gpuName  string
	npuName  string

	watch    hangWatch // what tells a suspected hang, in real time
	frozen   bool      // the session retired or its fabric was replaced: rec holds its record
	rec      record    // its record once frozen
	released bool      // it was quarantined, and resets released the quarantine
}

// record is what a session's stats are made of: the engine's view of it
// and its timeline. A frozen session keeps it by value.
type record struct {
	state        engine.State
	decision     oracle.Decision
	verification exchange.Verification
	verified     bool  // the host verified the exchange
	checked      bool  // the programs' checks ran
	checkErr     error // the first that failed
	line         timeline
}

// readRecord reads the live session's record into r, a zero record, in
// place: a record is some hundreds of bytes, and every session's is read
// as it closes.
func (s *session) readRecord(r *record) {
	r.state, r.decision = s.eng.State(), s.eng.Decision()
	r.line.read(s.eng)
	if x := exchange.Of(s.eng.NPU()); x != nil {
		r.verification, r.verified = x.Verification()
	}
	r.checkErr, r.checked = s.eng.Checked()
}

// open reports whether the session can still be driven.
func (s *session) open() bool {
	if s.eng == nil {
		return false
	}
	st := s.eng.State()
	return st != engine.StateClosed && st != engine.StateQuarantined
}

// stateReleased names a session whose quarantine resets released: its
// memory is unmapped and its devices free, so it is no leak.
const stateReleased = "released"

// state is the session's state name.
func (s *session) state() string {
	if s.frozen {
		return s.sessionInfo.state()
	}
	return s.eng.State().String()
}

// state is a frozen session's state name.
func (i *sessionInfo) state() string {
	if i.released {
		return stateReleased
	}
	return i.rec.state.String()
}

// freeze keeps the session's record by value and lets go of its engine
// session and fabric (and so of everything the engine keeps for it), once
// the module stops tracking it.
func (s *session) freeze() {
	if s.frozen {
		return
	}
	s.readRecord(&s.rec)
	s.frozen = true
	s.eng = nil
}

// quarantineReason is the label of the session's quarantine, if it has one.
func (s *session) quarantineReason() string {
	if s.fab == nil {
		return ""
	}
	for _, q := range s.fab.f.Quarantines() {
		if q.Owner == s.id {
			return strings.TrimPrefix(q.Label, fmt.Sprintf("session %d: ", s.id))
		}
	}
	return ""
}

// stats reports the session's stats.
func (s *session) stats() SessionStats {
	if s.frozen {
		return s.sessionInfo.stats()
	}
	var r record
	s.readRecord(&r)
	return s.sessionInfo.statsOf(&r, s.state())
}

// stats reports a frozen session's stats.
func (i *sessionInfo) stats() SessionStats { return i.statsOf(&i.rec, i.state()) }

// statsOf reports the stats of the session i describes, whose record is r
// and state state.
func (i *sessionInfo) statsOf(r *record, state string) SessionStats {
	st := SessionStats{
		ID:        i.id,
		Seed:      i.seed,
		State:     state,
		GPUQueue:  i.cfg.GPUQueue.String(),
		Rounds:    i.cfg.Rounds,
		Credits:   i.cfg.Credits,
		SlotBytes: i.cfg.SlotBytes,
		GPU:       DeviceStats{Device: i.gpuName},
		NPU:       DeviceStats{Device: i.npuName},
	}
	if p := i.programs; p != nil {
		st.GPUQueue, st.Programs = p.queue.String(), &Programs{GPU: p.gpu, NPU: p.npu}
	}
	st.SuspectedHang = i.watch.hang
	if r.checked {
		st.Check = &Check{OK: r.checkErr == nil}
		if r.checkErr != nil {
			st.Check.Problem = r.checkErr.Error()
		}
	}
	switch r.decision {
	case oracle.StartupRun:
		st.Decision = "run"
	case oracle.StartupAbort:
		st.Decision = "abort"
	}
	if v := r.verification; r.verified {
		st.Verification = &Verification{OK: v.OK, Rounds: v.Rounds, Verified: v.Verified, Problem: v.Problem}
		st.Bytes = int64(v.Verified) * int64(i.cfg.SlotBytes)
	}
	r.line.fill(&st)
	return st
}

// String is how tostring shows the session.
func (s *session) String() string {
	if p := s.programs; p != nil {
		return fmt.Sprintf("session %d (%s, %s, programs %s and %s)", s.id, s.state(), p.queue, p.gpu, p.npu)
	}
	return fmt.Sprintf("session %d (%s, %s, rounds=%d, credits=%d, slot_bytes=%d)",
		s.id, s.state(), s.cfg.GPUQueue, s.cfg.Rounds, s.cfg.Credits, s.cfg.SlotBytes)
}

// sessionFields get a session's read-only fields, s.<name>, beside its
// methods, by name: those luamodule.SessionFields lists.
var sessionFields = map[string]func(*session) lua.LValue{
	"id":    func(s *session) lua.LValue { return lua.LNumber(s.id) },
	"state": (*session).stateValue,
}

// stateValue is s.state: the session's state name (state).
func (s *session) stateValue() lua.LValue { return nameValue(s.state()) }

// namesAsValues are the names a session's state and close's outcome take,
// made into Lua values once: a string made into a Lua value is an
// allocation, and scripts close sessions by the thousand and may poll
// s.state.
var namesAsValues = makeNamesAsValues()

func makeNamesAsValues() map[string]lua.LValue {
	names := []string{stateReleased, engine.Retired.String(), engine.Quarantined.String()}
	for st := engine.StateUndecided; st <= engine.StateQuarantined; st++ {
		names = append(names, st.String())
	}
	vs := map[string]lua.LValue{}
	for _, name := range names {
		vs[name] = lua.LString(name)
	}
	return vs
}

// nameValue is name as a Lua value: the one made once, for the names in
// namesAsValues.
func nameValue(name string) lua.LValue {
	if v, ok := namesAsValues[name]; ok {
		return v
	}
	return lua.LString(name)
}

// newSessionMeta makes the session userdata's metatable: its fields, and
// its methods, the module functions luamodule marks Method. The
// metamethods change nothing, so they work after Close too.
func (m *Module) newSessionMeta(L *lua.LState) *lua.LTable {
	methods := map[string]lua.LValue{}
	for _, f := range functions {
		if f.Method {
			methods[f.Name] = m.table.RawGetString(f.Name)
		}
	}
	mt := L.NewTable()
	mt.RawSetString("__name", lua.LString("resident.session"))
	// A method, the common case, is found before the fields' map is read.
	mt.RawSetString("__index", L.NewFunction(guard("__index", func(L *lua.LState) int {
		s := m.checkSession(L, 1, "__index")
		key, _ := L.Get(2).(lua.LString)
		if method, ok := methods[string(key)]; ok {
			L.Push(method)
			return 1
		}
		if get, ok := sessionFields[string(key)]; ok {
			L.Push(get(s))
			return 1
		}
		L.Push(lua.LNil)
		return 1
	})))
	mt.RawSetString("__newindex", L.NewFunction(guard("__newindex", func(L *lua.LState) int {
		raiseString(L, "a session's fields are read-only; cannot set '%s'", L.Get(2).String())
		return 0
	})))
	mt.RawSetString("__tostring", L.NewFunction(guard("__tostring", func(L *lua.LState) int {
		L.Push(lua.LString(m.checkSession(L, 1, "__tostring").String()))
		return 1
	})))
	mt.RawSetString("__metatable", lua.LString("resident.session"))
	return mt
}

// checkSession reads argument n as a session.
func (m *Module) checkSession(L *lua.LState, n int, name string) *session {
	if s := m.sessionOf(L.Get(n)); s != nil {
		return s
	}
	typeError(L, n, name, "session")
	return nil
}

// live returns the engine session behind argument 1, raising busy when the
// session is closed.
func (m *Module) live(L *lua.LState, name string) (*session, *engine.Session) {
	s := m.checkSession(L, 1, name)
	return s, m.opened(L, s, name)
}

// opened returns the engine session behind s, raising busy when the
// session is closed.
func (m *Module) opened(L *lua.LState, s *session, name string) *engine.Session {
	if !s.open() {
		m.raise(L, failure.Errorf(failure.Busy, name, "session %d is closed", s.id))
	}
	return s.eng
}

// ctxOf is the context of the host's call the state's code runs under
// (lua51.HostContext), which waits and device programs may use from any
// goroutine.
func ctxOf(L *lua.LState) context.Context {
	return lua51.HostContext(L)
}

// interrupted raises the error of a wait stopped by the state's context
// (Ctrl-C in the command), in words rather than Go's "context canceled".
func interrupted(L *lua.LState, op string, id uint64, err error) {
	why := ""
	if errors.Is(err, context.DeadlineExceeded) {
		why = " (the caller's deadline passed)"
	}
	raiseString(L, "%s on session %d interrupted%s; the session keeps its devices: wait again or close it", op, id, why)
}

// startup makes a session: resident.startup{gpu=, rounds=, credits=,
// slot_bytes=} runs the built-in exchange (gpu its queue kind);
// resident.startup{gpu = PROGRAM, npu = PROGRAM, ...} runs two programs
// (startupPrograms).
func (m *Module) startup(L *lua.LState) int {
	const name = "startup"
	m.reach.Tried++
	if m.reach.FirstError == "" {
		defer m.noteStartupError()
	}
	t := fields(L, 1, name, true, "gpu", "npu", "rounds", "credits", "slot_bytes", "queue", "buffers", "args")
	if gpu, gk := m.asProgram(field(t, "gpu")), m.asKernel(field(t, "gpu")); gpu != nil || gk != nil {
		return m.startupPrograms(L, t, gpu, gk, m.asProgram(field(t, "npu")))
	}
	for _, f := range []string{"npu", "queue", "buffers", "args"} {
		if field(t, f) != lua.LNil {
			argError(L, 1, name, "field '"+f+"' goes with programs: give gpu = PROGRAM and npu = PROGRAM (resident.program), or leave it out for the built-in exchange")
		}
	}
	def := exchange.Default()
	cfg := exchange.Config{
		Rounds:    int(intField(L, 1, name, t, "rounds", int64(def.Rounds))),
		Credits:   int(intField(L, 1, name, t, "credits", int64(def.Credits))),
		SlotBytes: int(m.sizeField(L, 1, name, "startup", t, "slot_bytes", int64(def.SlotBytes))),
	}
	cfg.GPUQueue = m.queueOption(L, name, stringField(L, 1, name, t, "gpu", def.GPUQueue.String()), "gpu")
	if err := cfg.Validate(); err != nil {
		m.raise(L, err)
	}
	fs, gpu, npu := m.sessionDevices(L)
	eng, err := engine.Open(gpu, npu, exchange.Programs(cfg))
	if err != nil {
		m.raise(L, err)
	}
	s := m.newSession(L, eng, fs)
	s.cfg = cfg
	s.watch.noteFaults(fs.f)
	L.Push(&s.ud)
	return 1
}

// noteStartupError, deferred by startup, keeps the error it raises as
// Reach's FirstError, and raises it on.
func (m *Module) noteStartupError() {
	r := recover()
	if r == nil {
		return
	}
	if m.reach.FirstError == "" {
		m.reach.FirstError, _, _ = strings.Cut(ErrorString(r), "\nstack traceback:")
	}
	panic(r)
}

// queueOption reads the GPU program's queue kind, "aql" or "pm4", from the
// field named key.
func (m *Module) queueOption(L *lua.LState, name, queue, key string) devices.Command {
	cmd, err := devices.ParseCommand(queue)
	if err != nil || (cmd != devices.AQL && cmd != devices.PM4) {
		hint := ""
		if lower := strings.ToLower(queue); lower == "aql" || lower == "pm4" {
			hint = fmt.Sprintf(" (queue kinds are lower case: %q)", lower)
		}
		m.invalid(L, name, "%s: the GPU's queue kind must be \"aql\" or \"pm4\", got %q%s", key, queue, hint)
	}
	return cmd
}

// sessionDevices is the current fabric and its first GPU and NPU, for a
// new session, once the state may keep another.
func (m *Module) sessionDevices(L *lua.LState) (*fabricState, *devices.Device, *devices.Device) {
	if len(m.tracked) >= m.opts.MaxOpenSessions {
		m.raise(L, failure.Errorf(failure.Busy, "startup", "%d sessions are open or quarantined, the most this state keeps (Options.MaxOpenSessions); close some with s:close(), and reset the devices of quarantined ones", len(m.tracked)))
	}
	fs, err := m.current()
	if err != nil {
		m.raise(L, err)
	}
	gpu, npu := fs.f.First(devices.GPU), fs.f.First(devices.NPU)
	if gpu == nil || npu == nil {
		m.raise(L, failure.Errorf(failure.Unsupported, "startup", "resident startup requires a GPU and an NPU"))
	}
	return fs, gpu, npu
}

// newSession tracks eng, made on fs, as a session userdata.
func (m *Module) newSession(L *lua.LState, eng *engine.Session, fs *fabricState) *session {
	gpu, npu := eng.GPU().Device(), eng.NPU().Device()
	s := &session{
		sessionInfo: &sessionInfo{
			id: eng.ID(), seed: fs.f.Seed(),
			gpuName: gpu.Name(), npuName: npu.Name(),
		},
		m: m, eng: eng, fab: fs,
	}
	// What L.NewUserData and L.SetMetatable would make, in place.
	s.ud = lua.LUserData{Value: s, Env: L.Env, Metatable: m.sessionMeta}
	m.tracked[s.id] = s
	return s
}

// act makes the module function that calls one of the engine session's
// verbs (SubmitGPU, SubmitNPU, Start, Abort) on argument 1.
func (m *Module) act(name string, verb func(*engine.Session) error) lua.LGFunction {
	return func(L *lua.LState) int {
		_, eng := m.live(L, name)
		if err := verb(eng); err != nil {
			m.raise(L, err)
		}
		return 0
	}
}

func (m *Module) wait(L *lua.LState) int {
	s := m.checkSession(L, 1, "wait")
	d := m.checkSeconds(L, 2, "wait", "wait", "the wait timeout")
	eng := m.opened(L, s, "wait")
	ctx := ctxOf(L)
	ok, err := eng.WaitContext(ctx, d)
	if err == nil && !ok {
		s.watch.gaveUpAfter(d)
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			interrupted(L, "wait", s.id, err)
		}
		m.raise(L, err)
	}
	L.Push(lua.LBool(ok))
	return 1
}

func (m *Module) isComplete(L *lua.LState) int {
	_, eng := m.live(L, "is_complete")
	done, err := eng.IsComplete()
	if err != nil {
		m.raise(L, err)
	}
	L.Push(lua.LBool(done))
	return 1
}

// close is the drop path: s:close([seconds]) returns "retired" or "quarantined".
func (m *Module) close(L *lua.LState) int {
	s := m.checkSession(L, 1, "close")
	d := m.opts.CloseTimeout
	if L.Get(2) != lua.LNil {
		d = m.checkSeconds(L, 2, "close", "close", "the close timeout")
	}
	if s.eng == nil { // the module no longer tracks it
		L.Push(nameValue(s.closedOutcome()))
		return 1
	}
	ctx := ctxOf(L)
	out := s.eng.CloseWithin(ctx, d)
	if out == engine.Retired {
		m.finish(s)
	}
	if out == engine.Quarantined && ctx.Err() == nil {
		m.quarantinedAfter(s, d)
	}
	if out == engine.Quarantined && errors.Is(ctx.Err(), context.Canceled) {
		// The close is done (a quarantine is not undone), but what the
		// caller asked for was interrupted, as a wait's is.
		raiseString(L, "close on session %d interrupted; it is quarantined (%s): reset its devices to release it", s.id, s.quarantineReason())
	}
	L.Push(nameValue(out.String()))
	return 1
}

// closedOutcome names how a session the module no longer tracks ended:
// retired, quarantined, or released.
func (s *session) closedOutcome() string {
	switch {
	case s.released:
		return stateReleased
	case s.rec.state == engine.StateQuarantined:
		return engine.Quarantined.String()
	}
	return engine.Retired.String()
}

func (m *Module) sessionStats(L *lua.LState) int {
	s := m.checkSession(L, 1, "stats")
	L.Push(statsTable(L, s.stats()))
	return 1
}

// statsTable converts stats to the table s:stats() returns.
func statsTable(L *lua.LState, st SessionStats) *lua.LTable {
	t := L.CreateTable(0, 13) // its most keys: a hint of 16 would size the map for 32
	t.RawSetString("id", lua.LNumber(st.ID))
	t.RawSetString("seed", lua.LNumber(st.Seed))
	t.RawSetString("state", lua.LString(st.State))
	t.RawSetString("gpu_queue", lua.LString(st.GPUQueue))
	if st.Programs == nil { // the built-in exchange's shape and payload; programs have their own
		t.RawSetString("rounds", lua.LNumber(st.Rounds))
		t.RawSetString("credits", lua.LNumber(st.Credits))
		t.RawSetString("slot_bytes", lua.LNumber(st.SlotBytes))
		t.RawSetString("bytes", lua.LNumber(st.Bytes))
	}
	if st.Decision != "" {
		t.RawSetString("decision", lua.LString(st.Decision))
	}
	if st.SuspectedHang != "" {
		t.RawSetString("suspected_hang", lua.LString(st.SuspectedHang))
	}
	setTime(t, "decided", st.Decided)
	for _, d := range [...]struct {
		key         string
		DeviceStats // a copy: a pointer into st would move st to the heap
	}{{"gpu", st.GPU}, {"npu", st.NPU}} {
		dt := L.CreateTable(0, 7)
		dt.RawSetString("device", lua.LString(d.Device))
		setTime(dt, "accepted", d.Accepted)
		setTime(dt, "observed", d.Observed)
		setTime(dt, "retired", d.Retired)
		setTime(dt, "kernel_observed", d.KernelObserved)
		setTime(dt, "kernel_retired", d.KernelRetired)
		if d.Error != "" {
			dt.RawSetString("error", lua.LString(d.Error))
		}
		t.RawSetString(d.key, dt)
	}
	if v := st.Verification; v != nil {
		vt := L.CreateTable(0, 4)
		vt.RawSetString("ok", lua.LBool(v.OK))
		vt.RawSetString("rounds", lua.LNumber(v.Rounds))
		vt.RawSetString("verified", lua.LNumber(v.Verified))
		if v.Problem != "" {
			vt.RawSetString("problem", lua.LString(v.Problem))
		}
		t.RawSetString("verification", vt)
	}
	if p := st.Programs; p != nil {
		pt := L.CreateTable(0, 2)
		pt.RawSetString("gpu", lua.LString(p.GPU))
		pt.RawSetString("npu", lua.LString(p.NPU))
		t.RawSetString("programs", pt)
	}
	if c := st.Check; c != nil {
		ct := L.CreateTable(0, 2)
		ct.RawSetString("ok", lua.LBool(c.OK))
		if c.Problem != "" {
			ct.RawSetString("problem", lua.LString(c.Problem))
		}
		t.RawSetString("check", ct)
	}
	return t
}

func setTime(t *lua.LTable, key string, v *float64) {
	if v != nil {
		t.RawSetString(key, lua.LNumber(*v))
	}
}

// sessionEvents returns the session's events still held by its fabric.
func (m *Module) sessionEvents(L *lua.LState) int {
	s := m.checkSession(L, 1, "events")
	out := L.NewTable()
	if s.fab != m.fab { // its fabric was replaced, and its events with it
		L.Push(out)
		return 1
	}
	f := s.fab.f
	for _, e := range f.Events().Events(func(e *event.Event) bool { return e.Session == s.id }) {
		out.Append(eventTable(L, f, e))
	}
	L.Push(out)
	return 1
}

// eventTable converts an event to {seq, time, actor, session, kind, a, b, detail}.
func eventTable(L *lua.LState, f *devices.Fabric, e event.Event) *lua.LTable {
	t := L.CreateTable(0, 8)
	t.RawSetString("seq", lua.LNumber(e.Seq))
	t.RawSetString("time", seconds(e.Time))
	t.RawSetString("actor", lua.LString(f.ActorName(e.Actor)))
	t.RawSetString("session", lua.LNumber(e.Session))
	t.RawSetString("kind", lua.LString(e.Kind))
	t.RawSetString("a", lua.LNumber(e.A))
	t.RawSetString("b", lua.LNumber(e.B))
	t.RawSetString("detail", lua.LString(e.Detail))
	return t
}
