package devices

import (
	"errors"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices/program"
)

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

// A refused dispatch, which a fault campaign's trials meet by the
// thousand, makes its error without fmt: the error and its text, nothing
// more (formatting it boxed the device's name and the invocation's id too).
func TestRefusedDispatchAllocatesOnlyItsError(t *testing.T) {
	f, err := NewFabric(Config{Mode: Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gpu := f.First(GPU)
	hung(t, gpu)
	again := mmPrepare(t, gpu, AQL, &mmProgram{step: func(program.Env) Next { return program.Retire(nil) }}, 1)
	var refused error
	n := testing.AllocsPerRun(100, func() { _, refused = again.Dispatch() })
	if !errors.Is(refused, ErrBusy) || !strings.Contains(refused.Error(), "is occupied by invocation") {
		t.Fatalf("dispatch on an occupied device returned %v, want the busy error naming the invocation", refused)
	}
	if n > 2 {
		t.Errorf("a refused dispatch allocates %v times, want at most 2 (its error and its text)", n)
	}
}
