package devices

import (
	"slices"
	"time"

	"github.com/residentlua/residentlua/devices/event"

	"github.com/residentlua/residentlua/devices/memory"
)

// quarantine is memory a device may still reach, kept mapped and charged,
// with the devices that might reach it held occupied, until every one of
// those devices has been reset and no running program can reach the memory
// (a program dispatched after one of the resets may).
type quarantine struct {
	owner   uint64
	label   string
	since   time.Duration
	bytes   int64
	private int64 // of bytes, those charged to budgets other than the fabric's
	buffers []*Buffer
	waiting []*Device // devices not yet reset
}

// QuarantineInfo describes a quarantine.
type QuarantineInfo struct {
	Owner   uint64        // the owner tag (session id)
	Label   string        // why, in words
	Since   time.Duration // fabric time it began
	Bytes   int64         // memory kept
	Waiting []string      // devices that must still be reset
	// ReachedBy lists the running invocations that can reach the memory
	// (by id); once the devices are reset the quarantine ends when these
	// have retired.
	ReachedBy []uint64
}

// Quarantine keeps bufs mapped and charged and holds devs occupied until each
// of them is reset. It never frees anything. Stale buffers (made before the
// fabric was renewed) are refused with failure.Stale, and then nothing is held.
func (f *Fabric) Quarantine(owner uint64, label string, devs []*Device, bufs []*Buffer) error {
	for _, b := range bufs {
		if err := b.staleError("quarantine"); err != nil {
			return err
		}
	}
	q := &quarantine{}
	f.mu.Lock()
	defer f.mu.Unlock()
	q.owner, q.label, q.since = owner, label, f.exec.now()
	for _, d := range devs {
		d.held++
		q.waiting = append(q.waiting, d)
	}
	f.quarantines = append(f.quarantines, q)
	f.events.Atomically(func(emit event.EmitFunc) {
		for _, d := range devs {
			emit(event.HostActor, owner, event.EvHold, uint64(d.actor), 0, "")
		}
		for _, b := range bufs {
			if b.released || b.quarantined {
				continue
			}
			emit(event.HostActor, owner, event.EvKeep, b.id, uint64(b.region.Len()), "")
			b.quarantined = true
			q.buffers = append(q.buffers, b)
			q.bytes += int64(b.region.Len())
			if b.budget != &f.budget {
				q.private += int64(b.region.Len())
			}
			b.budget.Quarantine(int64(b.region.Len()))
		}
		emit(event.HostActor, owner, event.EvQuarantine, uint64(q.bytes-q.private), uint64(q.private), label)
	})
	return nil
}

// Quarantining reports whether a quarantine of owner's is still in force:
// whether Quarantines lists one with that Owner, without listing them.
func (f *Fabric) Quarantining(owner uint64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.ContainsFunc(f.quarantines, func(q *quarantine) bool { return q.owner == owner })
}

// Quarantines lists the quarantines still in force, oldest first.
func (f *Fabric) Quarantines() []QuarantineInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]QuarantineInfo, 0, len(f.quarantines))
	for _, q := range f.quarantines {
		info := QuarantineInfo{Owner: q.owner, Label: q.label, Since: q.since, Bytes: q.bytes}
		for _, d := range q.waiting {
			info.Waiting = append(info.Waiting, d.name)
		}
		for _, b := range q.buffers {
			if inv := f.reachingLocked(b); inv != nil && !slices.Contains(info.ReachedBy, inv.id) {
				info.ReachedBy = append(info.ReachedBy, inv.id)
			}
		}
		out = append(out, info)
	}
	return out
}

// releaseResetQuarantines notes that d was reset and releases every
// quarantine that waits for no device and whose memory no running program
// can reach; it returns the pinned memory to unmap once fabric.mu is
// unlocked (fabric.mu held).
func (f *Fabric) releaseResetQuarantines(d *Device) (pinned []*memory.Region) {
	for _, q := range f.quarantines {
		if i := slices.Index(q.waiting, d); i >= 0 {
			q.waiting = slices.Delete(q.waiting, i, i+1)
		}
	}
	return f.releaseQuarantinesLocked()
}

// settleQuarantines releases the quarantines that only waited for programs
// to retire, after one did. It takes fabric.mu, so callers hold no lock of
// the fabric or its executor.
func (f *Fabric) settleQuarantines() {
	if f.lingering.Load() == 0 {
		return
	}
	f.mu.Lock()
	pinned := f.releaseQuarantinesLocked()
	f.mu.Unlock()
	unmapAll(&pinned)
}

// releaseQuarantinesLocked ends every quarantine that waits for no device
// and whose buffers no running program reaches, and counts those left
// waiting only for programs. It returns the pinned memory to unmap once
// fabric.mu is unlocked (fabric.mu held).
func (f *Fabric) releaseQuarantinesLocked() (pinned []*memory.Region) {
	kept := f.quarantines[:0]
	lingering := int64(0)
	for _, q := range f.quarantines {
		if len(q.waiting) > 0 {
			kept = append(kept, q)
			continue
		}
		if f.reachedLocked(q) {
			kept = append(kept, q)
			lingering++
			continue
		}
		f.events.Atomically(func(emit event.EmitFunc) {
			for _, b := range q.buffers {
				pinned = b.releaseEmitting(true, emit, pinned)
			}
			emit(event.HostActor, q.owner, event.EvQuarantineEnd, uint64(q.bytes-q.private), uint64(q.private), q.label)
		})
	}
	clear(f.quarantines[len(kept):])
	f.quarantines = kept
	f.lingering.Store(lingering)
	return pinned
}

// reachedLocked reports whether a running program can reach one of q's
// buffers (fabric.mu held).
func (f *Fabric) reachedLocked(q *quarantine) bool {
	for _, b := range q.buffers {
		if f.reachingLocked(b) != nil {
			return true
		}
	}
	return false
}

// reachingLocked is a running invocation that can reach b, or nil
// (fabric.mu held).
func (f *Fabric) reachingLocked(b *Buffer) *invocation {
	for _, d := range f.devices {
		if inv := d.current; inv != nil && !inv.comp.retired() && inv.reaches(b) {
			return inv
		}
	}
	return nil
}
