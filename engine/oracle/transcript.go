package oracle

import "github.com/residentlua/residentlua/devices/event"

// Transcript is the Oracle of no fabric, fed events one at a time by its
// owner: how events that residentlua did not produce (a recorded run of
// another implementation of the session, package trace) are checked by the
// same checkers as its own. It keeps what the Oracle keeps, state for what
// is open, and none of the violations it found once Observe has returned
// them, so that a long transcript is checked in bounded memory.
type Transcript struct {
	o   *Oracle
	seq uint64
}

// NewTranscript is an oracle of no fabric. exact says the events' times
// are exact (simulated time, or deadlines as the implementation set them):
// only then is invariant 11, a Wait's one deadline, checked. There is no
// budget reading, so invariant 8 is checked only when Settle is called;
// invariant 15 is not checked.
func NewTranscript(exact bool) *Transcript {
	return &Transcript{o: newOracle(exact)}
}

// Observe checks e, which the transcript numbers in order from 1 (its Seq
// is overwritten), and returns the violations it broke, in the order the
// checkers found them; the slice is the transcript's until the next call.
// A violation's Events are nil: the transcript keeps no events.
func (t *Transcript) Observe(e *event.Event) []Violation {
	t.seq++
	e.Seq = t.seq
	o := t.o
	o.verdicts.list = o.verdicts.list[:0]
	o.observe(e)
	return o.verdicts.list
}

// Settle checks the end of invariant 8 (Oracle.CheckSettled): with no
// session open and nothing quarantined, nothing may be charged by the
// accounts of alloc and release events.
func (t *Transcript) Settle() error {
	t.o.verdicts.list = t.o.verdicts.list[:0]
	return t.o.CheckSettled()
}

// Open is how many sessions the transcript keeps state for: those whose
// startup event it saw and whose close (or, when no close began, the
// release of whose startup line) it did not.
func (t *Transcript) Open() int { return t.o.open.len() }
