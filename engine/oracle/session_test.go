package oracle_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// These tests watch real sessions of the built-in exchange, made by
// package engine, on a simulated fabric.

// oracleSeed seeds the tests' fabrics.
const oracleSeed = 42

// openFabric is a simulated fabric of cfg, closed when the test ends.
func openFabric(t *testing.T, cfg devices.Config) *devices.Fabric {
	t.Helper()
	f, err := devices.NewFabric(cfg)
	if err != nil {
		t.Fatalf("NewFabric(%+v): %v", cfg, err)
	}
	t.Cleanup(f.Close)
	return f
}

// newOracleFabric is a simulated fabric with the default devices and an
// oracle watching it; both end with the test.
func newOracleFabric(t *testing.T) (*devices.Fabric, *oracle.Oracle) {
	t.Helper()
	f := openFabric(t, devices.Config{Mode: devices.Simulated, Seed: oracleSeed})
	o := oracle.New(f)
	t.Cleanup(o.Stop)
	return f, o
}

// newExchangeSession makes a session that runs the built-in exchange with
// cfg on gpu and npu.
func newExchangeSession(gpu, npu *devices.Device, cfg exchange.Config) (*engine.Session, error) {
	return engine.Open(gpu, npu, exchange.Programs(cfg))
}

// newSession makes an exchange session of rounds generations on the
// fabric's GPU and NPU.
func newSession(t *testing.T, f *devices.Fabric, rounds int) *engine.Session {
	t.Helper()
	cfg := exchange.Default()
	cfg.Rounds, cfg.Credits = rounds, 2
	s, err := newExchangeSession(f.First(devices.GPU), f.First(devices.NPU), cfg)
	if err != nil {
		t.Fatalf("opening a session of %d rounds: %v", rounds, err)
	}
	return s
}

// run submits both participants of s, starts it and waits a second for
// both to retire.
func run(t *testing.T, s *engine.Session) {
	t.Helper()
	if err := errors.Join(s.SubmitGPU(), s.SubmitNPU(), s.Start()); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Wait(time.Second); !ok || err != nil {
		t.Fatalf("Wait = %v, %v; want true, nil", ok, err)
	}
}

// setFault installs a fault chain at site.
func setFault(t *testing.T, f *devices.Fabric, site fault.Site, chain string) {
	t.Helper()
	if err := f.Faults().Set(site, chain); err != nil {
		t.Fatalf("Faults().Set(%v, %q): %v", site, chain, err)
	}
}

// forgeDecision emits a decide event for session, as a buggy engine would:
// the stream is the oracle's only input.
func forgeDecision(f *devices.Fabric, session uint64, decision uint32) {
	f.Events().Emit(event.HostActor, session, oracle.EvDecide, uint64(decision), 0, "forged")
}

// wantNoViolations fails the test with every violation the oracle found.
func wantNoViolations(t *testing.T, o *oracle.Oracle) {
	t.Helper()
	for _, v := range o.Violations() {
		t.Errorf("oracle: %v", v)
	}
}

// --- what the oracle keeps

// The oracle forgets a session once it is closed and settled (retired, or
// quarantined and released by reset), and a session that could not be made
// once its line is released: a long-lived oracle's state stays bounded.
// Each round makes a session under one of these faults (none, hung,
// crashed, failed, rejected, unpublished, deaf to ABORT), runs it, closes
// it and resets the devices; or fails to make one.
func TestOracleForgetsEndedSessions(t *testing.T) {
	f, o := newOracleFabric(t)
	gpu, npu := f.First(devices.GPU), f.First(devices.NPU)
	faults := []struct {
		site  fault.Site
		chain string
	}{
		{fault.GPURun, "off"}, {fault.GPURun, "hang"}, {fault.NPURun, "crash"}, {fault.GPUComplete, "error"},
		{fault.NPUDispatch, "error"}, {fault.HostPublish, "error"}, {fault.HostPublish, "2*off->skip"},
		{fault.NPURun, "ignore_abort"}, {fault.MemoryAlloc, "1*off->1*error"},
	}
	for i := range 450 {
		c := faults[i%len(faults)]
		setFault(t, f, c.site, c.chain)
		s, err := newExchangeSession(gpu, npu, exchange.Default())
		if c.site == fault.MemoryAlloc {
			if err == nil {
				t.Fatal("the payload's allocation should have failed")
			}
		} else {
			if err != nil {
				t.Fatal(err)
			}
			_, _ = s.SubmitGPU(), s.SubmitNPU()
			if c.chain == "ignore_abort" {
				_ = s.Abort()
			} else {
				_ = s.Start()
			}
			_, _ = s.Wait(time.Millisecond)
			s.CloseWithin(t.Context(), time.Millisecond)
		}
		f.Faults().Clear()
		gpu.Reset()
		npu.Reset()
		if n := oracle.Tracked(o); n != 0 {
			t.Fatalf("after %d settled sessions (the last under %s=%s) the oracle still tracks %d sessions and invocations", i+1, c.site, c.chain, n)
		}
	}
	wantNoViolations(t, o)
	if err := o.CheckSettled(); err != nil {
		t.Fatal(err)
	}
}

// An oracle renewed with its fabric, as a world renews them, comes back
// with nothing of the last run: no violation, no session or invocation
// watched, and it checks the renewed fabric's sessions as a new oracle
// does. What it reported before stays as it was.
func TestRenewedOracleStartsAfresh(t *testing.T) {
	cfg := devices.Config{Mode: devices.Simulated, Seed: oracleSeed}
	f := openFabric(t, cfg)
	o := oracle.New(f)
	defer o.Stop()
	s := newSession(t, f, 1)
	run(t, s)
	forgeDecision(f, s.ID(), program.StartupAbort)
	if oracle.Tracked(o) == 0 {
		t.Fatal("the oracle should watch the open session")
	}
	before := o.Violations()
	if len(before) != 1 || before[0].Invariant != 1 || len(before[0].Events) == 0 {
		t.Fatalf("the oracle reports %+v; want the one violation of invariant 1, with its events", before)
	}
	events := len(before[0].Events)

	if err := f.Renew(cfg); err != nil {
		t.Fatal(err)
	}
	if err := o.Renew(); err != nil {
		t.Fatal(err)
	}
	if v := o.Violations(); len(v) != 0 || oracle.Tracked(o) != 0 {
		t.Fatalf("a renewed oracle has %d violations and watches %d things", len(v), oracle.Tracked(o))
	}
	// The renewed fabric numbers its sessions from 1 again: the same id as s.
	s2 := newSession(t, f, 2)
	if s2.ID() != s.ID() {
		t.Fatalf("the renewed fabric's session is %d, want %d as before", s2.ID(), s.ID())
	}
	run(t, s2)
	forgeDecision(f, s2.ID(), program.StartupRun)
	after := o.Violations()
	if len(after) != 1 || after[0].Session != s2.ID() || len(after[0].Events) == 0 {
		t.Fatalf("the renewed oracle reports %+v; want the forged decision of session %d, with its events", after, s2.ID())
	}
	if len(before) != 1 || before[0].Invariant != 1 || len(before[0].Events) != events {
		t.Errorf("what the oracle reported before its renewal changed: %+v", before)
	}
	if out := s2.Close(); out != engine.Quarantined && out != engine.Retired {
		t.Fatalf("Close = %s", out)
	}
}

// Renewing an oracle whose fabric has emitted events since its renewal
// (here: never renewed) would lose what they opened and charged: it is
// refused, and the oracle goes on as it was.
func TestOracleRenewNeedsARenewedFabric(t *testing.T) {
	f, o := newOracleFabric(t)
	s := newSession(t, f, 1)
	err := o.Renew()
	var e *failure.Error
	if !errors.As(err, &e) || e.Kind != failure.Busy {
		t.Fatalf("Renew of an oracle on a used fabric = %v, want a busy error", err)
	}
	run(t, s)
	forgeDecision(f, s.ID(), program.StartupAbort)
	if v := o.Violations(); len(v) != 1 || v[0].Invariant != 1 {
		t.Fatalf("after a refused Renew the oracle reports %+v; want one violation of invariant 1, once", v)
	}
}

// A transcript of a real session reads back as the events it was made
// from, and the oracle's verdicts on it are the live oracle's: no
// violation for a clean session.
func TestTranscriptOfARealSession(t *testing.T) {
	f, o := newOracleFabric(t)
	s := newSession(t, f, 2)
	run(t, s)
	if out := s.Close(); out != engine.Retired {
		t.Fatalf("Close = %s, want retired", out)
	}
	var lines []string
	for _, e := range f.Events().Events(nil) {
		line := oracle.FormatEvent(e)
		back, err := oracle.ParseEvent(strings.Fields(line))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if back.Time != e.Time || back.Actor != e.Actor || back.Session != e.Session || back.Kind != e.Kind || back.A != e.A || back.B != e.B || back.Detail != strings.Join(strings.Fields(e.Detail), " ") {
			t.Fatalf("%q reads back as %+v, want %+v", line, back, e)
		}
		lines = append(lines, line)
	}
	wantNoViolations(t, o)
	got, err := oracle.Replay(strings.Join(lines, "\n") + "\nsettle\n")
	if err != nil {
		t.Fatal(err)
	}
	if got != "ok\n" {
		t.Errorf("the transcript of a clean session gets the verdicts\n%s", got)
	}
}
