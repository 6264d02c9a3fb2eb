package exchange

import (
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
)

// The device steps of a running exchange allocate nothing in steady state.
func TestExchangeStepsAllocateNothing(t *testing.T) {
	timing := devices.PublishedTiming()
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1, Timing: timing, EventCapacity: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, _, gdone, _, release := dispatchedExchange(t, f, Config{Rounds: MaxRounds, Credits: 2, SlotBytes: 64, GPUQueue: devices.AQL})
	runExchange(t, line, release)
	f.Advance(2 * time.Millisecond) // past dispatch and into the exchange; fills the ring
	before := f.Events().Count()
	if n := testing.AllocsPerRun(200, func() { f.Advance(20 * time.Microsecond) }); n != 0 {
		t.Errorf("device steps allocate %v times per 20µs of exchange, want 0", n)
	}
	if f.Events().Count() == before || gdone.IsDone() {
		t.Fatalf("the exchange did not make progress while measured (events %d → %d, GPU done %v)", before, f.Events().Count(), gdone.IsDone())
	}
	f.First(devices.GPU).Reset()
	f.First(devices.NPU).Reset()
}
