package oracle

import (
	"fmt"
	"sync"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
)

// Invariant is the text of the oracle's invariant n, numbered from 1 as
// in docs/protocol.md, or "" when there is no invariant n.
func Invariant(n int) string {
	if n < 1 || n >= len(invariants) {
		return ""
	}
	return invariants[n]
}

// invariants are the texts of the invariants the Oracle checks, by number.
var invariants = [...]string{
	1:  "at most one decision per startup line, and it is RUN or ABORT",
	2:  "RUN only after both participants were accepted",
	3:  "a rejected dispatch after the peer was accepted is followed by ABORT before the error returns",
	4:  "after observing ABORT no program touches the payload",
	5:  "no buffer is released while a program that can reach it has not retired",
	6:  "every Wait attempts both joins",
	7:  "a retired RUN session passes its programs' own checks, unless a fault at a site of a program's own explains the failure",
	8:  "the budget equals live plus quarantined allocations, and is zero when all is closed",
	9:  "a failed publication or a participant's error poisons the session: it never counts as retired, and its close quarantines",
	10: "closing an undecided session publishes ABORT before joining, and a close attempts the join (for its timeout) before it quarantines anything that is not poisoned",
	11: "a Wait ends by its one deadline: the second join gets only what the first left",
	12: "after a decision, no Wait answers that the startup is undecided, and a close of a decided session attempts the join before it quarantines, poisoned or not",
	13: "a quarantine holds both of the session's devices and every buffer its programs could reach, until a reset of each device releases them",
	14: "at most one invocation is outstanding on a device",
	15: "a fault-free session retires: decided once and published, with no fault and no failure, a Wait given long enough sees every accepted participant retire",
	16: "a program reads a word another program wrote with a plain store only once a later release store of the writer published it (the memory model's rule 8; simulated time)",
}

// Violation is an invariant that did not hold, with the session's events
// that led to it: those still in the fabric's event ring, up to the one
// that went against it.
type Violation struct {
	Invariant int
	Session   uint64
	Message   string
	Events    []event.Event

	at uint64 // the sequence number of the event that broke it
}

// Error says which invariant broke and how.
func (v Violation) Error() string {
	return fmt.Sprintf("invariant %d (%s) violated in session %d: %s", v.Invariant, Invariant(v.Invariant), v.Session, v.Message)
}

// Oracle watches a fabric's event stream and checks every invariant on
// every event, in both executors (invariant 11, a Wait's deadline, in
// simulated time only, where deadlines are exact; invariant 15, liveness,
// only once Liveness says how long is long enough). A correct engine never
// violates one, under any fault. It keeps state only for what is open:
// sessions until their close, invocations until they retire or are reset,
// quarantines until they end.
//
// It is a set of small checkers, one per group of invariants, each of
// which reads the events alone; the oracle fans every event out to them.
type Oracle struct {
	mu       sync.Mutex
	fabric   *devices.Fabric // nil for a transcript's oracle (Transcript)
	cancel   func()
	observer func(*event.Event) // observe, bound once: a renewal subscribes it again

	open      records[openSession] // sessions watched: from the startup event until close
	verdicts  verdicts
	budget    budgetChecker
	decisions decisionChecker
	lifecycle lifecycleChecker
	reach     reachChecker
}

// openSession is a session the oracle watches.
type openSession struct {
	line    uint64 // the startup line's buffer
	closing bool   // its close began
}

// New subscribes an oracle to f's events.
func New(f *devices.Fabric) *Oracle {
	o := newOracle(f.Mode() == devices.Simulated)
	o.fabric = f
	o.budget.reading = f.Budget().State
	o.observer = o.observe
	o.watch()
	return o
}

// newOracle is an oracle of no fabric, its checkers wired to its verdicts.
func newOracle(simulated bool) *Oracle {
	o := &Oracle{}
	o.budget.v, o.decisions.v, o.lifecycle.v, o.reach.v = &o.verdicts, &o.verdicts, &o.verdicts, &o.verdicts
	o.lifecycle.simulated = simulated
	return o
}

// watch subscribes o to its fabric's events, as the fabric is now.
func (o *Oracle) watch() {
	o.lifecycle.simulated = o.fabric.Mode() == devices.Simulated
	o.cancel = o.fabric.Events().Subscribe(o.observer)
}

// Stop ends the subscription.
func (o *Oracle) Stop() { o.cancel() }

// Liveness has the oracle check invariant 15 from now on, in simulated
// time: a Wait given at least longEnough (a close's join included) of a
// session decided once, whose decision was published, in which no fault
// fired and nothing failed, must see every accepted participant retire.
// What is long enough depends on the programs, which is why the caller
// says: a campaign of the built-in exchange, or the model checker, whose
// programs need no time in the ideal timing. 0 stops the check. In real
// time it is not checked: how long a program takes there depends on the
// machine.
func (o *Oracle) Liveness(longEnough time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lifecycle.longEnough = longEnough
}

// Renew readies the oracle for its fabric, just renewed
// (devices.Fabric.Renew, which ends every subscription): it forgets
// everything it saw, its violations and Liveness included, and watches the
// renewed fabric's events as a new oracle would. It is how the owner of a
// fabric it renews run after run (a campaign worker's world) renews the
// oracle with it, as the fabric's subscriber, instead of making one per
// run. What Violations returned before stays the caller's. It refuses,
// with a failure.Busy error, once the fabric has emitted an event (it was not
// renewed, or was used since): the oracle would miss what those events
// opened and charged, and so find violations that are none.
func (o *Oracle) Renew() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fabric.Events().Count() != 0 {
		return failure.Errorf(failure.Busy, "oracle", "the fabric has emitted events since it was last renewed; renew the oracle right after the fabric")
	}
	o.cancel() // a no-op: the renewal ended the subscription
	o.open.clear()
	o.verdicts = verdicts{list: o.verdicts.list[:0]}
	o.budget.reset()
	o.decisions.reset()
	o.lifecycle.reset()
	o.lifecycle.longEnough = 0
	o.reach.reset()
	o.watch()
	return nil
}

// Violations lists the violations found so far, each with its session's
// events. The events are read from the fabric's ring when first asked for,
// not copied as they go by: keeping a copy of every event of every session
// made the oracle the largest cost of a simulated trial. It reads the ring,
// so an event subscriber must not call it, nor anyone between a renewal of
// the fabric and the oracle's Renew: the ring then holds another run's
// events.
func (o *Oracle) Violations() []Violation {
	o.mu.Lock()
	out := append([]Violation(nil), o.verdicts.list...)
	o.mu.Unlock()
	if o.fabric == nil {
		return out
	}
	// Read the ring without o.mu: an emit holds the ring's lock while it
	// calls observe, which takes o.mu.
	for i := range out {
		v := &out[i]
		if v.Events == nil && v.Session != 0 {
			v.Events = o.fabric.Events().Events(func(e *event.Event) bool { return e.Session == v.Session && e.Seq <= v.at })
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range out {
		if i < len(o.verdicts.list) && o.verdicts.list[i].Events == nil {
			o.verdicts.list[i].Events = out[i].Events
		}
	}
	return out
}

// Broken lists the invariant of each violation found so far, in the order
// they were found, appended to dst: cheaper than Violations, which reads
// the events of each, for a checker that looks after every step.
func (o *Oracle) Broken(dst []int) []int {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, v := range o.verdicts.list {
		dst = append(dst, v.Invariant)
	}
	return dst
}

// CheckSettled checks the end of invariant 8: with every session closed and
// no quarantine left, nothing is charged to the budget. It records and
// returns the violation, if any.
func (o *Oracle) CheckSettled() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.open.len() > 0 {
		return nil
	}
	return o.budget.settled()
}

// tracked is how many sessions and invocations the oracle keeps state for.
func (o *Oracle) tracked() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.open.len() + o.reach.invocations.len()
}

// observe fans e out to the checkers, telling them whether e's session is
// open: watched from its startup event until its close (or until the
// release of its line when no close began: a session that could not be
// made). Protocol events of other sessions (made before the oracle, or
// closed) go to none. The order of the checkers is the order in which one
// event's violations are reported.
func (o *Oracle) observe(e *event.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.verdicts.seen = e.Seq
	s := o.session(e)
	open := s != nil
	if !open && e.Kind.Category() == program.CategoryProtocol {
		return
	}
	o.budget.observe(e, open)
	o.decisions.observe(e, open)
	o.lifecycle.observe(e, open)
	o.reach.observe(e, open)
	if open && e.Kind == event.EvPlainRead {
		o.verdicts.violate(16, e.Session, e.Detail)
	}
	switch {
	case !open:
	case e.Kind == EvCloseBegin:
		s.closing = true
	case e.Kind == EvClose, e.Kind == event.EvRelease && e.A == s.line && !s.closing:
		o.forget(e.Session) // closed, or abandoned before any close: nothing more to check of it
	}
}

// session is the record of e's open session, opened by its startup event;
// nil when e's session is not watched.
func (o *Oracle) session(e *event.Event) *openSession {
	if e.Session == 0 {
		return nil
	}
	s := o.open.get(e.Session)
	if s == nil && e.Kind == EvStartup && e.Actor == event.HostActor {
		s = o.open.add(e.Session)
		*s = openSession{line: e.B}
	}
	return s
}

// forget ends every checker's record of session.
func (o *Oracle) forget(session uint64) {
	o.open.remove(session)
	o.decisions.forget(session)
	o.lifecycle.forget(session)
	o.reach.forget(session)
}

// HashState adds to h what the oracle's future verdicts depend on: what its
// checkers keep of each open session, running invocation and quarantine in
// force, the allocations counted, how long is long enough for invariant
// 15, and how many violations it found, for a model checker's state hash.
// Times are added relative to the fabric's clock.
func (o *Oracle) HashState(h *program.StateHash) {
	now := o.fabric.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	h.Add(uint64(len(o.verdicts.list)))
	for _, id := range o.open.sorted() {
		h.Add(id<<1 | program.Flags(o.open.get(id).closing))
	}
	o.budget.hash(h)
	o.decisions.hash(h)
	o.lifecycle.hash(h, now)
	o.reach.hash(h)
}
