package engine

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/fault"
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
}

// Violation is a broken invariant with the session's events that led to it:
// those still in the fabric's event ring, up to the one that broke it.
type Violation struct {
	Invariant int
	Session   uint64
	Message   string
	Events    []devices.Event

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
type Oracle struct {
	mu          sync.Mutex
	fabric      *devices.Fabric
	simulated   bool // times are virtual: a Wait's deadline is exact
	cancel      func()
	sessions    map[uint64]*watched           // from the startup event until close (or until the line is released unclosed)
	invocations map[uint64]*watchedInvocation // from dispatch until retire or reset
	quarantines map[uint64]*watchedQuarantine // by owner, from its first hold until it ends
	live        int64                         // bytes of live buffers charged to the fabric's budget
	quarantined int64
	longEnough  time.Duration // a Wait given this long must see a fault-free session retire (invariant 15); 0: not checked
	violations  []Violation
	seen        uint64 // the sequence number of the event being checked
	generation  uint64 // the fabric's when the oracle began watching it (devices.Fabric.Renew)
	free        records
	observer    func(devices.Event) // observe, bound once: a renewal subscribes it again
}

// records are the oracle's session and invocation records that it no
// longer uses, for its next ones: a long-lived oracle (one renewed with its
// fabric for trial after trial) makes none once it has as many as were
// ever open at once.
type records struct {
	sessions    []*watched
	invocations []*watchedInvocation
}

// session returns a fresh record for the session of startup line line.
func (r *records) session(line uint64) *watched {
	var w *watched
	if n := len(r.sessions); n > 0 {
		w, r.sessions = r.sessions[n-1], r.sessions[:n-1]
	} else {
		w = new(watched)
	}
	*w = watched{line: line, reach: w.reach[:0]}
	return w
}

// invocation returns a fresh record of session's invocation on device.
func (r *records) invocation(session uint64, device devices.Actor) *watchedInvocation {
	var inv *watchedInvocation
	if n := len(r.invocations); n > 0 {
		inv, r.invocations = r.invocations[n-1], r.invocations[:n-1]
	} else {
		inv = new(watchedInvocation)
	}
	*inv = watchedInvocation{session: session, device: device, reach: inv.reach[:0]}
	return inv
}

// watched is what the oracle keeps of one session, from its startup until
// it is closed: the state its invariants need and nothing more.
type watched struct {
	line      uint64           // the startup line's buffer
	devices   [2]devices.Actor // by participant, from the session event; 0 before it
	reach     []uint64         // buffers its invocations reach
	decision  uint64           // the first decision's value
	decisions int
	stores    int     // decision stores to the line
	accepted  [2]bool // by participant
	rejected  [2]bool // rejected in the submit now returning
	aborted   [2]bool // ABORT decided after that rejection
	ownFault  bool    // a fault fired at a site of a program's own (not a generic site)
	faulted   bool    // a fault fired in the session, at any site
	published bool    // a decision was published without failure
	poisoned  bool
	retired   bool        // a Wait saw every participant retire
	wait      watchedWait // the latest Wait
	close     watchedClose
}

// watchedWait is one Wait of a session, from its wait event to its end.
type watchedWait struct {
	at, timeout time.Duration // when it began, and the deadline it was given
	joined      [2]bool
	result      [2]JoinResult
	failed      bool // a join failed with the participant's error
	cancelled   bool // a join was ended by the wait's context or a close
	overdue     bool // invariant 11 was reported for it
}

// watchedClose is a session's close, from its close.begin event.
type watchedClose struct {
	begun    bool
	timeout  time.Duration // what the close joins for
	joined   bool          // a Wait ended within the close
	reported bool          // invariant 10 was reported for it
}

type watchedInvocation struct {
	session  uint64
	device   devices.Actor
	reach    []uint64
	sawAbort bool
}

// NewOracle subscribes an oracle to f's events.
func NewOracle(f *devices.Fabric) *Oracle {
	o := &Oracle{fabric: f, sessions: map[uint64]*watched{}, invocations: map[uint64]*watchedInvocation{}, quarantines: map[uint64]*watchedQuarantine{}}
	o.observer = o.observe
	o.watch()
	return o
}

// watch subscribes o to its fabric's events, as the fabric is now.
func (o *Oracle) watch() {
	o.simulated, o.generation = o.fabric.Mode() == devices.Simulated, o.fabric.Generation()
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
	o.longEnough = longEnough
}

// Renew readies the oracle for its fabric, renewed since the oracle began
// watching it (devices.Fabric.Renew, which ends every subscription): it
// forgets everything it saw, its violations and Liveness included, and
// watches the renewed fabric's events as a new oracle would. It exists for
// the owner of a fabric that renews it run after run, a campaign's worker,
// which keeps its oracle with it instead of making one per run. What
// Violations returned before stays the caller's. It refuses, with a
// KindBusy error, when the fabric was not renewed: the oracle would watch
// it twice.
func (o *Oracle) Renew() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fabric.Generation() == o.generation {
		return devices.Errorf(devices.KindBusy, "oracle", "the fabric was not renewed since the oracle began watching it; renew the fabric first")
	}
	o.cancel() // a no-op: the renewal ended the subscription
	for _, w := range o.sessions {
		o.free.sessions = append(o.free.sessions, w)
	}
	for _, inv := range o.invocations {
		o.free.invocations = append(o.free.invocations, inv)
	}
	clear(o.sessions)
	clear(o.invocations)
	clear(o.quarantines)
	o.live, o.quarantined, o.longEnough, o.seen = 0, 0, 0, 0
	o.violations = o.violations[:0]
	o.watch()
	return nil
}

// Violations lists the violations found so far, each with its session's
// events. The events are read from the fabric's ring when first asked for,
// not copied as they go by: keeping a copy of every event of every session
// made the oracle the largest cost of a simulated trial. It reads the ring,
// so an event subscriber must not call it.
func (o *Oracle) Violations() []Violation {
	o.mu.Lock()
	out := append([]Violation(nil), o.violations...)
	o.mu.Unlock()
	// Read the ring without o.mu: an emit holds the ring's lock while it
	// calls observe, which takes o.mu. A renewed fabric's ring holds
	// another run's events: they are not this oracle's to report.
	for i := range out {
		if o.fabric.Generation() != o.generation {
			break
		}
		v := &out[i]
		if v.Events == nil && v.Session != 0 {
			v.Events = o.fabric.Events().Events(func(e *devices.Event) bool { return e.Session == v.Session && e.Seq <= v.at })
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range out {
		if o.violations[i].Events == nil {
			o.violations[i].Events = out[i].Events
		}
	}
	return out
}

// CheckSettled checks the end of invariant 8: with every session closed and
// no quarantine left, nothing is charged to the budget. It records and
// returns the violation, if any.
func (o *Oracle) CheckSettled() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	st := o.fabric.Budget().State()
	if len(o.sessions) == 0 && st.Quarantined == 0 && st.Charged != 0 {
		v := o.violate(8, 0, fmt.Sprintf("everything is closed but %d bytes are still charged", st.Charged))
		return v
	}
	return nil
}

func (o *Oracle) violate(inv int, session uint64, msg string) Violation {
	v := Violation{Invariant: inv, Session: session, Message: msg, at: o.seen}
	o.violations = append(o.violations, v)
	return v
}

// tracked is how many sessions and invocations the oracle keeps state for.
func (o *Oracle) tracked() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.sessions) + len(o.invocations)
}

// session returns the record of e's session. A record begins with the
// session's startup event and ends with its close (or with the release of
// its line when no close began: a session that could not be made). Events
// of sessions not (or no longer) watched have none.
func (o *Oracle) session(e *devices.Event) *watched {
	if e.Session == 0 {
		return nil
	}
	w := o.sessions[e.Session]
	if w == nil && e.Kind == evStartup && e.Actor == devices.HostActor {
		w = o.free.session(e.B)
		o.sessions[e.Session] = w
	}
	return w
}

func (o *Oracle) observe(e devices.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = e.Seq
	w := o.session(&e)
	if w == nil && e.Kind.Category() == devices.CategoryProtocol {
		return // a session made before the oracle, or already closed
	}
	switch e.Kind {
	case evPublished, EvPoison, evCloseBegin, EvWait, evUndecided, EvJoin, EvWaitEnd, evClose:
		o.lifecycle(w, &e)
	case evSession:
		w.devices = [2]devices.Actor{devices.Actor(e.A), devices.Actor(e.B)}
	case EvSubmit:
		if e.B == 0 {
			w.accepted[e.A] = true
		} else {
			w.rejected[e.A] = true
		}
	case evSubmitReturn:
		peer := 1 - e.A
		if w.rejected[e.A] && w.accepted[peer] && !w.aborted[e.A] {
			o.violate(3, e.Session, fmt.Sprintf("the %s dispatch was rejected after the %s was accepted, and the error returned without ABORT", Participant(e.A), Participant(peer)))
		}
		w.rejected[e.A], w.aborted[e.A] = false, false
	case EvDecide:
		w.decisions++
		if w.decisions == 1 {
			w.decision = e.A
		}
		if w.decisions > 1 {
			o.violate(1, e.Session, fmt.Sprintf("decision %d was made after an earlier one", e.A))
		}
		if e.A != uint64(StartupRun) && e.A != uint64(StartupAbort) {
			o.violate(1, e.Session, fmt.Sprintf("decision %d is neither RUN nor ABORT", e.A))
		}
		if e.A == uint64(StartupRun) && !(w.accepted[0] && w.accepted[1]) {
			o.violate(2, e.Session, fmt.Sprintf("RUN was decided with GPU accepted=%v and NPU accepted=%v", w.accepted[0], w.accepted[1]))
		}
		if e.A == uint64(StartupAbort) {
			w.aborted[0], w.aborted[1] = w.rejected[0], w.rejected[1]
		}
		if w.close.begun && w.decisions == 1 && e.A != uint64(StartupAbort) {
			o.violateClose(w, e.Session, fmt.Sprintf("the close of an undecided session decided %d, not ABORT", e.A))
		}
	case devices.EvHostStore:
		if w != nil && e.A == w.line && e.B != 0 {
			w.stores++
			switch {
			case w.stores > 1:
				o.violate(1, e.Session, fmt.Sprintf("a second decision (%d) was stored to the startup line", e.B))
			case e.B != uint64(StartupRun) && e.B != uint64(StartupAbort):
				o.violate(1, e.Session, fmt.Sprintf("%d, neither RUN nor ABORT, was stored to the startup line", e.B))
			case e.B == uint64(StartupRun) && !(w.accepted[0] && w.accepted[1]):
				o.violate(2, e.Session, fmt.Sprintf("RUN was stored to the startup line with GPU accepted=%v and NPU accepted=%v", w.accepted[0], w.accepted[1]))
			}
		}
	case devices.EvDispatch:
		o.dispatched(&e)
		if old := o.invocations[e.A]; old != nil {
			o.free.invocations = append(o.free.invocations, old)
		}
		o.invocations[e.A] = o.free.invocation(e.Session, e.Actor)
	case devices.EvReach:
		if inv := o.invocations[e.A]; inv != nil {
			inv.reach = append(inv.reach, e.B)
		}
		if w != nil && !slices.Contains(w.reach, e.B) {
			w.reach = append(w.reach, e.B)
		}
	case program.EvObserve:
		if inv := o.invocations[e.A]; inv != nil && e.B == uint64(StartupAbort) {
			inv.sawAbort = true
		}
	case devices.EvRetire:
		o.forgetInvocation(e.A)
	case devices.EvReset:
		o.forgetInvocation(e.A)
		if e.B == 0 {
			o.deviceReset(e.Actor)
		}
	case devices.EvHold, devices.EvKeep:
		o.holds(&e)
	case devices.EvRelease, devices.EvReleaseRefused:
		if e.Kind == devices.EvRelease {
			o.checkKept(&e)
		}
		for id, inv := range o.invocations {
			for _, b := range inv.reach {
				if b == e.A {
					o.violate(5, e.Session, fmt.Sprintf("buffer %d was released while invocation %d, which can reach it, has not retired", e.A, id))
				}
			}
		}
		if e.Kind == devices.EvRelease && e.Detail != devices.PrivateBudget {
			o.live -= int64(e.B)
		}
		if w != nil && e.Kind == devices.EvRelease && e.A == w.line && !w.close.begun {
			o.forgetSession(e.Session) // a startup abandoned before any close (NewExchangeSession failed) ends here
		}
	case devices.EvAlloc:
		if e.Detail != devices.PrivateBudget {
			o.live += int64(e.B)
		}
		o.checkBudget(e.Session)
	case devices.EvQuarantine:
		o.quarantined += int64(e.A)
		o.checkBudget(e.Session)
		if w != nil {
			o.checkClose(w, e.Session, true)
			o.checkDecidedClose(w, e.Session)
			o.checkHolds(w, e.Session)
		}
	case devices.EvQuarantineEnd:
		o.quarantined -= int64(e.A)
		o.checkBudget(e.Session)
		o.quarantineEnds(e.Session)
	case devices.EvFault:
		if w != nil && fault.Action(e.B) != fault.Off {
			w.faulted = true
			w.ownFault = w.ownFault || !fault.Site(e.A).Generic()
		}
	case EvCheck:
		if e.B == 1 && !w.ownFault {
			o.violate(7, e.Session, fmt.Sprintf("the session retired under RUN but its %s program's check failed: %s", Participant(e.A), e.Detail))
		}
	default:
		if e.Kind.Category() == devices.CategoryRound {
			if inv := o.invocations[e.A]; inv != nil && inv.sawAbort {
				o.violate(4, e.Session, fmt.Sprintf("invocation %d touched a buffer besides the startup line (%s, %d) after observing ABORT", e.A, e.Kind, e.B))
			}
		}
	}
}

// checkBudget compares the budget with the allocations seen in events.
func (o *Oracle) checkBudget(session uint64) {
	st := o.fabric.Budget().State()
	if st.Charged != o.live || st.Quarantined != o.quarantined {
		o.violate(8, session, fmt.Sprintf("the budget charges %d bytes (%d quarantined) but live allocations are %d bytes (%d quarantined)", st.Charged, st.Quarantined, o.live, o.quarantined))
	}
}

// forgetSession ends the record of session, keeping it for the next one.
func (o *Oracle) forgetSession(session uint64) {
	if w := o.sessions[session]; w != nil {
		o.free.sessions = append(o.free.sessions, w)
		delete(o.sessions, session)
	}
}

// forgetInvocation ends the record of invocation id, keeping it for the
// next one.
func (o *Oracle) forgetInvocation(id uint64) {
	if inv := o.invocations[id]; inv != nil {
		o.free.invocations = append(o.free.invocations, inv)
		delete(o.invocations, id)
	}
}
