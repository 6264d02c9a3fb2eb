package engine

import (
	"fmt"
	"slices"

	"github.com/residentlua/residentlua/devices"
)

// The invariants about devices: 13 (a quarantine holds both of its
// session's devices and every buffer its programs could reach until the
// devices are reset) and 14 (one invocation outstanding per device). A
// quarantine's quarantine.hold and quarantine.keep events come before its
// quarantine event, and a device's retire or reset before its next
// dispatch.

// watchedQuarantine is a quarantine, from its first hold until it ends:
// the devices it holds that were not reset since, and the buffers it keeps.
type watchedQuarantine struct {
	waiting []devices.Actor
	kept    []uint64
}

// dispatched checks a dispatch on e's device: no invocation of the
// device may be outstanding (invariant 14), and no quarantine may hold the
// device (invariant 13).
func (o *Oracle) dispatched(e *devices.Event) {
	// The lowest of the ids, so that the message does not depend on the
	// maps' order.
	var first uint64
	for id, inv := range o.invocations {
		if inv.device == e.Actor && (first == 0 || id < first) {
			first = id
		}
	}
	if first != 0 {
		o.violate(14, e.Session, fmt.Sprintf("invocation %d was dispatched on device %d while invocation %d of session %d had not retired there", e.A, e.Actor, first, o.invocations[first].session))
	}
	var holder uint64
	for owner, q := range o.quarantines {
		if slices.Contains(q.waiting, e.Actor) && (holder == 0 || owner < holder) {
			holder = owner
		}
	}
	if holder != 0 {
		o.violate(13, e.Session, fmt.Sprintf("invocation %d was dispatched on device %d, which the quarantine of session %d holds until it is reset", e.A, e.Actor, holder))
	}
}

// holds records what a quarantine beginning holds (a device) or keeps (a
// buffer).
func (o *Oracle) holds(e *devices.Event) {
	q := o.quarantines[e.Session]
	if q == nil {
		q = &watchedQuarantine{}
		o.quarantines[e.Session] = q
	}
	if e.Kind == devices.EvHold {
		q.waiting = append(q.waiting, devices.Actor(e.A))
	} else {
		q.kept = append(q.kept, e.A)
	}
}

// checkHolds checks, when w's session is quarantined, that the quarantine
// holds both of its devices and keeps its startup line and every buffer
// its invocations reached (invariant 13).
func (o *Oracle) checkHolds(w *watched, session uint64) {
	q := o.quarantines[session]
	if q == nil {
		q = &watchedQuarantine{}
	}
	for who, d := range w.devices {
		if d != 0 && !slices.Contains(q.waiting, d) {
			o.violate(13, session, fmt.Sprintf("the quarantine does not hold the %s (device %d)", Participant(uint64(who)), d))
		}
	}
	if !slices.Contains(q.kept, w.line) {
		o.violate(13, session, fmt.Sprintf("the quarantine does not keep the startup line (buffer %d)", w.line))
	}
	for _, b := range w.reach {
		if !slices.Contains(q.kept, b) {
			o.violate(13, session, fmt.Sprintf("the quarantine does not keep buffer %d, which the session's programs could reach", b))
		}
	}
}

// deviceReset notes that device d was reset: no quarantine holds it any
// more.
func (o *Oracle) deviceReset(d devices.Actor) {
	for _, q := range o.quarantines {
		q.waiting = slices.DeleteFunc(q.waiting, func(a devices.Actor) bool { return a == d })
	}
}

// checkKept checks the release of a buffer: none that a quarantine keeps
// may be released before each device it holds was reset (invariant 13).
func (o *Oracle) checkKept(e *devices.Event) {
	for owner, q := range o.quarantines { // a buffer is kept by one quarantine at most
		if len(q.waiting) > 0 && slices.Contains(q.kept, e.A) {
			o.violate(13, owner, fmt.Sprintf("buffer %d was released while the quarantine of session %d still holds device %d, not yet reset", e.A, owner, q.waiting[0]))
		}
	}
}

// quarantineEnds checks the end of owner's quarantine: every device it
// held must have been reset since it began (invariant 13).
func (o *Oracle) quarantineEnds(owner uint64) {
	if q := o.quarantines[owner]; q != nil && len(q.waiting) > 0 {
		o.violate(13, owner, fmt.Sprintf("the quarantine ended while device %d, which it holds, was not reset", q.waiting[0]))
	}
	delete(o.quarantines, owner)
}
