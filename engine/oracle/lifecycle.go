package oracle

import (
	"fmt"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// lifecycleChecker checks how a session's publications, Waits and close
// end: invariants 6 (a Wait attempts both joins), 9 (failures poison), 10
// and 12 (how a close aborts, joins and quarantines, and Waits after a
// decision), 11 (a Wait's one deadline, in simulated time) and 15 (a
// fault-free session retires, once Liveness says how long is long enough).
// The engine emits poison before the failed published event or the
// wait.end that follows a failed join, and close.begin before anything
// its Close does.
type lifecycleChecker struct {
	v          *verdicts
	simulated  bool          // times are virtual: a Wait's deadline is exact
	longEnough time.Duration // 0: invariant 15 is not checked
	sessions   records[lifecycle]
}

// lifecycle is what lifecycleChecker keeps of one open session.
type lifecycle struct {
	decision  Decision // the first decision
	decisions int
	faulted   bool // a fault fired in the session, at any site
	published bool // a decision was published without failure
	poisoned  bool
	retired   bool // a Wait saw every participant retire
	wait      waitRecord
	close     closeRecord
}

// waitRecord is one Wait of a session, from its wait event to its end.
type waitRecord struct {
	at, timeout time.Duration // when it began, and the deadline it was given
	joined      [2]bool
	result      [2]JoinResult
	failed      bool // a join failed with the participant's error
	cancelled   bool // a join was ended by the wait's context or a close
	overdue     bool // invariant 11 was reported for it
}

// closeRecord is a session's close, from its close.begin event.
type closeRecord struct {
	begun    bool
	timeout  time.Duration // what the close joins for
	joined   bool          // a Wait ended within the close
	reported bool          // invariant 10 was reported for it
}

func (c *lifecycleChecker) observe(e *event.Event, open bool) {
	if !open {
		return
	}
	l := c.sessions.of(e.Session, func(l *lifecycle) { *l = lifecycle{} })
	switch e.Kind {
	case EvDecide:
		l.decisions++
		if l.decisions == 1 {
			l.decision = Decision(e.A)
		}
		if l.close.begun && l.decisions == 1 && Decision(e.A) != StartupAbort {
			c.violateClose(l, e.Session, fmt.Sprintf("the close of an undecided session decided %d, not ABORT", e.A))
		}
	case event.EvFault:
		l.faulted = l.faulted || fault.Action(e.B) != fault.Off
	case EvPublished:
		if e.B == 1 && !l.poisoned {
			c.v.violate(9, e.Session, fmt.Sprintf("publishing decision %d failed (%s) and the session was not poisoned", e.A, e.Detail))
		}
		l.published = l.published || e.B == 0
	case EvUndecided:
		if l.decisions > 0 {
			c.v.violate(12, e.Session, fmt.Sprintf("a Wait answered that the startup remains undecided after %d decisions were made", l.decisions))
		}
	case EvPoison:
		l.poisoned = true
	case EvCloseBegin:
		l.close = closeRecord{begun: true, timeout: time.Duration(e.A)}
	case EvWait:
		c.waitBegins(l, e)
	case EvJoin:
		who, result := Participant(e.A), JoinResult(e.B)
		l.wait.joined[who], l.wait.result[who] = true, result
		l.wait.failed = l.wait.failed || result == JoinError
		l.wait.cancelled = l.wait.cancelled || result == JoinCancelled
		c.checkDeadline(l, e, joinEnded[who])
	case EvWaitEnd:
		c.waitEnds(l, e)
	case event.EvQuarantine:
		c.checkClose(l, e.Session, true)
		if l.close.begun && l.decisions > 0 && !l.close.joined && !l.retired {
			c.v.violate(12, e.Session, fmt.Sprintf("the close quarantined a session decided %s without attempting to join its participants", l.decision))
		}
	case EvClose:
		if e.A == 0 && l.poisoned {
			c.v.violate(9, e.Session, "the session was poisoned, yet its close released it as retired")
		}
		c.checkClose(l, e.Session, e.A == 1)
	}
}

func (c *lifecycleChecker) waitBegins(l *lifecycle, e *event.Event) {
	l.wait = waitRecord{at: e.Time, timeout: time.Duration(e.A)}
	if !l.close.begun {
		return
	}
	switch {
	case l.decisions == 0:
		c.violateClose(l, e.Session, "the close joined an undecided session before publishing ABORT")
	case l.wait.timeout != l.close.timeout:
		c.violateClose(l, e.Session, fmt.Sprintf("the close joined for %v, not for its timeout of %v", l.wait.timeout, l.close.timeout))
	}
}

func (c *lifecycleChecker) waitEnds(l *lifecycle, e *event.Event) {
	if !l.wait.joined[0] || !l.wait.joined[1] {
		c.v.violate(6, e.Session, fmt.Sprintf("Wait returned having joined GPU=%v NPU=%v", l.wait.joined[0], l.wait.joined[1]))
	}
	c.checkDeadline(l, e, "it ended")
	if l.wait.failed && !l.poisoned {
		c.v.violate(9, e.Session, "a participant failed in a join of the Wait, and the session was not poisoned")
	}
	if l.close.begun {
		l.close.joined = true
	}
	l.retired = l.retired || e.A == 1
	c.checkLive(l, e)
}

// checkLive reports a Wait that should have seen a fault-free session
// retire and did not (invariant 15): one given at least longEnough, in
// simulated time, none of whose joins a context or a close ended, of a
// session decided once, whose decision was published, in which no fault
// fired and that is not poisoned.
func (c *lifecycleChecker) checkLive(l *lifecycle, e *event.Event) {
	if e.A == 1 || c.longEnough <= 0 || !c.simulated || l.wait.timeout < c.longEnough || l.wait.cancelled ||
		l.decisions != 1 || !l.published || l.faulted || l.poisoned {
		return
	}
	c.v.violate(15, e.Session, fmt.Sprintf("a Wait given %v of a session decided %s, with no fault and no failure, ended with the GPU's join %s and the NPU's %s",
		l.wait.timeout, l.decision, l.wait.result[0], l.wait.result[1]))
}

// joinEnded is what checkDeadline says of the end of a participant's join.
var joinEnded = [2]string{ParticipantGPU: "its GPU join ended", ParticipantNPU: "its NPU join ended"}

// checkDeadline reports a Wait that ran past its one deadline (invariant
// 11). Only simulated time is exact: in real time a wait overshoots its
// deadline by however late its thread is scheduled, so no bound holds there
// and the invariant is not checked.
func (c *lifecycleChecker) checkDeadline(l *lifecycle, e *event.Event, what string) {
	over := e.Time - l.wait.at - l.wait.timeout
	if !c.simulated || l.wait.overdue || over <= 0 {
		return
	}
	l.wait.overdue = true
	c.v.violate(11, e.Session, fmt.Sprintf("a Wait given %v at %v: %s at %v, %v past its deadline", l.wait.timeout, l.wait.at, what, e.Time, over))
}

// checkClose checks a close that quarantines the session (its quarantine
// event, then close with A=1) or releases it (close with A=0): an undecided
// session must have been aborted, and one that is not poisoned must have
// been joined before it is quarantined (invariant 10).
func (c *lifecycleChecker) checkClose(l *lifecycle, session uint64, quarantines bool) {
	switch {
	case l.poisoned: // may be quarantined at once
	case l.decisions == 0:
		c.violateClose(l, session, "the session was closed undecided, without publishing ABORT")
	case quarantines && !l.close.joined:
		c.violateClose(l, session, "the close quarantined a session that is not poisoned without attempting to join its participants")
	}
}

// violateClose reports invariant 10 once per close.
func (c *lifecycleChecker) violateClose(l *lifecycle, session uint64, msg string) {
	if !l.close.reported {
		l.close.reported = true
		c.v.violate(10, session, msg)
	}
}

func (c *lifecycleChecker) forget(session uint64) { c.sessions.remove(session) }

func (c *lifecycleChecker) reset() { c.sessions.clear() }

// hash adds what the checker's verdicts depend on, times relative to now.
func (c *lifecycleChecker) hash(h *program.StateHash, now time.Duration) {
	h.Add(uint64(c.longEnough))
	for _, id := range c.sessions.sorted() {
		l := c.sessions.get(id)
		h.Add(id)
		h.Add(uint64(l.decision)<<32 | uint64(l.decisions))
		h.Add(program.Flags(l.faulted, l.published, l.poisoned, l.retired,
			l.wait.joined[0], l.wait.joined[1], l.wait.failed, l.wait.cancelled, l.wait.overdue,
			l.close.begun, l.close.joined, l.close.reported))
		h.Add(uint64(l.wait.result[0])<<8 | uint64(l.wait.result[1]))
		h.Add(uint64(now - l.wait.at))
		h.Add(uint64(l.wait.timeout))
		h.Add(uint64(l.close.timeout))
	}
}
