package luaapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/internal/luamodule"
	"github.com/residentlua/residentlua/internal/seeds"
	"github.com/residentlua/residentlua/programs/exchange"
)

func TestLifecycle(t *testing.T) {
	h := newHarness(t, Options{}) // no globals: require is the way in
	if v := h.L.GetGlobal("resident"); v != lua.LNil {
		t.Fatalf("global resident is set without Options.Globals: %v", v)
	}
	h.run(`
		local resident = require "resident"
		assert(require "resident" == resident)
		s = resident.startup{gpu = "pm4", rounds = 8, credits = 2, slot_bytes = "1KiB"}
		print(s)
		s:submit_gpu()
		resident.submit_npu(s)
		print(s.state, s:is_complete())
		s:start()
		print(s:wait(1), s.state, resident.is_complete(s))
		print(s:close(), s.state, s)
	`)
	want := "session 1 (undecided, pm4, rounds=8, credits=2, slot_bytes=1024)\n" +
		"undecided\tfalse\n" +
		"true\tretired\ttrue\n" +
		"retired\tclosed\tsession 1 (closed, pm4, rounds=8, credits=2, slot_bytes=1024)\n"
	if got := h.stdout.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if got := h.stderr.String(); got != "resident: fabric mode=sim seed=42 timing=ideal\n" {
		t.Errorf("stderr: %q", got)
	}
	st := h.m.Stats()
	if len(st) != 1 {
		t.Fatalf("Stats: %d sessions, want 1", len(st))
	}
	s := st[0]
	if s.ID != 1 || s.State != "closed" || s.GPUQueue != "pm4" || s.Rounds != 8 || s.Credits != 2 || s.SlotBytes != 1024 ||
		s.Bytes != 8*1024 || s.Decision != "run" || s.Seed != testSeed {
		t.Errorf("stats: %+v", s)
	}
	if s.Verification == nil || !s.Verification.OK || s.Verification.Verified != 8 {
		t.Errorf("verification: %+v", s.Verification)
	}
	for _, d := range []DeviceStats{s.GPU, s.NPU} {
		if d.Accepted == nil || d.Observed == nil || d.Retired == nil || d.Error != "" {
			t.Errorf("device stats: %+v", d)
		}
	}
	if s.Decided == nil {
		t.Error("no decision time")
	}
	if _, err := json.Marshal(st); err != nil {
		t.Error(err)
	}
}

// TestStatsTimeline checks the order of the timestamps under published timing.
func TestStatsTimeline(t *testing.T) {
	h := sim(t)
	h.run(`
		resident.fabric{mode = "sim", seed = 7, timing = "published"}
		local s = startup{rounds = 4, credits = 2}
		s:submit_gpu(); s:submit_npu(); s:start()
		assert(s:wait(1))
		st = s:stats()
	`)
	h.run(`
		local function le(a, b, what) assert(a and b and a <= b, what .. ": " .. tostring(a) .. " > " .. tostring(b)) end
		for _, dev in ipairs{"gpu", "npu"} do
			local d = st[dev]
			le(d.accepted, st.decided, dev .. " accepted before the decision")
			le(st.decided, d.observed, dev .. " observed after the decision")
			le(d.observed, d.retired, dev .. " retired after observing")
		end
		assert(st.npu.observed - st.decided >= 50e-6, "the NPU starts 50 us after its dispatch")
		assert(st.gpu.device == "gpu0" and st.npu.device == "npu0")
		assert(st.decision == "run" and st.bytes == 4 * 64 and st.seed == 7)
		assert(st.verification.ok and st.verification.verified == 4 and st.verification.problem == nil)
	`)
	if !strings.Contains(h.stderr.String(), "resident: fabric mode=sim seed=7 timing=published\n") {
		t.Errorf("stderr: %q", h.stderr.String())
	}
}

func TestEvents(t *testing.T) {
	h := sim(t)
	h.run(`
		local s = startup{}
		s:submit_gpu(); s:submit_npu(); s:start(); s:wait(1); s:close()
		local seen, last = {}, 0
		for i, e in ipairs(s:events()) do
			assert(e.session == s.id, "event of another session")
			assert(e.time >= last, "events out of order"); last = e.time
			assert(type(e.a) == "number" and type(e.b) == "number" and type(e.detail) == "string" and type(e.seq) == "number")
			seen[e.actor .. " " .. e.kind] = (seen[e.actor .. " " .. e.kind] or 0) + 1
		end
		for _, k in ipairs{"host startup", "host submit", "host decide", "host published", "gpu0 dispatch", "npu0 dispatch",
				"gpu0 observe", "npu0 observe", "gpu0 retire", "npu0 retire", "host check", "host close", "host release"} do
			assert(seen[k], "no " .. k .. " event")
		end
		assert(seen["host publication"] == 3, "one publication per PM4, AQL and XDNA family")
	`)
}

func TestPartialAdmission(t *testing.T) {
	h := sim(t)
	h.run(`
		resident.fault("npu.dispatch", "error(queue full)")
		local s = startup{}
		s:submit_gpu()
		local ok, err = pcall(s.submit_npu, s)
		assert(not ok)
		print(err.kind, err.op, err.message)
		print(tostring(err))
		print(s.state, s:stats().decision)
		print(s:wait(1), s:close())
		resident.clear_faults()
		print(next(resident.faults()))
	`)
	want := "device\tdispatch\tnpu0 rejected the dispatch: queue full\n" +
		"device: dispatch: npu0 rejected the dispatch: queue full\n" +
		"aborted\tabort\n" +
		"true\tretired\n" +
		"nil\n"
	if got := h.stdout.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

func TestAbort(t *testing.T) {
	h := sim(t)
	h.run(`
		local s = startup{}
		s:submit_gpu()
		s:abort()
		assert(s.state == "aborted")
		local ok, err = pcall(s.start, s)
		assert(not ok and err.kind == "busy" and err.op == "start", tostring(err))
		assert(s:wait(0.1) == true)
		local st = s:stats()
		assert(st.decision == "abort" and st.bytes == 0 and st.verification == nil and st.npu.accepted == nil)
		assert(st.gpu.observed and st.gpu.retired)
		assert(s:close() == "retired")
	`)
}

func TestQuarantineAndReset(t *testing.T) {
	h := sim(t)
	h.run(`
		resident.fault("gpu.run", "hang")
		local s = startup{rounds = 3}
		s:submit_gpu(); s:submit_npu(); s:start()
		assert(s:wait(0.01) == false, "a hung GPU never retires")
		assert(s.state == "running")
		assert(s:close(0.01) == "quarantined")
		assert(s.state == "quarantined")
		local q = resident.quarantined()
		assert(#q == 1 and q[1].session == s.id and q[1].bytes > 0, "one quarantine")
		assert(q[1].waiting[1] == "gpu0" and q[1].waiting[2] == "npu0")
		assert(q[1].label:find("session " .. s.id .. ": a participant did not retire", 1, true), q[1].label)
		local b = resident.budget()
		assert(b.quarantined == q[1].bytes and b.charged == b.quarantined and b.limit == 2^30)
		local t = startup{}
		local ok, err = pcall(t.submit_gpu, t)
		assert(err.kind == "busy" and err.message == "gpu0 is held by a quarantined session; reset it to free it", tostring(err))
		t:close()
		resident.reset("gpu")
		assert(#resident.quarantined() == 1 and resident.quarantined()[1].waiting[1] == "npu0")
		assert(s.state == "quarantined", "still quarantined while the NPU is held")
		resident.reset("npu0")
		assert(#resident.quarantined() == 0)
		assert(s.state == "released", s.state)
		assert(s:stats().state == "released" and s:close() == "released")
		b = resident.budget()
		assert(b.charged == 0 and b.quarantined == 0)
		local st = s:stats()
		assert(st.gpu.error and st.gpu.error:find("reset"), tostring(st.gpu.error))
		resident.fault("gpu.run", "off")
		local u = startup{}
		u:submit_gpu(); u:submit_npu(); u:start()
		assert(u:wait(1) and u:close() == "retired")
	`)
	if v := h.m.Violations(); len(v) > 0 {
		t.Fatal(v)
	}
	if st := h.m.Stats(); len(st) != 3 || st[0].State != "released" {
		t.Errorf("stats after the release: %+v", st)
	}
}

func TestModuleForgetsFinishedSessions(t *testing.T) {
	// A script may run millions of sessions: the module tracks only those
	// open or quarantined, and keeps the stats of at most StatsLimit others.
	h := newHarness(t, Options{Globals: true, StatsLimit: 10})
	h.run(`
		for i = 1, 500 do
			local s = startup{}
			s:submit_gpu(); s:submit_npu(); s:start(); assert(s:wait(1))
			assert(s:close() == "retired")
		end
		resident.fault("npu.run", "hang")
		q = startup{}; q:submit_gpu(); q:submit_npu(); q:start()
		assert(q:close(0.001) == "quarantined")
		open = startup{}
	`)
	if n := len(h.m.tracked); n != 2 {
		t.Errorf("the module tracks %d sessions, want 2 (one quarantined, one open)", n)
	}
	st := h.m.Stats()
	if len(st) != 12 || st[0].ID >= st[10].ID || st[10].State != "quarantined" || st[11].State != "undecided" {
		t.Errorf("stats: %d entries, want the first 10 finished, then the quarantined and the open one", len(st))
	}
	if h.m.finished.dropped != 490 {
		t.Errorf("%d finished sessions' stats dropped, want 490", h.m.finished.dropped)
	}
	h.run(`resident.reset("gpu"); resident.reset("npu"); assert(q.state == "released"); open:close()`)
	if n := len(h.m.tracked); n != 0 {
		t.Errorf("after the release and the close the module tracks %d sessions", n)
	}
}

func TestOpenSessionsUntilRefused(t *testing.T) {
	// A script that opens sessions in a loop ends with a Lua error that
	// says what to do, and the module goes on working.
	h := newHarness(t, Options{Globals: true, MaxOpenSessions: 300})
	got := h.fails(`for i = 1, 1000 do startup{} end`)
	if got != "busy: startup: 300 sessions are open or quarantined, the most this state keeps (Options.MaxOpenSessions); close some with s:close(), and reset the devices of quarantined ones" {
		t.Errorf("error %q", got)
	}
	h.run(`for _, s in ipairs(resident.sessions()) do s:close() end
		local s = startup{}; s:submit_gpu(); s:submit_npu(); s:start(); assert(s:wait(1) and s:close() == "retired")`)
}

func TestErrorValues(t *testing.T) {
	h := sim(t)
	h.run(`
		local s = startup{}
		s:submit_gpu()
		ok, err = pcall(function() s:submit_gpu() end)
		assert(not ok and type(err) == "table")
		assert(err.kind == "busy" and err.op == "submit_gpu" and err.message == "GPU participant already submitted")
		assert(tostring(err) == "busy: submit_gpu: GPU participant already submitted")
		assert(getmetatable(err).__name == "resident.error")
		-- error() re-raises the same value
		local ok2, err2 = pcall(error, err)
		assert(err2 == err)
	`)
	err := h.L.DoString(`s2 = startup{}; s2:start()`)
	e, ok := ErrorOf(err)
	if !ok || e.Kind != failure.Busy || e.Op != "start" || !errors.Is(e, failure.Busy) {
		t.Fatalf("ErrorOf(%v) = %+v, %v", err, e, ok)
	}
	if got := ErrorString(err); got != "busy: start: both resident participants must be accepted before RUN" {
		t.Errorf("ErrorString: %q", got)
	}
	if got := ErrorString(lua.LString("plain")); got != "plain" {
		t.Errorf("ErrorString of a string: %q", got)
	}
	if _, ok := ErrorOf(lua.LString("x")); ok {
		t.Error("a string is not a protocol error")
	}
}

// TestEveryKindIsALuaErrorValue checks that an error of every kind, Stale
// included, becomes a Lua error value whose tostring is the error's text,
// op or none, and that ErrorOf turns it back into the same error.
func TestEveryKindIsALuaErrorValue(t *testing.T) {
	h := sim(t)
	tostring := h.L.GetGlobal("tostring")
	seen := map[failure.Kind]bool{}
	for k := failure.Unsupported; k.String() != fmt.Sprintf("kind(%d)", uint8(k)); k++ {
		seen[k] = true
		for _, op := range []string{"op", ""} {
			want := failure.Errorf(k, op, "what happened")
			v := h.m.errorValue(h.L, want)
			e, ok := ErrorOf(v)
			if !ok || e.Kind != k || e.Op != op || e.Message != "what happened" || !errors.Is(e, k) {
				t.Errorf("ErrorOf(the error value of a %v error, op %q) = %+v, %v; want the same error", k, op, e, ok)
			}
			if got := ErrorString(v); got != want.Error() {
				t.Errorf("ErrorString(the error value of %q) = %q", want.Error(), got)
			}
			if err := h.L.CallByParam(lua.P{Fn: tostring, NRet: 1, Protect: true}, v); err != nil {
				t.Fatal(err)
			}
			if got := h.L.Get(-1).String(); got != want.Error() {
				t.Errorf("tostring(the error value of %q) = %q", want.Error(), got)
			}
			h.L.Pop(1)
		}
	}
	if !seen[failure.Stale] || !seen[failure.Unsupported] {
		t.Errorf("kinds covered: %v; want every kind, Stale included", seen)
	}
}

func TestCloseInCreationOrder(t *testing.T) {
	h := sim(t)
	h.run(`
		a = startup{}                                            -- undecided: aborted, then retired
		b = startup{credits = 2}; b:close()                       -- closed already: not reported
		resident.fault("npu.run", "hang")
		c = startup{}; c:submit_gpu(); c:submit_npu(); c:start()  -- NPU hangs: quarantined
		d = startup{rounds = 2}                                   -- devices held by c's quarantine at close
	`)
	ids := []uint64{uint64(h.eval("a.id").(lua.LNumber)), uint64(h.eval("c.id").(lua.LNumber)), uint64(h.eval("d.id").(lua.LNumber))}
	h.m.opts.CloseTimeout = 50 * time.Millisecond
	reports := h.m.Close()
	if len(reports) != 3 {
		t.Fatalf("reports: %+v", reports)
	}
	reason := reports[1].Reason
	if !strings.HasPrefix(reason, "a participant did not retire") {
		t.Errorf("quarantine reason %q", reason)
	}
	want := []CloseReport{
		{Session: ids[0], Outcome: "retired"},
		{Session: ids[1], Outcome: "quarantined", Reason: reason},
		{Session: ids[2], Outcome: "retired"},
	}
	for i := range want {
		if reports[i] != want[i] {
			t.Errorf("report %d: %+v, want %+v", i, reports[i], want[i])
		}
	}
	wantErr := "resident: fabric mode=sim seed=42 timing=ideal\n" +
		fmt.Sprintf("resident: closed session %d at exit: retired\n", ids[0]) +
		fmt.Sprintf("resident: closed session %d at exit: quarantined (%s)\n", ids[1], reason) +
		fmt.Sprintf("resident: closed session %d at exit: retired\n", ids[2])
	if got := h.stderr.String(); got != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, wantErr)
	}
	if again := h.m.Close(); again != nil {
		t.Errorf("second Close: %+v", again)
	}
	if got := h.fails(`startup{}`); got != "busy: resident: the resident module is closed" {
		t.Errorf("after Close: %q", got)
	}
	if got := h.fails(`resident.fault("gpu.run", "hang")`); got != "busy: resident: the resident module is closed" {
		t.Errorf("after Close: %q", got)
	}
	h.run(`assert(tostring(a):find("closed") and a.state == "closed" and a:stats().id == a.id and a:close() == "retired")`)
	h.run(`assert(#resident.sessions() == 0 and #resident.violations() == 0 and resident.budget().charged == 0)`)
	if st := h.m.Stats(); len(st) != 4 || st[2].State != "quarantined" || st[3].State != "closed" {
		t.Errorf("stats after Close: %+v", st)
	}
}

// TestContextInterruptsWait cancels the state's context while wait blocks on
// a hung device in real time: the wait must end promptly with an error.
func TestContextInterruptsWait(t *testing.T) {
	h := newHarness(t, Options{Config: devices.Config{Mode: devices.RealTime, Seed: 3}, Globals: true, CloseTimeout: 100 * time.Millisecond})
	h.run(`
		resident.fault("gpu.run", "hang")
		s = startup{}
		s:submit_gpu(); s:submit_npu(); s:start()
	`)
	ctx, cancel := context.WithCancel(context.Background())
	h.L.SetContext(ctx)
	timer := time.AfterFunc(100*time.Millisecond, cancel)
	defer timer.Stop()
	began := time.Now()
	err := h.L.DoString(`return s:wait(60)`)
	took := time.Since(began)
	if err == nil {
		t.Fatal("wait returned without error after the context was cancelled")
	}
	if took > 5*time.Second {
		t.Errorf("wait took %v after a cancel at 100ms", took)
	}
	if !strings.Contains(err.Error(), "wait on session 1 interrupted; the session keeps its devices: wait again or close it") {
		t.Errorf("error: %v", err)
	}
	h.L.RemoveContext()
	h.run(`assert(s.state == "running"); assert(s:close(0.05) == "quarantined")`)
	h.run(`resident.reset("gpu"); resident.reset("npu"); assert(#resident.quarantined() == 0)`)
}

func TestSandbox(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "evil.lua"), []byte("return 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Options{Sandbox: true})
	h.run(`package.path = "` + dir + `/?.lua"`)
	h.run(`
		assert(os == nil and io == nil and dofile == nil and loadfile == nil)
		assert(not pcall(require, "os"))
		assert(not pcall(require, "io"))
		assert(not pcall(require, "evil"), "require of files is gone")
		local resident = require "resident"
		assert(type(resident.startup) == "function")
		assert(string.rep("a", 2) == "aa" and loadstring("return 1")() == 1)
	`)
	// Without the sandbox, files load.
	h2 := newHarness(t, Options{})
	h2.run(`package.path = "` + dir + `/?.lua"; assert(require "evil" == 1); assert(os.time())`)
}

// TestGlobals checks that Options.Globals sets resident and exactly the
// functions whose Function.Global is set.
func TestGlobals(t *testing.T) {
	h := sim(t)
	h.run(`assert(require "resident" == resident)`)
	for _, f := range luamodule.Functions() {
		global, member := h.eval(f.Name), h.eval("resident."+f.Name)
		if f.Global && global != member {
			t.Errorf("global %s is %v, want resident.%s", f.Name, global, f.Name)
		}
		if !f.Global && global != lua.LNil {
			t.Errorf("global %s is %v, want nil: only the functions marked Global are globals", f.Name, global)
		}
	}
}

func TestFabric(t *testing.T) {
	var made []*devices.Fabric
	h := newHarness(t, Options{Config: simConfig(), Globals: true, ReportEveryFabric: true, OnFabric: func(f *devices.Fabric) { made = append(made, f) }})
	h.run(`
		local d = resident.fabric()
		assert(d.mode == "sim" and d.seed == 42 and d.timing == "ideal" and d.devices[1] == "gpu0" and d.devices[2] == "npu0")
		assert(resident.seed() == 42 and resident.now() == 0)
		old = startup{}; old:submit_gpu(); old:submit_npu(); old:start(); assert(old:wait(1)); old:close()
		d = resident.fabric{mode = "sim", seed = 9, timing = {profile = "published", aql_dispatch = 1e-3, pm4_dispatch = "2ms"},
			budget = "64MiB", gpu = {name = "gpuA", queues = {"aql", "pm4"}}, npu = {name = "npuB"}}
		assert(d.seed == 9 and d.timing == "custom" and d.budget == 64 * 2^20)
		assert(d.figures.aql_dispatch == 1e-3 and d.figures.pm4_dispatch == 2e-3 and d.figures.xdna_dispatch == 50e-6)
		assert(d.devices[1] == "gpuA" and d.devices[2] == "npuB")
		assert(resident.budget().limit == 64 * 2^20)
		assert(old.state == "closed" and old:stats().bytes == 64, "stats outlive the fabric")
		assert(#old:events() == 0, "events go with the fabric")
		assert(old:close() == "retired")
		local s = startup{}
		s:submit_gpu(); s:submit_npu(); s:start()
		assert(s:wait(1))
		local st = s:stats()
		assert(st.gpu.device == "gpuA" and st.gpu.observed - st.gpu.accepted >= 1e-3 - 1e-12, "the AQL figure is applied")
		assert(resident.now() > 0)
		s:close()
		resident.fabric{npu = false}
		assert(#resident.fabric().devices == 1)
	`)
	if len(made) != 3 {
		t.Fatalf("OnFabric saw %d fabrics, want 3", len(made))
	}
	// The third fabric gives no seed: it gets the run's third derived seed.
	wantErr := "resident: fabric mode=sim seed=42 timing=ideal\n" +
		"resident: fabric mode=sim seed=9 timing=custom\n" +
		fmt.Sprintf("resident: fabric mode=sim seed=%d timing=ideal\n", seeds.Derive(42, 3))
	if got := h.stderr.String(); got != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, wantErr)
	}
	// The replaced fabrics were closed: no dispatch is accepted on them.
	old, err := engine.Open(made[0].First(devices.GPU), made[0].First(devices.NPU), exchange.Programs(exchange.Default()))
	if err != nil {
		t.Fatal(err)
	}
	if err := old.SubmitGPU(); !errors.Is(err, failure.Busy) {
		t.Errorf("a replaced fabric still accepts dispatches: %v", err)
	}
	old.Close()
	if st := h.m.Stats(); len(st) != 2 || st[0].Seed != 42 || st[1].Seed != 9 {
		t.Errorf("stats: %+v", st)
	}
}

// TestGivenFabric checks that a fabric given in Options is used, reported to
// OnFabric at Open, and not closed by the module.
func TestGivenFabric(t *testing.T) {
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var seen *devices.Fabric
	h := newHarness(t, Options{Fabric: f, OnFabric: func(g *devices.Fabric) { seen = g }})
	if seen != f || h.m.Fabric() != f {
		t.Fatal("the given fabric is not the module's")
	}
	h.run(`local r = require "resident"; assert(r.seed() == 5); local s = r.startup{}; s:submit_gpu(); s:submit_npu(); s:start(); assert(s:wait(1)); s:close()`)
	h.m.Close()
	if h.stderr.String() != "" {
		t.Errorf("a given fabric is not announced: %q", h.stderr.String())
	}
	// Still open: a new exchange runs on it.
	s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(exchange.Default()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SubmitGPU(); err != nil {
		t.Fatalf("the module closed the embedder's fabric: %v", err)
	}
	s.Close()
}

func TestPrintGoesToStdout(t *testing.T) {
	h := sim(t)
	h.run(`print("a", 1, nil, true, setmetatable({}, {__tostring = function() return "T" end}))`)
	if got := h.stdout.String(); got != "a\t1\tnil\ttrue\tT\n" {
		t.Errorf("print: %q", got)
	}
}

func TestSessionsAndViolations(t *testing.T) {
	h := sim(t)
	h.run(`
		local a, b = startup{}, startup{}
		local open = resident.sessions()
		assert(#open == 2 and open[1] == a and open[2] == b)
		a:close()
		assert(#resident.sessions() == 1 and resident.sessions()[1] == b)
		assert(#resident.violations() == 0)
		resident.fault("payload.corrupt", "flip")
		b:submit_gpu(); b:submit_npu(); b:start(); assert(b:wait(1))
		local v = b:stats().verification
		assert(not v.ok and v.problem:find("corrupted"), v.problem)
		assert(#resident.violations() == 0, "a caught corruption is no violation")
		assert(resident.faults()["payload.corrupt"] == "flip")
	`)
}

// TestNoPanicEscapes checks the guard: a Go panic inside a module function
// becomes a Lua error that pcall catches.
func TestNoPanicEscapes(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("boom", L.NewFunction(guard("boom", func(*lua.LState) int { panic("kaboom") })))
	L.SetGlobal("nilmap", L.NewFunction(guard("nilmap", func(*lua.LState) int { var m map[string]int; m["x"] = 1; return 0 })))
	if err := L.DoString(`
		local ok, err = pcall(boom)
		assert(not ok and err:find("resident: internal error in 'boom': kaboom", 1, true), err)
		ok, err = pcall(nilmap)
		assert(not ok and err:find("assignment to entry in nil map", 1, true), err)
		assert(pcall(function() return 1 end))
	`); err != nil {
		t.Fatal(err)
	}
}

func TestCoroutines(t *testing.T) {
	h := sim(t)
	h.run(`
		local co = coroutine.wrap(function()
			local s = startup{}
			s:submit_gpu(); coroutine.yield(s)
			s:submit_npu(); s:start()
			coroutine.yield(s:wait(1))
		end)
		local s = co()
		assert(s.state == "undecided")
		assert(co() == true)
		assert(s:close() == "retired")
	`)
}

// TestRealTime runs a lifecycle on device threads against the wall clock.
func TestRealTime(t *testing.T) {
	h := newHarness(t, Options{Config: devices.Config{Mode: devices.RealTime, Seed: 11}, Globals: true})
	h.run(`
		local s = startup{rounds = 50, credits = 4, slot_bytes = "512"}
		s:submit_gpu(); s:submit_npu(); s:start()
		assert(s:wait(30), "both retired")
		local st = s:stats()
		assert(st.verification.ok and st.bytes == 50 * 512)
		assert(st.gpu.retired >= st.gpu.observed and st.npu.retired >= st.npu.observed and st.npu.observed >= st.decided)
		assert(resident.now() > 0)
		assert(s:close() == "retired")
		assert(resident.fabric().mode == "realtime")
	`)
	if !strings.Contains(h.stderr.String(), "resident: fabric mode=realtime seed=11 timing=ideal") {
		t.Errorf("stderr: %q", h.stderr.String())
	}
}
