package luaapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/devices/wait"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/internal/luamodule"
	"github.com/residentlua/residentlua/internal/seeds"
)

// function is one function of the module: what package luamodule says of
// it, and its body.
type function struct {
	luamodule.Function
	body
}

// body is what a module function does: its call, or the engine session's
// verb it calls on its session argument.
type body struct {
	call func(*Module, *lua.LState) int
	verb func(*engine.Session) error
}

// bodies are the bodies of the module's functions, by name.
var bodies = map[string]body{
	"fabric":       {call: (*Module).fabric},
	"seed":         {call: (*Module).seed},
	"now":          {call: (*Module).now},
	"trial":        {call: (*Module).trialFn},
	"check":        {call: (*Module).checkFn},
	"validate":     {call: (*Module).validateFn},
	"program":      {call: (*Module).program},
	"kernel":       {call: (*Module).kernelFn},
	"startup":      {call: (*Module).startup},
	"submit_gpu":   {verb: (*engine.Session).SubmitGPU},
	"submit_npu":   {verb: (*engine.Session).SubmitNPU},
	"start":        {verb: (*engine.Session).Start},
	"abort":        {verb: (*engine.Session).Abort},
	"wait":         {call: (*Module).wait},
	"is_complete":  {call: (*Module).isComplete},
	"close":        {call: (*Module).close},
	"stats":        {call: (*Module).sessionStats},
	"events":       {call: (*Module).sessionEvents},
	"sessions":     {call: (*Module).listSessions},
	"fault":        {call: (*Module).fault},
	"faults":       {call: (*Module).faults},
	"clear_faults": {call: (*Module).clearFaults},
	"reset":        {call: (*Module).reset},
	"quarantined":  {call: (*Module).quarantined},
	"budget":       {call: (*Module).budget},
	"violations":   {call: (*Module).violations},
	"plot":         {call: (*Module).plotFn},
}

// functions is the module's list of functions, in luamodule's order, each
// with its body. Every function luamodule lists has a body here and every
// body a function there, or the package does not start.
var functions = bind(luamodule.Functions(), bodies)

// bind gives each function of list its body.
func bind(list []luamodule.Function, bodies map[string]body) []function {
	fs := make([]function, len(list))
	for i, f := range list {
		b, ok := bodies[f.Name]
		if !ok || (b.call == nil) == (b.verb == nil) {
			panic("luaapi: resident." + f.Name + " has no body, or two")
		}
		fs[i] = function{f, b}
	}
	if len(bodies) != len(list) {
		panic("luaapi: a body of no function luamodule lists")
	}
	return fs
}

// newModuleTable makes the table require "resident" returns.
func (m *Module) newModuleTable(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, len(functions))
	for _, f := range functions {
		t.RawSetString(f.Name, m.fn(L, f))
	}
	return t
}

// currentOrRaise returns the current fabric, raising its construction error.
func (m *Module) currentOrRaise(L *lua.LState) *fabricState {
	fs, err := m.current()
	if err != nil {
		m.raise(L, err)
	}
	return fs
}

// fabric makes a new fabric: resident.fabric{mode=, wait=, seed=, timing=,
// budget=, gpu=, npu=}. Without an argument it describes the current one.
func (m *Module) fabric(L *lua.LState) int {
	const name = "fabric"
	if L.GetTop() == 0 || L.Get(1) == lua.LNil {
		L.Push(m.describe(L, m.currentOrRaise(L)))
		return 1
	}
	if m.fixedFabric != "" {
		m.invalid(L, name, "%s", m.fixedFabric)
	}
	t := fields(L, 1, name, false, "mode", "wait", "seed", "timing", "budget", "gpu", "npu")
	if open := m.openSessions(); len(open) > 0 {
		ids := make([]string, len(open))
		for i, s := range open {
			ids[i] = strconv.FormatUint(s.id, 10)
		}
		m.invalid(L, "fabric", "cannot make a new fabric while sessions are open: %s; close them with s:close() first", strings.Join(ids, ", "))
	}
	cfg, gpuBackend := m.fabricConfig(L, t)
	f, err := m.newFabric(cfg, gpuBackend)
	if err != nil {
		m.raise(L, err)
	}
	m.retire()
	L.Push(m.describe(L, m.adopt(f, true)))
	return 1
}

// fabricConfig reads the options of resident.fabric over Options.Config and
// Options.GPUBackend.
func (m *Module) fabricConfig(L *lua.LState, t *lua.LTable) (cfg devices.Config, gpuBackend string) {
	const name = "fabric"
	cfg, gpuBackend = m.opts.Config, m.opts.GPUBackend
	cfg.Seed = 0 // derived from the run's unless given
	cfg.Devices = append([]devices.DeviceConfig(nil), cfg.Devices...)
	if v := stringField(L, 1, name, t, "mode", ""); v != "" {
		mode, err := devices.ParseMode(v)
		if err != nil {
			m.raise(L, err)
		}
		cfg.Mode = mode
	}
	if v := stringField(L, 1, name, t, "wait", ""); v != "" {
		w, err := wait.Parse(v)
		if err != nil {
			fieldError(L, 1, name, "wait", `"spin", "hybrid" or "block" expected, got "`+v+`"`)
		}
		cfg.Wait = w
	}
	if v := field(t, "seed"); v != lua.LNil {
		seed := intField(L, 1, name, t, "seed", 0)
		if seed < 0 || seed > seeds.Max {
			m.invalid(L, "fabric", "seed must be zero (derive one from the run's) or a whole number from 1 to 2^53-1 (%d), got %d", int64(seeds.Max), seed)
		}
		cfg.Seed = uint64(seed)
	}
	cfg.Timing = m.timingOption(L, field(t, "timing"), cfg.Timing)
	if field(t, "budget") != lua.LNil {
		cfg.Budget = m.sizeField(L, 1, name, "fabric", t, "budget", 0)
		if cfg.Budget == 0 {
			m.invalid(L, "fabric", "budget: a budget of 0 bytes leaves no memory; give a positive size")
		}
	}
	gv, nv := field(t, "gpu"), field(t, "npu")
	if gv == lua.LNil && nv == lua.LNil {
		return cfg, gpuBackend
	}
	base := cfg.Devices
	if base == nil {
		base = devices.DefaultDevices()
	}
	gpu, npu := firstOf(base, devices.GPU), firstOf(base, devices.NPU)
	switch gv := gv.(type) {
	case *lua.LNilType:
	case *lua.LTable:
		gpu = m.deviceOption(L, "gpu", gv, gpu)
		if v := gv.RawGetString("fine_grained"); v != lua.LNil {
			b, ok := v.(lua.LBool)
			if !ok {
				fieldError(L, 1, name, "gpu.fine_grained", "boolean expected, got "+valueTypeName(v))
			}
			cfg.NoFineGrained = !bool(b)
		}
		if v := gv.RawGetString("backend"); v != lua.LNil {
			s, ok := v.(lua.LString)
			if !ok {
				fieldError(L, 1, name, "gpu.backend", "string expected, got "+valueTypeName(v))
			}
			if err := backend.Check(string(s)); err != nil {
				m.raise(L, err)
			}
			gpuBackend = string(s)
			if field(t, "mode") == lua.LNil && gpuBackend != backend.Sim {
				cfg.Mode = devices.RealTime // real hardware runs in real time
			}
		}
	default:
		fieldError(L, 1, name, "gpu", "table expected, got "+valueTypeName(gv))
	}
	switch nv := nv.(type) {
	case *lua.LNilType:
	case lua.LBool:
		if !nv {
			npu = nil
		}
	case *lua.LTable:
		npu = m.deviceOption(L, "npu", nv, npu)
	default:
		fieldError(L, 1, name, "npu", "table or false expected, got "+valueTypeName(nv))
	}
	cfg.Devices = []devices.DeviceConfig{*gpu}
	if npu != nil {
		cfg.Devices = append(cfg.Devices, *npu)
	}
	return cfg, gpuBackend
}

// firstOf returns a copy of the first device of kind k, or the default one.
func firstOf(devs []devices.DeviceConfig, k devices.DeviceKind) *devices.DeviceConfig {
	for _, d := range devs {
		if d.Kind == k {
			d.Families = append([]devices.Command(nil), d.Families...)
			return &d
		}
	}
	for _, d := range devices.DefaultDevices() {
		if d.Kind == k {
			return &d
		}
	}
	return nil
}

// deviceOption reads gpu={queues=, name=, fine_grained=, backend=} or
// npu={queues=, name=}; fabricConfig reads fine_grained and backend.
func (m *Module) deviceOption(L *lua.LState, key string, t *lua.LTable, d *devices.DeviceConfig) *devices.DeviceConfig {
	known := map[string]bool{"queues": true, "name": true}
	if key == "gpu" {
		known["fine_grained"] = true
		known["backend"] = true
	}
	var unknown []string
	t.ForEach(func(k, _ lua.LValue) {
		if ks, ok := k.(lua.LString); !ok || !known[string(ks)] {
			unknown = append(unknown, k.String())
		}
	})
	if len(unknown) > 0 {
		sort.Strings(unknown)
		names := make([]string, 0, len(known))
		for k := range known {
			names = append(names, k)
		}
		sort.Strings(names)
		fieldError(L, 1, "fabric", key, "unknown field '"+unknown[0]+"'; fields are "+strings.Join(names, ", "))
	}
	if v := t.RawGetString("name"); v != lua.LNil {
		s, ok := v.(lua.LString)
		if !ok || s == "" {
			fieldError(L, 1, "fabric", key+".name", "non-empty string expected, got "+valueTypeName(v))
		}
		d.Name = string(s)
	}
	if v := t.RawGetString("queues"); v != lua.LNil {
		qt, ok := v.(*lua.LTable)
		if !ok {
			fieldError(L, 1, "fabric", key+".queues", "table expected, got "+valueTypeName(v))
		}
		d.Families = nil
		for i := 1; i <= qt.Len(); i++ {
			q, ok := qt.RawGetInt(i).(lua.LString)
			if !ok {
				fieldError(L, 1, "fabric", fmt.Sprintf("%s.queues[%d]", key, i), "string expected, got "+valueTypeName(qt.RawGetInt(i)))
			}
			c, err := devices.ParseCommand(string(q))
			if err != nil {
				m.raise(L, err)
			}
			d.Families = append(d.Families, c)
		}
	}
	return d
}

// timingOption reads timing="ideal"|"published"|{profile=, <figure>=seconds...}.
func (m *Module) timingOption(L *lua.LState, v lua.LValue, base program.Timing) program.Timing {
	switch v := v.(type) {
	case *lua.LNilType:
		return base
	case lua.LString:
		t, err := timing.Profile(string(v))
		if err != nil {
			m.raise(L, err)
		}
		return t
	case *lua.LTable:
		t := base
		if p := v.RawGetString("profile"); p != lua.LNil {
			ps, ok := p.(lua.LString)
			if !ok {
				fieldError(L, 1, "fabric", "timing.profile", "string expected, got "+valueTypeName(p))
			}
			var err error
			if t, err = timing.Profile(string(ps)); err != nil {
				m.raise(L, err)
			}
		}
		var keys []string
		v.ForEach(func(k, _ lua.LValue) {
			if ks, ok := k.(lua.LString); ok && ks != "profile" {
				keys = append(keys, string(ks))
			} else if !ok {
				fieldError(L, 1, "fabric", "timing", "keys are figure names, got "+valueTypeName(k))
			}
		})
		sort.Strings(keys)
		for _, k := range keys {
			fig, err := timing.Figure(&t, k)
			if err != nil {
				m.raise(L, err)
			}
			*fig = m.durationOption(L, "timing."+k, v.RawGetString(k))
		}
		return t
	}
	fieldError(L, 1, "fabric", "timing", "string or table expected, got "+valueTypeName(v))
	return base
}

// durationOption reads seconds (a number) or a Go duration string ("5us").
func (m *Module) durationOption(L *lua.LState, key string, v lua.LValue) time.Duration {
	switch v := v.(type) {
	case lua.LNumber:
		d, problem := secondsValue(float64(v), key)
		if problem != "" {
			m.invalid(L, "fabric", "%s", problem)
		}
		return d
	case lua.LString:
		d, err := time.ParseDuration(string(v))
		if err != nil || d < 0 {
			m.invalid(L, "fabric", "%s: %q is not a duration; give seconds as a number or a duration like \"5us\"", key, string(v))
		}
		if d > maxSeconds*time.Second {
			m.invalid(L, "fabric", "%s must be at most 1e9 seconds (about 31 years), got %q", key, string(v))
		}
		return d
	}
	fieldError(L, 1, "fabric", key, "number expected, got "+valueTypeName(v))
	return 0
}

// describe is the table resident.fabric returns.
func (m *Module) describe(L *lua.LState, fs *fabricState) *lua.LTable {
	f := fs.f
	t := L.CreateTable(0, 6)
	t.RawSetString("mode", lua.LString(f.Mode().String()))
	t.RawSetString("wait", lua.LString(f.Wait().String()))
	t.RawSetString("seed", lua.LNumber(f.Seed()))
	t.RawSetString("timing", lua.LString(fs.timing))
	t.RawSetString("budget", lua.LNumber(f.Budget().State().Limit))
	t.RawSetString("gpu", lua.LString(backendOf(f)))
	// Tables made to their size: NewTable's room for 32 entries and 32
	// keys was most of what a campaign's script trial allocated.
	devs := L.CreateTable(len(f.Devices()), 0)
	for _, d := range f.Devices() {
		devs.Append(lua.LString(d.Name()))
	}
	t.RawSetString("devices", devs)
	figs := L.CreateTable(0, len(program.TimingFigures))
	tm := f.Timing()
	for _, name := range program.TimingFigures {
		d, _ := tm.Figure(name)
		figs.RawSetString(name, seconds(*d))
	}
	t.RawSetString("figures", figs)
	return t
}

// listSessions returns the open sessions, oldest first.
func (m *Module) listSessions(L *lua.LState) int {
	t := L.NewTable()
	for _, s := range m.openSessions() {
		t.Append(&s.ud)
	}
	L.Push(t)
	return 1
}

// fault sets a fault site's chain: resident.fault(site, term); "off" clears it.
func (m *Module) fault(L *lua.LState) int {
	siteName := checkString(L, 1, "fault")
	term := checkString(L, 2, "fault")
	site, err := fault.ParseSite(siteName)
	if err != nil {
		m.invalid(L, "fault", "%s", err.Error())
	}
	f := m.currentOrRaise(L).f
	if term != "off" {
		if err := f.CheckFault(site); err != nil {
			m.raise(L, err)
		}
	}
	if err := f.Faults().Set(site, term); err != nil {
		m.invalid(L, "fault", "%s", err.Error())
	}
	if term != "off" {
		m.markFaulted(m.fab)
	}
	return 0
}

// faults returns the configured sites: {[site] = term}.
func (m *Module) faults(L *lua.LState) int {
	t := L.NewTable()
	for _, s := range m.currentOrRaise(L).f.Faults().Settings() {
		t.RawSetString(s.Site.String(), lua.LString(s.Term))
	}
	L.Push(t)
	return 1
}

func (m *Module) clearFaults(L *lua.LState) int {
	m.currentOrRaise(L).f.Faults().Clear()
	return 0
}

// reset resets a device: "gpu" and "npu" name the first of their kind.
func (m *Module) reset(L *lua.LState) int {
	name := checkString(L, 1, "reset")
	f := m.currentOrRaise(L).f
	var d *devices.Device
	switch name {
	case "gpu":
		d = f.First(devices.GPU)
	case "npu":
		d = f.First(devices.NPU)
	}
	if d == nil {
		var err error
		if d, err = f.Device(name); err != nil {
			names := make([]string, 0, 4)
			for _, dev := range f.Devices() {
				names = append(names, dev.Name())
			}
			m.invalid(L, "reset", "no device %q on this fabric; give \"gpu\", \"npu\" or one of %s", name, strings.Join(names, ", "))
		}
	}
	d.Reset()
	m.releaseQuarantines(m.fab)
	return 0
}

// quarantined lists the quarantines in force.
func (m *Module) quarantined(L *lua.LState) int {
	t := L.NewTable()
	for _, q := range m.currentOrRaise(L).f.Quarantines() {
		qt := L.CreateTable(0, 5)
		qt.RawSetString("session", lua.LNumber(q.Owner))
		qt.RawSetString("label", lua.LString(q.Label))
		qt.RawSetString("since", seconds(q.Since))
		qt.RawSetString("bytes", lua.LNumber(q.Bytes))
		w := L.NewTable()
		for _, name := range q.Waiting {
			w.Append(lua.LString(name))
		}
		qt.RawSetString("waiting", w)
		t.Append(qt)
	}
	L.Push(t)
	return 1
}

func (m *Module) budget(L *lua.LState) int {
	st := m.currentOrRaise(L).f.Budget().State()
	t := L.CreateTable(0, 3)
	t.RawSetString("limit", lua.LNumber(st.Limit))
	t.RawSetString("charged", lua.LNumber(st.Charged))
	t.RawSetString("quarantined", lua.LNumber(st.Quarantined))
	L.Push(t)
	return 1
}

func (m *Module) violations(L *lua.LState) int {
	m.currentOrRaise(L)
	t := L.NewTable()
	for _, v := range m.Violations() {
		vt := L.CreateTable(0, 4)
		vt.RawSetString("invariant", lua.LNumber(v.Invariant))
		vt.RawSetString("session", lua.LNumber(v.Session))
		vt.RawSetString("message", lua.LString(v.Message))
		vt.RawSetString("events", lua.LNumber(len(v.Events)))
		t.Append(vt)
	}
	L.Push(t)
	return 1
}

func (m *Module) now(L *lua.LState) int {
	L.Push(seconds(m.currentOrRaise(L).f.Now()))
	return 1
}

func (m *Module) seed(L *lua.LState) int {
	L.Push(lua.LNumber(m.currentOrRaise(L).f.Seed()))
	return 1
}
