package devices

import (
	"testing"
	"time"
)

// Hot paths allocate nothing in steady state: an event emit, and device
// steps of a running exchange.

func TestEmitAllocatesNothing(t *testing.T) {
	f, err := NewFabric(Config{Mode: Simulated, Seed: 1, EventCapacity: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := 0
	cancel := f.Events().Subscribe(func(Event) { seen++ })
	defer cancel()
	emit := func() { f.Events().Emit(HostActor, 1, EvCredit, 2, 3, "") }
	for i := 0; i < 100; i++ { // fill the ring
		emit()
	}
	if n := testing.AllocsPerRun(1000, emit); n != 0 {
		t.Errorf("Emit allocates %v times per call, want 0", n)
	}
	if seen < 1100 {
		t.Errorf("the subscriber saw %d events, want every one", seen)
	}
}

func TestExchangeStepsAllocateNothing(t *testing.T) {
	timing := PublishedTiming()
	f, err := NewFabric(Config{Mode: Simulated, Seed: 1, Timing: timing, EventCapacity: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, _, gdone, _, release := dispatchedExchange(t, f, ExchangeConfig{Rounds: MaxRounds, Credits: 2, SlotBytes: 64, GPUQueue: AQL})
	runExchange(t, line, release)
	f.Advance(2 * time.Millisecond) // past dispatch and into the exchange; fills the ring
	before := f.Events().Count()
	if n := testing.AllocsPerRun(200, func() { f.Advance(20 * time.Microsecond) }); n != 0 {
		t.Errorf("device steps allocate %v times per 20µs of exchange, want 0", n)
	}
	if f.Events().Count() == before || gdone.IsDone() {
		t.Fatalf("the exchange did not make progress while measured (events %d → %d, GPU done %v)", before, f.Events().Count(), gdone.IsDone())
	}
	f.First(GPU).Reset()
	f.First(NPU).Reset()
}
