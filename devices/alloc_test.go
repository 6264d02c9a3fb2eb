package devices

import "testing"

// Hot paths allocate nothing in steady state: an event emit (the steps of
// a running program are measured in devices/exchange).

func TestEmitAllocatesNothing(t *testing.T) {
	f, err := NewFabric(Config{Mode: Simulated, Seed: 1, EventCapacity: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := 0
	cancel := f.Events().Subscribe(func(Event) { seen++ })
	defer cancel()
	emit := func() { f.Events().Emit(HostActor, 1, EvHostStore, 2, 3, "") }
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
