package luaapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/campaign/trial"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/devices/wait"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/internal/seeds"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaprogram"
)

// Options configure Open.
type Options struct {
	// Fabric is the fabric to use; nil: a default one is made on first use
	// from Config. The module attaches an oracle to it but never closes it:
	// it belongs to the caller.
	Fabric *devices.Fabric
	// Config is the base of every fabric the module makes: the default one
	// (real time, ideal timing, one GPU and one NPU, a chosen seed when zero)
	// and the fields a script leaves out of resident.fabric{...}.
	Config devices.Config
	// GPUBackend is the GPU of every fabric the module makes unless a script
	// says otherwise: "" or "sim" for the simulated one, or the name of a
	// hardware backend the program links (devices.NewFabricWith), such as
	// "cuda" for a real NVIDIA GPU, which a blank import of backends/cuda
	// registers (real time only).
	GPUBackend string
	// Stdout receives print and reports; default os.Stdout.
	Stdout io.Writer
	// Stderr receives the line naming each fabric's seed and the reports of
	// sessions closed by Close; default os.Stderr.
	Stderr io.Writer
	// Globals also sets the global resident and, as globals, startup and
	// the verbs that drive a session (submit_gpu, submit_npu, start, abort
	// and wait).
	Globals bool
	// Sandbox removes os, io, dofile and loadfile from the state, and
	// require of files (require "resident" still works).
	Sandbox bool
	// ScriptDir is the folder of the script the module runs, when it runs
	// one from a file: a relative file of resident.program{file =} is
	// looked for there first, then in the working directory, so that a
	// script that names its programs beside it runs from any folder.
	ScriptDir string
	// OnFabric is called with every fabric the module makes or is given,
	// before any session uses it (to subscribe a trace recorder, say).
	OnFabric func(*devices.Fabric)
	// CloseTimeout is how long Close joins each open session before it
	// quarantines it; default engine.DefaultCloseTimeout.
	CloseTimeout time.Duration
	// ReportEveryFabric writes the line naming a fabric's mode, seed and
	// timing for every fabric the module makes; otherwise only for the
	// first, whose seed is the run's.
	ReportEveryFabric bool
	// MaxOpenSessions bounds the sessions open (or closed but still
	// quarantined) at once: startup beyond it is a busy error. Each costs a
	// few kilobytes of the process's memory whatever the fabric's budget
	// says, so the bound keeps a script that opens sessions in a loop from
	// exhausting it. 0 means 100,000.
	MaxOpenSessions int
	// StatsLimit is how many finished sessions' stats Stats keeps, oldest
	// first (0 means 100,000; negative: none). The module forgets a
	// session once it is closed and released; only this record stays.
	StatsLimit int
	// SimulatedOnly refuses every fabric that would not run in simulated
	// time (mode "realtime", or a hardware GPU backend): for states whose
	// results must follow from their seeds alone, such as a campaign's
	// trials.
	SimulatedOnly bool
	// OnRead, when set, is called with each file a program or a kernel is
	// read from (resident.program{file = ...}, resident.kernel{ptx = ...}),
	// by the path the script gave, and its bytes: a campaign records
	// their digests, so that shards that read different files do not merge.
	OnRead func(path string, content []byte)

	// onOperation, when set, is called after each call of a module
	// function that acts on the fabric or on a session (startup, the
	// verbs, wait, close, fault, clear_faults, reset, fabric), whether it
	// returned or raised, with the call in words: a check scenario's runs
	// record their operations with it.
	onOperation func(operation)
}

// defaultMaxOpenSessions is Options.MaxOpenSessions when it is 0.
const defaultMaxOpenSessions = 100_000

// defaultStatsLimit is Options.StatsLimit when it is 0.
const defaultStatsLimit = 100_000

// Module is the "resident" module opened in one LState. Like the state, it
// is used from one goroutine at a time.
type Module struct {
	opts   Options
	stdout io.Writer
	stderr io.Writer

	table       *lua.LTable // the module table require returns
	sessionMeta *lua.LTable
	errorMeta   *lua.LTable
	programMeta *lua.LTable
	kernelMeta  *lua.LTable

	programs     map[string]*luaprogram.Program // compiled by resident.program, by their text
	programOrder []string                       // the keys of programs, the one used last last
	shapes       map[shapedPair]*exchangeShapes // the pairs resident.trial ran, with their shapes
	trials       *trial.World                   // where resident.trial runs, renewed for each; nil until the first

	fab            *fabricState        // the current fabric, nil until first use
	runSeed        uint64              // Config.Seed, or one chosen at Open: the seed of the run
	fabricsMade    uint64              // how many fabrics the module made
	tracked        map[uint64]*session // open sessions, and closed ones whose quarantine is not yet released
	finished       finishedStats       // the stats of sessions the module no longer tracks
	pastViolations []oracle.Violation  // found on fabrics since replaced
	reach          Reach               // how far the sessions no longer tracked came, since Open or Restart
	fixedFabric    string              // why resident.fabric{...} may not replace the fabric, or ""
	closed         bool
}

// finishedStats keeps what the stats of finished sessions (closed and
// released, or quarantined on a fabric since replaced) are made of, for
// Stats, oldest first, up to a limit: a script may run millions of
// sessions. Their stats are made when Stats asks, not as each finishes.
type finishedStats struct {
	limit   int // the most kept; negative: none
	kept    []*sessionInfo
	dropped int // finished beyond the limit
}

// add keeps frozen session s if the limit allows.
func (f *finishedStats) add(s *session) {
	if len(f.kept) < f.limit {
		f.kept = append(f.kept, s.sessionInfo)
		return
	}
	f.dropped++
}

// fabricState is a fabric with what the module attached to it.
type fabricState struct {
	f      *devices.Fabric
	own    bool // made by the module: it closes the fabric when done with it
	timing string
	oracle *oracle.Oracle
}

// Open opens the module in L: it gives the state Lua 5.1's behaviour
// (lua51.Install, with math.random seeded with the run's seed unless the
// state was made by lua51.NewState, whose seed stands), makes print write
// to Options.Stdout, preloads "resident" so that require works, and applies
// the options. It returns the handle the embedder keeps to read stats and to
// close open sessions when the state ends.
func Open(L *lua.LState, opts Options) (*Module, error) {
	if L == nil {
		return nil, errors.New("luaapi: Open needs a Lua state")
	}
	m := &Module{opts: opts, stdout: opts.Stdout, stderr: opts.Stderr}
	if m.stdout == nil {
		m.stdout = os.Stdout
	}
	if m.stderr == nil {
		m.stderr = os.Stderr
	}
	if m.opts.CloseTimeout <= 0 {
		m.opts.CloseTimeout = engine.DefaultCloseTimeout
	}
	m.tracked = map[uint64]*session{}
	if m.opts.MaxOpenSessions <= 0 {
		m.opts.MaxOpenSessions = defaultMaxOpenSessions
	}
	m.runSeed = opts.Config.Seed
	if m.runSeed == 0 {
		m.runSeed = seeds.Choose()
	} else if m.runSeed > seeds.Max {
		return nil, fmt.Errorf("luaapi: seed %d is above %d, the largest a Lua number holds exactly", m.runSeed, uint64(seeds.Max))
	}
	m.finished.limit = opts.StatsLimit
	if m.finished.limit == 0 {
		m.finished.limit = defaultStatsLimit
	}
	if err := ensurePackage(L); err != nil {
		return nil, err
	}
	m.errorMeta = newErrorMeta(L)
	m.table = m.newModuleTable(L)
	m.sessionMeta = m.newSessionMeta(L)
	m.programMeta = m.newProgramMeta(L)
	m.kernelMeta = m.newKernelMeta(L)
	L.PreloadModule("resident", func(L *lua.LState) int {
		L.Push(m.table)
		return 1
	})
	// A state made by lua51.NewState has its fixes, and keeps the seed and
	// output it was made with; print writes to Options.Stdout either way.
	lua51.Install(L, lua51.Options{Seed: int64(m.runSeed), Stdout: m.stdout})
	L.SetGlobal("print", L.NewFunction(lua51.NewPrint(m.stdout)))
	if opts.Globals {
		L.SetGlobal("resident", m.table)
		if loaded, ok := L.GetField(L.Get(lua.RegistryIndex), "_LOADED").(*lua.LTable); ok {
			loaded.RawSetString("resident", m.table)
		}
		for _, f := range functions {
			if f.Global {
				L.SetGlobal(f.Name, m.table.RawGetString(f.Name))
			}
		}
	}
	if opts.Sandbox {
		sandbox(L)
	}
	if opts.Fabric != nil {
		m.adopt(opts.Fabric, false)
	}
	return m, nil
}

// ensurePackage opens the package library when the state was made without it.
func ensurePackage(L *lua.LState) error {
	if pkg, ok := L.GetGlobal("package").(*lua.LTable); ok {
		if _, ok := pkg.RawGetString("preload").(*lua.LTable); ok {
			return nil
		}
	}
	err := L.CallByParam(lua.P{Fn: L.NewFunction(lua.OpenPackage), NRet: 0, Protect: true}, lua.LString(lua.LoadLibName))
	if err != nil {
		return fmt.Errorf("luaapi: opening the package library: %w", err)
	}
	return nil
}

// sandbox removes what reaches the file system and the process.
func sandbox(L *lua.LState) {
	for _, name := range []string{"os", "io", "dofile", "loadfile"} {
		L.SetGlobal(name, lua.LNil)
	}
	reg := L.Get(lua.RegistryIndex)
	if loaded, ok := L.GetField(reg, "_LOADED").(*lua.LTable); ok {
		loaded.RawSetString("os", lua.LNil)
		loaded.RawSetString("io", lua.LNil)
	}
	// Keep only the preload loader: require of files is gone.
	if loaders, ok := L.GetField(reg, "_LOADERS").(*lua.LTable); ok {
		for i := loaders.Len(); i > 1; i-- {
			loaders.RawSetInt(i, lua.LNil)
		}
	}
	if pkg, ok := L.GetGlobal("package").(*lua.LTable); ok {
		pkg.RawSetString("loadlib", lua.LNil)
		pkg.RawSetString("path", lua.LString(""))
		pkg.RawSetString("cpath", lua.LString(""))
	}
}

// Fabric is the current fabric; it makes the default one if none exists yet.
func (m *Module) Fabric() *devices.Fabric {
	fs, err := m.current()
	if err != nil {
		return nil
	}
	return fs.f
}

// current returns the current fabric, making the default one first.
func (m *Module) current() (*fabricState, error) {
	if m.fab != nil {
		return m.fab, nil
	}
	if m.closed {
		return nil, errClosed
	}
	cfg := m.opts.Config
	cfg.Seed = 0 // derived from the run's
	f, err := m.newFabric(cfg, m.opts.GPUBackend)
	if err != nil {
		return nil, err
	}
	return m.adopt(f, true), nil
}

// newFabric makes the module's next fabric from cfg, with the next derived
// seed when cfg has none.
func (m *Module) newFabric(cfg devices.Config, gpuBackend string) (*devices.Fabric, error) {
	if m.opts.SimulatedOnly && (cfg.Mode != devices.Simulated || (gpuBackend != "" && gpuBackend != backend.Sim)) {
		return nil, failure.Errorf(failure.Invalid, "fabric", "only a simulated fabric can be made here: its results must follow from its seed; leave out mode = \"realtime\" and a hardware gpu.backend")
	}
	m.fabricsMade++
	if cfg.Seed == 0 {
		cfg.Seed = seeds.Derive(m.runSeed, m.fabricsMade)
	}
	f, err := devices.NewFabricWith(cfg, gpuBackend)
	if err != nil {
		m.fabricsMade--
	}
	return f, err
}

// adopt makes f the current fabric: it reports a fabric it made, attaches
// an oracle, and tells OnFabric.
func (m *Module) adopt(f *devices.Fabric, own bool) *fabricState {
	fs := &fabricState{f: f, own: own, timing: timingLabel(f.Timing())}
	if own && (m.fabricsMade == 1 || m.opts.ReportEveryFabric) {
		policy := "" // the default policy, and any policy in simulated time, go unsaid
		if f.Mode() == devices.RealTime && f.Wait() != wait.Hybrid {
			policy = " wait=" + f.Wait().String()
		}
		fmt.Fprintf(m.stderr, "resident: fabric mode=%s seed=%d timing=%s%s\n", f.Mode(), f.Seed(), fs.timing, policy)
	}
	fs.oracle = oracle.New(f)
	// Every session the module watches owes the protocol's obligations of programs: a
	// fault-free session decided once retires within a close's default
	// join (invariant 15), after ABORT as after RUN, so a program that
	// polls for ever is a violation, not a quiet quarantine.
	fs.oracle.Liveness(engine.DefaultCloseTimeout)
	m.fab = fs
	if m.opts.OnFabric != nil {
		m.opts.OnFabric(f)
	}
	return fs
}

// retire lets go of the current fabric: the stats of its sessions are kept,
// its violations remembered, and a fabric the module made is closed.
func (m *Module) retire() {
	fs := m.fab
	if fs == nil {
		return
	}
	for _, s := range m.trackedSessions() { // all closed: fabric{} refuses while any is open
		m.finish(s)
	}
	_ = fs.oracle.CheckSettled()
	m.pastViolations = append(m.pastViolations, fs.oracle.Violations()...)
	fs.oracle.Stop()
	if fs.own {
		fs.f.Close()
	}
	m.fab = nil
}

// timingLabel names a timing profile: ideal, published, or custom.
func timingLabel(t program.Timing) string {
	switch t {
	case timing.Ideal():
		return "ideal"
	case timing.Published():
		return "published"
	}
	return "custom"
}

// trackedSessions lists the sessions the module tracks, in creation order.
func (m *Module) trackedSessions() []*session {
	out := make([]*session, 0, len(m.tracked))
	for _, s := range m.tracked {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *session) int { return cmp.Compare(a.id, b.id) })
	return out
}

// openSessions lists the sessions not yet closed, in creation order.
func (m *Module) openSessions() []*session {
	return slices.DeleteFunc(m.trackedSessions(), func(s *session) bool { return !s.open() })
}

// OpenSessionIDs lists the sessions not yet closed, in creation order:
// those Close will join.
func (m *Module) OpenSessionIDs() []uint64 {
	var ids []uint64
	for _, s := range m.openSessions() {
		ids = append(ids, s.id)
	}
	return ids
}

// CloseTimeout is how long Close joins each open session.
func (m *Module) CloseTimeout() time.Duration { return m.opts.CloseTimeout }

// finish stops tracking s, keeping its stats if the limit allows: it is
// closed and released, or quarantined on a fabric being replaced or closed.
func (m *Module) finish(s *session) {
	s.freeze()
	delete(m.tracked, s.id)
	m.finished.add(s)
	m.reach.count(s.rec.decision, s.rec.state)
}

// Reach is how far the sessions of a run came: how many startup tried to
// make, how many it made, how many were decided RUN and how many of those
// retired, and the first error startup raised. A campaign counts with it
// the trials that reached the programs, and a run that reached none proved
// nothing of them.
type Reach struct {
	Tried, Made, Decided, Retired int
	// FirstError is the first error resident.startup raised, as a person
	// reads it (a program's buffers function that failed, say) without
	// its traceback; empty when none did.
	FirstError string
}

// count counts a session made, whose decision and state are these.
func (r *Reach) count(decision oracle.Decision, state engine.State) {
	r.Made++
	if decision != oracle.StartupRun {
		return
	}
	r.Decided++
	if state == engine.StateRetired || state == engine.StateClosed {
		r.Retired++
	}
}

// Reach is how far the sessions made since Open (or the last Restart)
// came, those still open as they stand now.
func (m *Module) Reach() Reach {
	r := m.reach
	for _, s := range m.tracked {
		if s.eng != nil {
			r.count(s.eng.Decision(), s.eng.State())
		}
	}
	return r
}

// releaseQuarantines finishes the tracked sessions whose quarantine a reset
// has released: their memory is unmapped and their devices free.
func (m *Module) releaseQuarantines(fs *fabricState) {
	held := map[uint64]bool{}
	for _, q := range fs.f.Quarantines() {
		held[q.Owner] = true
	}
	for _, s := range m.trackedSessions() {
		if s.fab == fs && !s.open() && !held[s.id] {
			s.released = true
			m.finish(s)
		}
	}
}

// Stats returns the stats of the sessions the module tracks and of those
// finished that Options.StatsLimit lets it keep, in creation order.
func (m *Module) Stats() []SessionStats {
	out := make([]SessionStats, 0, len(m.finished.kept)+len(m.tracked))
	for _, info := range m.finished.kept {
		out = append(out, info.stats())
	}
	for _, s := range m.trackedSessions() {
		out = append(out, s.stats())
	}
	slices.SortStableFunc(out, func(a, b SessionStats) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Violations returns the oracle's violations on every fabric the module has
// used, oldest first. A correct engine has none.
func (m *Module) Violations() []oracle.Violation {
	out := append([]oracle.Violation(nil), m.pastViolations...)
	if m.fab != nil {
		out = append(out, m.fab.oracle.Violations()...)
	}
	return out
}

// CloseReport says how a session that was still open at Close ended.
type CloseReport struct {
	Session uint64 `json:"session"`
	Outcome string `json:"outcome"`          // "retired" or "quarantined"
	Reason  string `json:"reason,omitempty"` // why it was quarantined
}

// Close closes the sessions still open, in creation order, joining each for
// up to Options.CloseTimeout, and writes one line per session to Stderr. It
// then closes the fabric if the module made it. Afterwards the functions that
// act (fabric, startup, the verbs, fault, clear_faults, reset, ...) raise
// a busy error; those that read, and
// Stats, still work. Closing twice does nothing.
func (m *Module) Close() []CloseReport { return m.CloseContext(context.Background()) }

// CloseContext is Close whose joins end when ctx is done: the sessions not
// yet retired are then quarantined at once (a command's Ctrl-C).
func (m *Module) CloseContext(ctx context.Context) []CloseReport {
	if m.closed {
		return nil
	}
	m.closed = true
	var reports []CloseReport
	for _, s := range m.openSessions() {
		out := s.eng.CloseWithin(ctx, m.opts.CloseTimeout)
		if out == engine.Quarantined && ctx.Err() == nil {
			m.quarantinedAfter(s, m.opts.CloseTimeout)
		}
		r := CloseReport{Session: s.id, Outcome: out.String()}
		line := fmt.Sprintf("resident: closed session %d at exit: %s", s.id, out)
		if out == engine.Quarantined {
			r.Reason = s.quarantineReason()
			line += " (" + r.Reason + ")"
		}
		fmt.Fprintln(m.stderr, line)
		reports = append(reports, r)
	}
	if fs := m.fab; fs != nil {
		_ = fs.oracle.CheckSettled()
		for _, s := range m.trackedSessions() {
			m.finish(s)
		}
		if fs.own {
			fs.f.Close()
		}
	}
	if m.trials != nil {
		m.trials.Close()
	}
	for _, p := range m.programs {
		p.Close()
	}
	return reports
}

// errClosed is raised by every module function after Close.
var errClosed = failure.Errorf(failure.Busy, "resident", "the resident module is closed")

// fn makes f's Lua function: no Go panic escapes it, and unless
// f.AfterClose it raises a busy error after Close.
func (m *Module) fn(L *lua.LState, f function) *lua.LFunction {
	body := func(L *lua.LState) int { return f.call(m, L) }
	if f.verb != nil {
		body = m.act(f.Name, f.verb)
	}
	fn := guard(f.Name, func(L *lua.LState) int {
		if m.closed && !f.AfterClose {
			m.raise(L, errClosed)
		}
		return body(L)
	})
	if m.opts.onOperation != nil && operations[f.Name] {
		fn = m.observed(f.Name, fn)
	}
	return L.NewFunction(fn)
}
