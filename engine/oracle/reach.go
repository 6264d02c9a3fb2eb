package oracle

import (
	"fmt"
	"slices"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/program"
)

// reachChecker tracks what each invocation, and each session's programs,
// can reach, and what quarantines hold: invariants 4 (after observing
// ABORT a program touches nothing but the startup line), 5 (no buffer is
// released while a program that can reach it runs), 13 (a quarantine
// holds both of its session's devices and every buffer its programs could
// reach until the devices are reset) and 14 (one invocation outstanding
// per device). A quarantine's quarantine.hold and quarantine.keep events
// come before its quarantine event, and a device's retire or reset before
// its next dispatch.
type reachChecker struct {
	v           *verdicts
	sessions    records[sessionReach]
	invocations records[running]
	quarantines records[quarantine] // by owner, from its first hold until it ends
}

// sessionReach is what reachChecker keeps of one open session.
type sessionReach struct {
	line    uint64         // the startup line's buffer
	devices [2]event.Actor // by participant, from the session event; 0 before it
	reach   []uint64       // buffers its invocations reach
}

// running is an invocation: a program running on a device, from its dispatch until
// it retires or its device is reset.
type running struct {
	session  uint64
	device   event.Actor
	reach    []uint64
	sawAbort bool
}

// quarantine is the devices a quarantine holds that were not reset since,
// and the buffers it keeps.
type quarantine struct {
	waiting []event.Actor
	kept    []uint64
}

func (c *reachChecker) observe(e *event.Event, open bool) {
	var s *sessionReach
	if open {
		s = c.sessions.of(e.Session, func(s *sessionReach) { *s = sessionReach{reach: s.reach[:0]} })
	}
	switch e.Kind {
	case EvStartup:
		s.line = e.B
	case EvSession:
		s.devices = [2]event.Actor{event.Actor(e.A), event.Actor(e.B)}
	case event.EvDispatch:
		c.dispatched(e)
		inv := c.invocations.get(e.A)
		if inv == nil {
			inv = c.invocations.add(e.A)
		}
		*inv = running{session: e.Session, device: e.Actor, reach: inv.reach[:0]}
	case event.EvReach:
		if inv := c.invocations.get(e.A); inv != nil {
			inv.reach = append(inv.reach, e.B)
		}
		if s != nil && !slices.Contains(s.reach, e.B) {
			s.reach = append(s.reach, e.B)
		}
	case program.EvObserve:
		if inv := c.invocations.get(e.A); inv != nil && e.B == uint64(StartupAbort) {
			inv.sawAbort = true
		}
	case event.EvRetire:
		c.invocations.remove(e.A)
	case event.EvReset:
		c.invocations.remove(e.A)
		if e.B == 0 {
			c.deviceReset(e.Actor)
		}
	case event.EvHold, event.EvKeep:
		c.holds(e)
	case event.EvRelease, event.EvReleaseRefused:
		if e.Kind == event.EvRelease {
			c.checkKept(e)
		}
		for i := range c.invocations.n {
			for _, b := range c.invocations.recs[i].reach {
				if b == e.A {
					c.v.violate(5, e.Session, fmt.Sprintf("buffer %d was released while invocation %d, which can reach it, has not retired", e.A, c.invocations.keys[i]))
				}
			}
		}
	case event.EvQuarantine:
		if s != nil {
			c.checkHolds(s, e.Session)
		}
	case event.EvQuarantineEnd:
		c.quarantineEnds(e.Session)
	default:
		// Most events are a running program's: the rare invocation that
		// saw ABORT is looked up before the kind's category, a lookup by
		// name.
		if inv := c.invocations.get(e.A); inv != nil && inv.sawAbort && e.Kind.Category() == program.CategoryRound {
			c.v.violate(4, e.Session, fmt.Sprintf("invocation %d touched a buffer besides the startup line (%s, %d) after observing ABORT", e.A, e.Kind, e.B))
		}
	}
}

// dispatched checks a dispatch on e's device: no invocation of the
// device may be outstanding (invariant 14), and no quarantine may hold the
// device (invariant 13). Each message names the lowest id, so that it does
// not depend on the order things began in.
func (c *reachChecker) dispatched(e *event.Event) {
	if id, inv := c.invocations.lowest(func(inv *running) bool { return inv.device == e.Actor }); inv != nil {
		c.v.violate(14, e.Session, fmt.Sprintf("invocation %d was dispatched on device %d while invocation %d of session %d had not retired there", e.A, e.Actor, id, inv.session))
	}
	if owner, q := c.quarantines.lowest(func(q *quarantine) bool { return slices.Contains(q.waiting, e.Actor) }); q != nil {
		c.v.violate(13, e.Session, fmt.Sprintf("invocation %d was dispatched on device %d, which the quarantine of session %d holds until it is reset", e.A, e.Actor, owner))
	}
}

// holds records what a quarantine beginning holds (a device) or keeps (a
// buffer).
func (c *reachChecker) holds(e *event.Event) {
	q := c.quarantines.of(e.Session, func(q *quarantine) { *q = quarantine{waiting: q.waiting[:0], kept: q.kept[:0]} })
	if e.Kind == event.EvHold {
		q.waiting = append(q.waiting, event.Actor(e.A))
	} else {
		q.kept = append(q.kept, e.A)
	}
}

// checkHolds checks, when s's session is quarantined, that the quarantine
// holds both of its devices and keeps its startup line and every buffer
// its invocations reached (invariant 13).
func (c *reachChecker) checkHolds(s *sessionReach, session uint64) {
	q := c.quarantines.get(session)
	if q == nil {
		q = &quarantine{}
	}
	for who, d := range s.devices {
		if d != 0 && !slices.Contains(q.waiting, d) {
			c.v.violate(13, session, fmt.Sprintf("the quarantine does not hold the %s (device %d)", Participant(who), d))
		}
	}
	if !slices.Contains(q.kept, s.line) {
		c.v.violate(13, session, fmt.Sprintf("the quarantine does not keep the startup line (buffer %d)", s.line))
	}
	for _, b := range s.reach {
		if !slices.Contains(q.kept, b) {
			c.v.violate(13, session, fmt.Sprintf("the quarantine does not keep buffer %d, which the session's programs could reach", b))
		}
	}
}

// deviceReset notes that device d was reset: no quarantine holds it any
// more.
func (c *reachChecker) deviceReset(d event.Actor) {
	for i := range c.quarantines.n {
		q := c.quarantines.recs[i]
		q.waiting = slices.DeleteFunc(q.waiting, func(a event.Actor) bool { return a == d })
	}
}

// checkKept checks the release of a buffer: none that a quarantine keeps
// may be released before each device it holds was reset (invariant 13).
func (c *reachChecker) checkKept(e *event.Event) {
	for i := range c.quarantines.n { // a buffer is kept by one quarantine at most
		if owner, q := c.quarantines.keys[i], c.quarantines.recs[i]; len(q.waiting) > 0 && slices.Contains(q.kept, e.A) {
			c.v.violate(13, owner, fmt.Sprintf("buffer %d was released while the quarantine of session %d still holds device %d, not yet reset", e.A, owner, q.waiting[0]))
		}
	}
}

// quarantineEnds checks the end of owner's quarantine: every device it
// held must have been reset since it began (invariant 13).
func (c *reachChecker) quarantineEnds(owner uint64) {
	if q := c.quarantines.get(owner); q != nil && len(q.waiting) > 0 {
		c.v.violate(13, owner, fmt.Sprintf("the quarantine ended while device %d, which it holds, was not reset", q.waiting[0]))
	}
	c.quarantines.remove(owner)
}

func (c *reachChecker) forget(session uint64) { c.sessions.remove(session) }

func (c *reachChecker) reset() {
	c.sessions.clear()
	c.invocations.clear()
	c.quarantines.clear()
}

func (c *reachChecker) hash(h *program.StateHash) {
	for _, id := range c.sessions.sorted() {
		s := c.sessions.get(id)
		h.Add(id)
		h.Add(s.line)
		h.Add(uint64(s.devices[0])<<8 | uint64(s.devices[1]))
		h.Add(uint64(len(s.reach)))
		for _, b := range s.reach {
			h.Add(b)
		}
	}
	for _, id := range c.invocations.sorted() {
		inv := c.invocations.get(id)
		h.Add(id)
		h.Add(inv.session<<9 | uint64(inv.device)<<1 | program.Flags(inv.sawAbort))
		for _, b := range inv.reach {
			h.Add(b)
		}
	}
	for _, owner := range c.quarantines.sorted() {
		q := c.quarantines.get(owner)
		h.Add(owner)
		h.Add(uint64(len(q.waiting))<<32 | uint64(len(q.kept)))
		for _, d := range q.waiting {
			h.Add(uint64(d))
		}
		for _, b := range q.kept {
			h.Add(b)
		}
	}
}
