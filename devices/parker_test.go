package devices

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestParkerLosesNoWakeUp runs many rounds of a parker's handshake between
// two goroutines: in each, the waker stores the round's condition and
// unparks, at a varying moment, while the parker parks until it sees the
// condition. A lost wake-up leaves the parker blocked although the
// condition was stored and unpark called after it: its park then ends only
// by the (generous) deadline, which fails the test. Rounds start at
// different points of the parker's path (before it stores parked, between
// that and its check, while it blocks), by a varying number of yields
// before the waker's store.
func TestParkerLosesNoWakeUp(t *testing.T) {
	const rounds = 20_000
	const deadline = 10 * time.Second
	p := newParker()
	var cond, ack atomic.Int64
	done := make(chan struct{})
	go func() { // the waker
		defer close(done)
		for r := int64(1); r <= rounds; r++ {
			for ack.Load() != r-1 { // the parker finished the last round
				runtime.Gosched()
			}
			for range r % 4 {
				runtime.Gosched()
			}
			cond.Store(r)
			p.unpark()
		}
	}()
	for r := int64(1); r <= rounds; r++ {
		ready := func() bool { return cond.Load() >= r }
		timer := time.NewTimer(deadline)
		for !ready() {
			if end := p.park(ready, timer.C, nil); end == timedOut {
				t.Fatalf("round %d: the park did not end within %v of the waker's store and unpark (condition %d): a wake-up was lost", r, deadline, cond.Load())
			}
		}
		timer.Stop()
		ack.Store(r)
	}
	<-done
}

// A park ends by its timeout or by quit when nobody unparks it, and an
// unpark while nobody is parked leaves nothing that ends a later park.
func TestParkerTimesOutAndQuits(t *testing.T) {
	p := newParker()
	never := func() bool { return false }
	p.unpark() // nobody parked: no token
	if end := p.park(never, time.After(time.Millisecond), nil); end != timedOut {
		t.Fatalf("a park nobody unparked ended with %d, want timedOut (%d)", end, timedOut)
	}
	quit := make(chan struct{})
	close(quit)
	if end := p.park(never, nil, quit); end != quitting {
		t.Fatalf("a park with quit closed ended with %d, want quitting (%d)", end, quitting)
	}
	if end := p.park(func() bool { return true }, nil, nil); end != unparked {
		t.Fatalf("a park whose condition held ended with %d, want unparked (%d)", end, unparked)
	}
	if p.parked.Load() {
		t.Fatal("the parker says it is parked after its parks returned")
	}
}
