package devices

import (
	"slices"

	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
)

// Profile is one way to allocate memory shared by a set of devices, saying
// for every (device, family) whether it sees the memory coherently.
type Profile struct {
	kind    memory.Kind
	fabric  *Fabric
	made    made
	devices []*Device
}

// AllocationProfiles lists, best first, the profiles that can share memory
// between devs; with hostAccess only host-accessible ones.
func (f *Fabric) AllocationProfiles(devs []*Device, hostAccess bool) ([]*Profile, error) {
	if len(devs) == 0 {
		return nil, failure.Errorf(failure.Invalid, "profiles", "no devices given")
	}
	for _, d := range devs {
		if d == nil || d.fabric != f {
			return nil, failure.Errorf(failure.Invalid, "profiles", "a device is not part of this fabric")
		}
	}
	kinds := make([]memory.Kind, 0, 3) // on the stack
	switch {
	case acceleratorOf(devs) != nil:
		kinds = append(kinds, memory.Pinned) // the accelerator reaches nothing else
	case f.fineGrained:
		kinds = append(kinds, memory.FineGrained, memory.CoarseGrained)
	default:
		kinds = append(kinds, memory.CoarseGrained)
	}
	if !hostAccess {
		kinds = append(kinds, memory.DeviceLocal)
	}
	// The profiles, their list and the devices they share, made together.
	profiles := make([]Profile, len(kinds))
	out := make([]*Profile, len(kinds))
	shared := slices.Clone(devs)
	for i, k := range kinds {
		profiles[i] = Profile{kind: k, fabric: f, made: f.madeNow(), devices: shared}
		out[i] = &profiles[i]
	}
	return out, nil
}

// acceleratorOf is the accelerator of the first accelerated device, or nil.
func acceleratorOf(devs []*Device) backend.Accelerator {
	for _, d := range devs {
		if d.accel != nil {
			return d.accel
		}
	}
	return nil
}

// Kind is the profile's kind.
func (p *Profile) Kind() memory.Kind { return p.kind }

// Coherent reports whether family sees memory of this profile coherently.
func (p *Profile) Coherent(d *Device, family QueueFamily) bool {
	if p.kind == memory.Pinned {
		return d.accel != nil
	}
	return p.kind == memory.FineGrained && d.kind == GPU
}

// Allocate takes size bytes (rounded up to whole lines), zeroed, charged to
// budget (the fabric's when nil): carved from the fabric's arena, or lent by
// the accelerator for pinned memory. owner tags the buffer's events.
func (p *Profile) Allocate(size int, budget *memory.Budget, owner uint64) (*Buffer, error) {
	f := p.fabric
	if budget == nil {
		budget = &f.budget
	}
	if p.made.stale() {
		return nil, staleError("alloc", "the "+p.kind.String()+" profile")
	}
	if p.kind == memory.DeviceLocal {
		return nil, failure.Errorf(failure.Unsupported, "alloc", "device-local memory is not host-accessible; allocate from a host profile")
	}
	if size <= 0 || size > maxBuffer {
		return nil, failure.Errorf(failure.Invalid, "alloc", "cannot allocate %d bytes; give a size from 1 to %d", size, maxBuffer)
	}
	if fired := f.hitFault(event.HostActor, owner, fault.MemoryAlloc); fired.Action == fault.Error {
		f.events.Emit(event.HostActor, owner, evAllocFailed, 0, uint64(size), fired.Message)
		return nil, failure.Errorf(failure.Device, "alloc", "allocation of %d bytes failed: %s", size, fired.Message)
	}
	rounded := memory.RoundUp(size)
	made, lineStale := newAllocated(rounded)
	region, err := &made.region, error(nil) // kept with the buffer
	if p.kind == memory.Pinned {
		region, err = acceleratorOf(p.devices).Map(rounded)
	} else {
		err = f.arena.AllocIn(region, rounded)
	}
	if err != nil {
		f.events.Emit(event.HostActor, owner, evAllocFailed, 0, uint64(rounded), failure.Detail(err))
		return nil, failure.Errorf(failure.Device, "alloc", "%w", err)
	}
	b := &made.buffer
	b.lineStale = lineStale
	b.owner, b.profile, b.budget, b.region = owner, p, budget, region
	n := 0
	for _, d := range p.devices {
		n += len(d.families)
	}
	b.attachments = made.attachments[:0]
	if n > len(made.attachments) {
		b.attachments = make([]attachment, 0, n)
	}
	for _, d := range p.devices {
		for _, fam := range d.families {
			b.attachments = append(b.attachments, attachment{device: d, family: fam, coherent: p.Coherent(d, fam)})
		}
	}
	// Charge and say so in one step: a subscriber never sees one without the other.
	f.events.Atomically(func(emit event.EmitFunc) {
		if st, ok := budget.Charge(int64(rounded)); !ok {
			err = failure.Errorf(failure.Budget, "alloc", "allocating %d bytes would exceed the memory budget (%d of %d bytes charged, %d quarantined); close sessions, reset devices to release quarantines, or raise the budget",
				rounded, st.Charged, st.Limit, st.Quarantined)
			emit(event.HostActor, owner, evAllocFailed, 0, uint64(rounded), "budget")
			return
		}
		b.id = f.newID()
		emit(event.HostActor, owner, event.EvAlloc, b.id, uint64(rounded), b.budgetLabel())
	})
	if err != nil {
		_ = region.Unmap()
		return nil, err
	}
	return b, nil
}

// maxBuffer bounds one allocation: 1 GiB.
const maxBuffer = 1 << 30

// evAllocFailed is an allocation that failed. Detail: why.
var evAllocFailed = program.DefineEvent("alloc.failed", program.CategoryMemory)
