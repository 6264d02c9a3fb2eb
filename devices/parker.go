package devices

import (
	"sync/atomic"
	"time"
)

// parker blocks a real-time device's thread until another thread says that
// what it waits for may have happened (unpark), a timeout passes, or the
// executor quits.
//
// Why no wake-up is lost. What a device waits for is a condition that
// other threads make true with an atomic store: a word of memory changes,
// an invocation is stopped. The parking thread first stores parked, then
// loads the condition (park's ready), and blocks only when it does not hold
// yet. The waking thread first stores the condition, then loads parked
// (unpark), and sends a token on wake when it is set. Go's atomic
// operations are sequentially consistent: all four fall in one order that
// each thread's program order respects, so either the parker's load of the
// condition comes after the waker's store of it (the parker sees it and does
// not block), or the waker's load of parked comes after the parker's store
// (the waker sends a token, which the blocked parker receives). wake holds
// one token, so unpark never blocks, and a token already there wakes the
// parker just the same. A token left from an earlier park, sent after that
// park had returned, ends the next park early: park's caller checks its
// condition again, so a stale token costs a round of its loop, never a
// wrong answer.
//
// So a waker must store its condition, with an atomic store (or one ordered
// before an atomic store, as memory.Region's are), before it calls unpark,
// and park's ready must load it with an atomic load. One thread parks a
// parker; any number may unpark it.
type parker struct {
	parked atomic.Bool
	wake   chan struct{} // one token
}

func newParker() *parker { return &parker{wake: make(chan struct{}, 1)} }

// parkEnd is why park returned.
type parkEnd uint8

const (
	// unparked: ready held, or an unpark came; check the condition again.
	unparked parkEnd = iota
	// timedOut: the timeout channel fired.
	timedOut
	// quitting: the quit channel is closed.
	quitting
)

// park returns at once when ready holds; otherwise it blocks until an
// unpark, a value on timeout (nil: none) or the closing of quit.
func (p *parker) park(ready func() bool, timeout <-chan time.Time, quit <-chan struct{}) parkEnd {
	p.parked.Store(true)
	defer p.parked.Store(false)
	if ready() {
		return unparked
	}
	select {
	case <-p.wake:
		return unparked
	case <-timeout:
		return timedOut
	case <-quit:
		return quitting
	}
}

// unpark ends the park in progress, if any, or the next one should it
// have begun too late to see the condition its caller stored.
func (p *parker) unpark() {
	if p.parked.Load() {
		select {
		case p.wake <- struct{}{}:
		default: // a token is there already: the parker wakes for it
		}
	}
}
