package engine

import (
	"fmt"
	"time"

	"github.com/residentlua/residentlua/devices"
)

// The invariants about how a session's publications, Waits and close end:
// 6 (a Wait attempts both joins), 9 (failures poison), 10 and 12 (how a
// close aborts, joins and quarantines, and Waits after a decision), 11 (a
// Wait's one deadline) and 15 (a fault-free session retires). The engine
// emits poison before the failed published event or the wait.end that
// follows a failed join, and close.begin before anything its Close does.

// lifecycle checks one event of a session's publications, Waits and close.
func (o *Oracle) lifecycle(w *watched, e *devices.Event) {
	switch e.Kind {
	case evPublished:
		if e.B == 1 && !w.poisoned {
			o.violate(9, e.Session, fmt.Sprintf("publishing decision %d failed (%s) and the session was not poisoned", e.A, e.Detail))
		}
		w.published = w.published || e.B == 0
	case evUndecided:
		if w.decisions > 0 {
			o.violate(12, e.Session, fmt.Sprintf("a Wait answered that the startup remains undecided after %d decisions were made", w.decisions))
		}
	case EvPoison:
		w.poisoned = true
	case evCloseBegin:
		w.close = watchedClose{begun: true, timeout: time.Duration(e.A)}
	case EvWait:
		o.waitBegins(w, e)
	case EvJoin:
		result := JoinResult(e.B)
		w.wait.joined[e.A], w.wait.result[e.A] = true, result
		w.wait.failed = w.wait.failed || result == JoinError
		w.wait.cancelled = w.wait.cancelled || result == JoinCancelled
		o.checkDeadline(w, e, joinEnded(e.A))
	case EvWaitEnd:
		o.waitEnds(w, e)
	case evClose:
		o.checkBudget(e.Session)
		if e.A == 0 && w.poisoned {
			o.violate(9, e.Session, "the session was poisoned, yet its close released it as retired")
		}
		o.checkClose(w, e.Session, e.A == 1)
		o.forgetSession(e.Session) // closed: nothing more to check of it
	}
}

func (o *Oracle) waitBegins(w *watched, e *devices.Event) {
	w.wait = watchedWait{at: e.Time, timeout: time.Duration(e.A)}
	if !w.close.begun {
		return
	}
	switch {
	case w.decisions == 0:
		o.violateClose(w, e.Session, "the close joined an undecided session before publishing ABORT")
	case w.wait.timeout != w.close.timeout:
		o.violateClose(w, e.Session, fmt.Sprintf("the close joined for %v, not for its timeout of %v", w.wait.timeout, w.close.timeout))
	}
}

func (o *Oracle) waitEnds(w *watched, e *devices.Event) {
	if !w.wait.joined[0] || !w.wait.joined[1] {
		o.violate(6, e.Session, fmt.Sprintf("Wait returned having joined GPU=%v NPU=%v", w.wait.joined[0], w.wait.joined[1]))
	}
	o.checkDeadline(w, e, "it ended")
	if w.wait.failed && !w.poisoned {
		o.violate(9, e.Session, "a participant failed in a join of the Wait, and the session was not poisoned")
	}
	if w.close.begun {
		w.close.joined = true
	}
	w.retired = w.retired || e.A == 1
	o.checkLive(w, e)
}

// checkLive reports a Wait that should have seen a fault-free session
// retire and did not (invariant 15): one given at least longEnough, in
// simulated time, none of whose joins a context or a close ended, of a
// session decided once, whose decision was published, in which no fault
// fired and that is not poisoned.
func (o *Oracle) checkLive(w *watched, e *devices.Event) {
	if e.A == 1 || o.longEnough <= 0 || !o.simulated || w.wait.timeout < o.longEnough || w.wait.cancelled ||
		w.decisions != 1 || !w.published || w.faulted || w.poisoned {
		return
	}
	o.violate(15, e.Session, fmt.Sprintf("a Wait given %v of a session decided %s, with no fault and no failure, ended with the GPU's join %s and the NPU's %s",
		w.wait.timeout, Decision(w.decision), w.wait.result[0], w.wait.result[1]))
}

// joinEnded is what checkDeadline says of the end of who's join: made
// once, not per join event.
func joinEnded(who uint64) string {
	if who == uint64(ParticipantGPU) {
		return "its GPU join ended"
	}
	return "its NPU join ended"
}

// checkDeadline reports a Wait that ran past its one deadline (invariant
// 11). Only simulated time is exact: in real time a wait overshoots its
// deadline by however late its thread is scheduled, so no bound holds there
// and the invariant is not checked.
func (o *Oracle) checkDeadline(w *watched, e *devices.Event, what string) {
	over := e.Time - w.wait.at - w.wait.timeout
	if !o.simulated || w.wait.overdue || over <= 0 {
		return
	}
	w.wait.overdue = true
	o.violate(11, e.Session, fmt.Sprintf("a Wait given %v at %v: %s at %v, %v past its deadline", w.wait.timeout, w.wait.at, what, e.Time, over))
}

// checkClose checks a close that quarantines the session (its quarantine
// event, then close with A=1) or releases it (close with A=0): an undecided
// session must have been aborted, and one that is not poisoned must have
// been joined before it is quarantined (invariant 10).
func (o *Oracle) checkClose(w *watched, session uint64, quarantines bool) {
	switch {
	case w.poisoned: // may be quarantined at once
	case w.decisions == 0:
		o.violateClose(w, session, "the session was closed undecided, without publishing ABORT")
	case quarantines && !w.close.joined:
		o.violateClose(w, session, "the close quarantined a session that is not poisoned without attempting to join its participants")
	}
}

// checkDecidedClose checks a close that quarantines the session: when it
// is decided, poisoned or not, the close must have attempted the join,
// unless a Wait already saw both participants retire (invariant 12).
func (o *Oracle) checkDecidedClose(w *watched, session uint64) {
	if w.close.begun && w.decisions > 0 && !w.close.joined && !w.retired {
		o.violate(12, session, fmt.Sprintf("the close quarantined a session decided %s without attempting to join its participants", Decision(w.decision)))
	}
}

// violateClose reports invariant 10 once per close.
func (o *Oracle) violateClose(w *watched, session uint64, msg string) {
	if !w.close.reported {
		w.close.reported = true
		o.violate(10, session, msg)
	}
}
