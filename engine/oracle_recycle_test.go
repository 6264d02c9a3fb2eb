package engine

import (
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/program"
)

// A recycled oracle comes back from NewOracle with nothing of its last
// fabric: no violation, no session or invocation watched, and it checks
// its new fabric's sessions as a new oracle does.
func TestRecycledOracleStartsAfresh(t *testing.T) {
	reused := false
	for range 10 { // the pool is per processor: the goroutine may move
		f1 := openFabric(t, devices.Config{Mode: devices.Simulated, Seed: oracleSeed})
		o1 := NewOracle(f1)
		s := newSession(t, f1, roundsConfig(1))
		run(t, s)
		forgeEvent(f1, s.ID(), EvDecide, uint64(program.StartupAbort), 0)
		if len(o1.Violations()) == 0 || o1.tracked() == 0 {
			t.Fatal("the first oracle should have a violation and an open session")
		}
		o1.Recycle()
		f1.Close()

		f2 := openFabric(t, devices.Config{Mode: devices.Simulated, Seed: simSeed})
		o2 := NewOracle(f2)
		reused = reused || o2 == o1
		if v := o2.Violations(); len(v) != 0 || o2.tracked() != 0 || o2.fabric != f2 {
			t.Fatalf("a new oracle has %d violations, watches %d things and the fabric %p (want %p)", len(v), o2.tracked(), o2.fabric, f2)
		}
		s2 := newSession(t, f2, roundsConfig(2))
		run(t, s2)
		if out := s2.Close(); out != Retired {
			t.Fatalf("Close = %s, want retired", out)
		}
		wantNoViolations(t, o2)
		o2.Stop()
		f2.Close()
		if reused {
			return
		}
	}
	t.Error("in 10 tries NewOracle never reused a recycled oracle")
}
