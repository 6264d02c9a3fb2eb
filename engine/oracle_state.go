package engine

import (
	"slices"

	"github.com/residentlua/residentlua/devices"
)

// HashState adds to h what the oracle's future verdicts depend on: what it
// keeps of each open session, running invocation and quarantine in force,
// the allocations it counted, how long is long enough for invariant 15,
// and how many violations it found, for a model checker's state hash.
// Times are added relative to the fabric's clock.
func (o *Oracle) HashState(h *devices.StateHash) {
	now := o.fabric.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	h.Add(uint64(o.live))
	h.Add(uint64(o.quarantined))
	h.Add(uint64(len(o.violations)))
	h.Add(uint64(o.longEnough))
	for _, id := range sortedKeys(o.sessions) {
		w := o.sessions[id]
		h.Add(id)
		h.Add(w.line)
		h.Add(uint64(w.devices[0])<<8 | uint64(w.devices[1]))
		h.Add(uint64(len(w.reach)))
		for _, b := range w.reach {
			h.Add(b)
		}
		h.Add(w.decision<<48 | uint64(w.decisions)<<32 | uint64(w.stores))
		h.Add(bits(w.accepted[0], w.accepted[1], w.rejected[0], w.rejected[1], w.aborted[0], w.aborted[1],
			w.ownFault, w.faulted, w.published, w.poisoned, w.retired,
			w.wait.joined[0], w.wait.joined[1], w.wait.failed, w.wait.cancelled, w.wait.overdue,
			w.close.begun, w.close.joined, w.close.reported))
		h.Add(uint64(w.wait.result[0])<<8 | uint64(w.wait.result[1]))
		h.Add(uint64(now - w.wait.at))
		h.Add(uint64(w.wait.timeout))
		h.Add(uint64(w.close.timeout))
	}
	for _, id := range sortedKeys(o.invocations) {
		inv := o.invocations[id]
		h.Add(id)
		h.Add(inv.session<<9 | uint64(inv.device)<<1 | uint64(bits(inv.sawAbort)))
		for _, b := range inv.reach {
			h.Add(b)
		}
	}
	for _, owner := range sortedKeys(o.quarantines) {
		q := o.quarantines[owner]
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

// sortedKeys lists a map's keys in order, so that a hash does not depend
// on the map's iteration order.
func sortedKeys[V any](m map[uint64]V) []uint64 {
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// bits packs flags into a word, the first flag in the lowest bit.
func bits(flags ...bool) uint64 {
	var w uint64
	for i, f := range flags {
		if f {
			w |= 1 << i
		}
	}
	return w
}

// HashState adds to h what the session's future depends on: its decision,
// whether it is poisoned, retired, verified or closed, how its
// participants' completions stand, and the words of its buffers, for a
// model checker's state hash.
func (s *Session) HashState(h *devices.StateHash) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h.Add(s.startup.id)
	h.Add(uint64(s.decision)<<8 | uint64(s.outcome))
	h.Add(bits(s.poisoned, s.retired, s.checked, s.checkErr != nil, s.closing.Err() != nil))
	for _, c := range []*devices.Completion{s.gpuDone, s.npuDone} {
		if c == nil {
			h.Add(0)
			continue
		}
		done, err := c.IsComplete()
		h.Add(c.ID()<<2 | bits(done, err != nil))
		if err != nil {
			h.AddString(err.Error())
		}
	}
	for _, b := range s.buffers() {
		b.HashState(h)
	}
}

// Broken lists the invariant of each violation found so far, in the order
// they were found, appended to dst: cheaper than Violations, which reads
// the events of each, for a checker that looks after every step.
func (o *Oracle) Broken(dst []int) []int {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, v := range o.violations {
		dst = append(dst, v.Invariant)
	}
	return dst
}
