package engine

import (
	"errors"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/program"
)

// An oracle renewed with its fabric comes back with nothing of the last
// run: no violation, no session or invocation watched, and it checks the
// renewed fabric's sessions as a new oracle does. What it reported before
// stays as it was, and it never reports the renewed fabric's events as the
// last run's.
func TestRenewedOracleStartsAfresh(t *testing.T) {
	cfg := devices.Config{Mode: devices.Simulated, Seed: oracleSeed}
	f := openFabric(t, cfg)
	o := NewOracle(f)
	defer o.Stop()
	s := newSession(t, f, roundsConfig(1))
	run(t, s)
	forgeEvent(f, s.ID(), EvDecide, uint64(program.StartupAbort), 0)
	if o.tracked() == 0 {
		t.Fatal("the oracle should watch the open session")
	}
	if err := f.Renew(cfg); err != nil {
		t.Fatal(err)
	}
	// The renewed fabric numbers its sessions from 1 again: the same id as s.
	s2 := newSession(t, f, roundsConfig(2))
	if s2.ID() != s.ID() {
		t.Fatalf("the renewed fabric's session is %d, want %d as before", s2.ID(), s.ID())
	}
	before := o.Violations()
	if len(before) != 1 || before[0].Invariant != 1 || before[0].Events != nil {
		t.Fatalf("after the fabric's renewal, the oracle reports %+v; want the one violation of invariant 1, with no events of the renewed fabric", before)
	}
	if out := s2.Close(); out != Retired { // the renewed oracle starts with nothing charged
		t.Fatalf("closing an undecided session: %s, want retired", out)
	}

	if err := o.Renew(); err != nil {
		t.Fatal(err)
	}
	if v := o.Violations(); len(v) != 0 || o.tracked() != 0 {
		t.Fatalf("a renewed oracle has %d violations and watches %d things", len(v), o.tracked())
	}
	s3 := newSession(t, f, roundsConfig(2))
	run(t, s3)
	forgeEvent(f, s3.ID(), EvDecide, uint64(program.StartupRun), 0)
	after := o.Violations()
	if len(after) != 1 || after[0].Session != s3.ID() || len(after[0].Events) == 0 {
		t.Fatalf("the renewed oracle reports %+v; want the forged decision of session %d, with its events", after, s3.ID())
	}
	if len(before) != 1 || before[0].Invariant != 1 || before[0].Events != nil {
		t.Errorf("what the oracle reported before its renewal changed: %+v", before)
	}
	if out := s3.Close(); out != Quarantined && out != Retired {
		t.Fatalf("Close = %s", out)
	}
}

// Renewing an oracle whose fabric was not renewed would watch the fabric
// twice: it is refused, and the oracle goes on as it was.
func TestOracleRenewNeedsARenewedFabric(t *testing.T) {
	f, o := newOracleFabric(t)
	err := o.Renew()
	var e *devices.Error
	if !errors.As(err, &e) || e.Kind != devices.KindBusy {
		t.Fatalf("Renew of an oracle on an unrenewed fabric = %v, want a busy error", err)
	}
	s := newSession(t, f, roundsConfig(1))
	run(t, s)
	forgeEvent(f, s.ID(), EvDecide, uint64(program.StartupAbort), 0)
	if v := o.Violations(); len(v) != 1 || v[0].Invariant != 1 {
		t.Fatalf("after a refused Renew the oracle reports %+v; want one violation of invariant 1, once", v)
	}
}
