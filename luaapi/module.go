package luaapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"residentlua/devices"
	"residentlua/engine"
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
	// says otherwise: "" or "sim" for the simulated one, "cuda" for a real
	// NVIDIA GPU (which needs the real-time mode).
	GPUBackend string
	// Stdout receives print and reports; default os.Stdout.
	Stdout io.Writer
	// Stderr receives the line naming each fabric's seed and the reports of
	// sessions closed by Close; default os.Stderr.
	Stderr io.Writer
	// Globals also sets the global resident and the six verbs startup,
	// submit_gpu, submit_npu, start, abort and wait.
	Globals bool
	// Sandbox removes os, io, dofile and loadfile from the state, and
	// require of files (require "resident" still works).
	Sandbox bool
	// OnFabric is called with every fabric the module makes or is given,
	// before any session uses it (to subscribe a trace recorder, say).
	OnFabric func(*devices.Fabric)
	// CloseTimeout is how long Close joins each open session before it
	// quarantines it; default engine.DefaultCloseTimeout.
	CloseTimeout time.Duration
}

// Module is the "resident" module opened in one LState. Like the state, it
// is used from one goroutine at a time.
type Module struct {
	opts   Options
	stdout io.Writer
	stderr io.Writer

	table       *lua.LTable // the module table require returns
	sessionMeta *lua.LTable
	errorMeta   *lua.LTable

	fab            *fabricState       // the current fabric, nil until first use
	sessions       []*session         // every session, in creation order
	pastViolations []engine.Violation // found on fabrics since replaced
	closed         bool
}

// fabricState is a fabric with what the module attached to it.
type fabricState struct {
	f      *devices.Fabric
	own    bool // made by the module: it closes the fabric when done with it
	timing string
	oracle *engine.Oracle
	rec    *recorder
}

// verbs are the module functions that are also session methods and, with
// Options.Globals, globals (startup aside, which makes sessions).
var globalVerbs = []string{"startup", "submit_gpu", "submit_npu", "start", "abort", "wait"}

// Open opens the module in L: it preloads "resident" so that require works,
// replaces print so that it writes to Options.Stdout, and applies the
// options. It returns the handle the embedder keeps to read stats and to
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
	if err := ensurePackage(L); err != nil {
		return nil, err
	}
	m.errorMeta = newErrorMeta(L)
	m.table = m.newModuleTable(L)
	m.sessionMeta = m.newSessionMeta(L)
	L.PreloadModule("resident", func(L *lua.LState) int {
		L.Push(m.table)
		return 1
	})
	L.SetGlobal("print", L.NewFunction(m.print))
	if opts.Globals {
		L.SetGlobal("resident", m.table)
		if loaded, ok := L.GetField(L.Get(lua.RegistryIndex), "_LOADED").(*lua.LTable); ok {
			loaded.RawSetString("resident", m.table)
		}
		for _, name := range globalVerbs {
			L.SetGlobal(name, m.table.RawGetString(name))
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

// print is Lua's print, writing to Options.Stdout.
func (m *Module) print(L *lua.LState) int {
	var b strings.Builder
	for i := 1; i <= L.GetTop(); i++ {
		if i > 1 {
			b.WriteByte('\t')
		}
		b.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	b.WriteByte('\n')
	_, _ = io.WriteString(m.stdout, b.String())
	return 0
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
	f, err := newFabric(m.opts.Config, m.opts.GPUBackend)
	if err != nil {
		return nil, err
	}
	return m.adopt(f, true), nil
}

// adopt makes f the current fabric: it reports a fabric it made, attaches
// an oracle and the session recorder, and tells OnFabric.
func (m *Module) adopt(f *devices.Fabric, own bool) *fabricState {
	fs := &fabricState{f: f, own: own, timing: timingLabel(f.Timing())}
	if own {
		fmt.Fprintf(m.stderr, "resident: fabric mode=%s seed=%d timing=%s\n", f.Mode(), f.Seed(), fs.timing)
	}
	fs.oracle = engine.NewOracle(f)
	fs.rec = newRecorder(f)
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
	for _, s := range m.sessions {
		if s.fab == fs {
			s.freeze()
			s.fab = nil
		}
	}
	_ = fs.oracle.CheckSettled()
	m.pastViolations = append(m.pastViolations, fs.oracle.Violations()...)
	fs.oracle.Stop()
	fs.rec.stop()
	if fs.own {
		fs.f.Close()
	}
	m.fab = nil
}

// timingLabel names a timing profile: ideal, published, or custom.
func timingLabel(t devices.Timing) string {
	switch t {
	case devices.IdealTiming():
		return "ideal"
	case devices.PublishedTiming():
		return "published"
	}
	return "custom"
}

// openSessions lists the sessions not yet closed, in creation order.
func (m *Module) openSessions() []*session {
	var open []*session
	for _, s := range m.sessions {
		if s.open() {
			open = append(open, s)
		}
	}
	return open
}

// Stats returns every session's stats, in creation order, including those
// already closed and those of fabrics since replaced.
func (m *Module) Stats() []SessionStats {
	out := make([]SessionStats, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s.stats())
	}
	return out
}

// Violations returns the oracle's violations on every fabric the module has
// used, oldest first. A correct engine has none.
func (m *Module) Violations() []engine.Violation {
	out := append([]engine.Violation(nil), m.pastViolations...)
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
// act (fabric, startup, the verbs, fault, reset) raise a busy error; those
// that read, and Stats, still work. Closing twice does nothing.
func (m *Module) Close() []CloseReport {
	if m.closed {
		return nil
	}
	m.closed = true
	var reports []CloseReport
	for _, s := range m.openSessions() {
		out := s.eng.CloseWithin(context.Background(), m.opts.CloseTimeout)
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
		if fs.own {
			fs.f.Close()
		}
	}
	return reports
}

// errClosed is raised by every module function after Close.
var errClosed = devices.Errorf(devices.KindBusy, "resident", "the resident module is closed")

// afterClose lists the functions that still work after Close: they only
// read (and close is idempotent by then).
var afterClose = map[string]bool{
	"__index": true, "__tostring": true, "__newindex": true, "stats": true, "events": true, "close": true,
	"is_complete": true, "sessions": true, "quarantined": true, "budget": true, "violations": true,
	"now": true, "seed": true, "faults": true,
}

// fn wraps a module function: no Go panic escapes, and nothing that acts
// runs after Close.
func (m *Module) fn(L *lua.LState, name string, f lua.LGFunction) *lua.LFunction {
	return L.NewFunction(guard(name, func(L *lua.LState) int {
		if m.closed && !afterClose[name] {
			m.raise(L, errClosed)
		}
		return f(L)
	}))
}
