package oracle

import (
	"fmt"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// decisionChecker checks how a session is admitted and decided, and what
// its programs' checks say: invariants 1 (one decision, RUN or ABORT, also
// as stored to the startup line), 2 (RUN only with both accepted), 3 (a
// rejection after the peer's acceptance is aborted before the error
// returns) and 7 (a retired RUN session passes its programs' checks, unless
// a fault at a site of a program's own explains it).
type decisionChecker struct {
	v        *verdicts
	sessions records[admission]
}

// admission is what decisionChecker keeps of one open session.
type admission struct {
	line      uint64 // the startup line's buffer
	decisions int
	stores    int     // decision stores to the line
	accepted  [2]bool // by participant
	rejected  [2]bool // rejected in the submit now returning
	aborted   [2]bool // ABORT decided after that rejection
	ownFault  bool    // a fault fired at a site of a program's own (not a generic site)
}

func (c *decisionChecker) observe(e *event.Event, open bool) {
	if !open {
		return
	}
	a := c.sessions.of(e.Session, func(a *admission) { *a = admission{} })
	switch e.Kind {
	case EvStartup:
		a.line = e.B
	case EvSubmit:
		if e.B == 0 {
			a.accepted[e.A] = true
		} else {
			a.rejected[e.A] = true
		}
	case EvSubmitReturn:
		who := Participant(e.A)
		if a.rejected[who] && a.accepted[who.peer()] && !a.aborted[who] {
			c.v.violate(3, e.Session, fmt.Sprintf("the %s dispatch was rejected after the %s was accepted, and the error returned without ABORT", who, who.peer()))
		}
		a.rejected[who], a.aborted[who] = false, false
	case EvDecide:
		a.decisions++
		if a.decisions > 1 {
			c.v.violate(1, e.Session, fmt.Sprintf("decision %d was made after an earlier one", e.A))
		}
		if e.A != uint64(StartupRun) && e.A != uint64(StartupAbort) {
			c.v.violate(1, e.Session, fmt.Sprintf("decision %d is neither RUN nor ABORT", e.A))
		}
		if e.A == uint64(StartupRun) && !(a.accepted[0] && a.accepted[1]) {
			c.v.violate(2, e.Session, fmt.Sprintf("RUN was decided with GPU accepted=%v and NPU accepted=%v", a.accepted[0], a.accepted[1]))
		}
		if e.A == uint64(StartupAbort) {
			a.aborted = a.rejected
		}
	case event.EvHostStore:
		if e.A != a.line || e.B == 0 {
			return
		}
		a.stores++
		switch {
		case a.stores > 1:
			c.v.violate(1, e.Session, fmt.Sprintf("a second decision (%d) was stored to the startup line", e.B))
		case e.B != uint64(StartupRun) && e.B != uint64(StartupAbort):
			c.v.violate(1, e.Session, fmt.Sprintf("%d, neither RUN nor ABORT, was stored to the startup line", e.B))
		case e.B == uint64(StartupRun) && !(a.accepted[0] && a.accepted[1]):
			c.v.violate(2, e.Session, fmt.Sprintf("RUN was stored to the startup line with GPU accepted=%v and NPU accepted=%v", a.accepted[0], a.accepted[1]))
		}
	case event.EvFault:
		a.ownFault = a.ownFault || fault.Action(e.B) != fault.Off && !fault.Site(e.A).Generic()
	case EvCheck:
		if e.B == 1 && !a.ownFault {
			c.v.violate(7, e.Session, fmt.Sprintf("the session retired under RUN but its %s program's check failed: %s", Participant(e.A), e.Detail))
		}
	}
}

func (c *decisionChecker) forget(session uint64) { c.sessions.remove(session) }

func (c *decisionChecker) reset() { c.sessions.clear() }

func (c *decisionChecker) hash(h *program.StateHash) {
	for _, id := range c.sessions.sorted() {
		a := c.sessions.get(id)
		h.Add(id)
		h.Add(a.line)
		h.Add(uint64(a.decisions)<<32 | uint64(a.stores))
		h.Add(program.Flags(a.accepted[0], a.accepted[1], a.rejected[0], a.rejected[1], a.aborted[0], a.aborted[1], a.ownFault))
	}
}
