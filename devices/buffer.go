package devices

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/residentlua/residentlua/devices/choice"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
)

// Buffer is memory shared by the host and the devices of its profile. The
// host reads and writes it directly; devices go through a View, which
// applies the memory model (docs/memory-model.md).
type Buffer struct {
	id          uint64
	owner       uint64
	profile     *Profile
	budget      *memory.Budget
	region      *memory.Region
	attachments []attachment   // one allocation for all of them: a session makes several buffers
	lineStale   *lineStaleness // room for one staleness of a one-line buffer, or nil
	name        string         // what its program calls it (Name), for reports
	plain       *plainBuffer   // in simulated time, its words' unpublished plain stores (rule 8), guarded by the simulated executor's lock

	hostMu      sync.Mutex // serialises host stores and releases
	released    bool       // guarded by fabric.mu
	quarantined bool       // guarded by fabric.mu
}

// Name gives the buffer the name its programs call it by, which reports
// of it (a read the memory model's rule 8 forbids, say) then use instead
// of its number.
func (b *Buffer) Name(name string) { b.name = name }

// describe is the buffer as reports name it: "buffer 3" or "buffer 3
// (flags)".
func (b *Buffer) describe() string {
	if b.name == "" {
		return "buffer " + strconv.FormatUint(b.id, 10)
	}
	return "buffer " + strconv.FormatUint(b.id, 10) + " (" + b.name + ")"
}

// allocated is a buffer and room for its attachments and its region, made
// together.
type allocated struct {
	buffer      Buffer
	attachments [4]attachment // a GPU's three families and an NPU's one
	region      memory.Region
}

// lineAllocated is a one-line buffer (a session's startup line) made with
// room for what one non-coherent family's view of it needs once the host
// stores into it.
type lineAllocated struct {
	allocated
	stale lineStaleness
}

// lineStaleness is a staleness of one line and its storage.
type lineStaleness struct {
	taken bool // by an attachment; guarded by the buffer's hostMu
	st    staleness
	lines [1]atomic.Bool
	words [memory.LineBytes / 4]atomic.Uint32
}

// newAllocated makes the room of a buffer of size bytes (whole lines),
// with the room of a line's staleness when it is one line.
func newAllocated(size int) (*allocated, *lineStaleness) {
	if size == memory.LineBytes {
		l := new(lineAllocated)
		return &l.allocated, &l.stale
	}
	return new(allocated), nil
}

// Renewed reports whether b's fabric was renewed (Fabric.Renew) since b
// was made: every operation on b then fails with failure.Stale. A client that
// makes handles of its own over a buffer (the engine's sessions over their
// startup line) asks it to refuse them in turn.
func (b *Buffer) Renewed() bool { return b.profile.made.stale() }

// staleError is the error of op on b when b's fabric was renewed since b
// was made, or nil.
func (b *Buffer) staleError(op string) error {
	if !b.profile.made.stale() {
		return nil
	}
	return staleError(op, "buffer "+strconv.FormatUint(b.id, 10))
}

// attachment is how one queue family of one device sees the buffer.
type attachment struct {
	device   *Device
	family   QueueFamily
	coherent bool
	// stale exists once the host has stored into the buffer: it marks the
	// lines whose host stores this (non-coherent) family does not see yet,
	// with what those lines held when it last could see them.
	stale atomic.Pointer[staleness]
}

type staleness struct {
	lines []atomic.Bool
	words []atomic.Uint32
}

// ID identifies the buffer in events.
func (b *Buffer) ID() uint64 { return b.id }

// Profile is the profile the buffer was allocated from.
func (b *Buffer) Profile() *Profile { return b.profile }

// Budget is the budget the buffer is charged to.
func (b *Buffer) Budget() *memory.Budget { return b.budget }

// Region is the buffer's memory, for a hardware backend that hands its
// address to the device (a kernel launch); programs use views, the host
// HostLoad and Publish.
func (b *Buffer) Region() *memory.Region { return b.region }

// HostLoad reads a word as the host sees it (coherent, acquire).
func (b *Buffer) HostLoad(off int) uint32 { return b.region.Load(off) }

// Publish records cause, stores v into the word at off as the host (a
// release store: non-coherent families do not see it until a publication
// covering it lands), then executes pubs in order, and returns the first
// publication's error, leaving the rest unexecuted: the protocol's
// publish(decision). cause is what made the host publish, such as the
// engine's decision; the stream sets its Seq and Time, and Publish returns
// that time (unset when it failed before recording cause).
//
// A publication is one step of the host, and its events, cause first,
// share the instant it began, as every event of a step does in simulated
// time: one clock read instead of one an event. They enter the stream
// together once the last release is made, so that recording them (the
// stream's lock, ring, digest and subscribers) stands neither between the
// decision and its store nor between the store and the release a device
// waits for; no device's events enter the stream meanwhile (event.Stream.gate),
// so none that a release allowed comes before them. In simulated time,
// where a step is one instant anyway, they enter the stream as they
// happen: a subscriber (the oracle, the model checker) sees the decision
// before the choices its publication makes.
//
// On a stale buffer, or with a stale publication, it does nothing and
// fails with failure.Stale.
func (b *Buffer) Publish(cause event.Event, off int, v uint32, pubs []*Publication) (event.Stamp, error) {
	if err := b.staleError("publish"); err != nil {
		return event.Stamp{}, err
	}
	for _, p := range pubs {
		if err := p.buffer.staleError("publish"); err != nil {
			return event.Stamp{}, err
		}
	}
	f := b.profile.fabric
	realTime := f.simulated() == nil
	events := f.events.Direct()
	if realTime {
		events = f.events.BeginBatch()
		defer events.EndBatch()
	}
	at := event.Stamp{At: events.Emit(cause.Actor, cause.Session, cause.Kind, cause.A, cause.B, cause.Detail), Set: true}
	if realTime && len(pubs) <= atOnce {
		return at, b.publishAtOnce(&events, off, v, pubs)
	}
	b.hostStore(off, v, &events)
	for _, p := range pubs {
		if err := p.execute(&events); err != nil {
			return at, err
		}
	}
	return at, nil
}

// atOnce is how many publications publishAtOnce takes: a startup line has
// three (PM4, AQL, XDNA); more go the general way.
const atOnce = 8

// publishAtOnce is Publish in real time, once its cause is recorded,
// where the devices waiting for the store run on threads of their own, and
// the host's work between the decision and the store is on their path:
//   - The releases' fault sites are hit before the store, which must know
//     whether every release lands; their events, which take the step's
//     instant as every event of it does, are recorded after the store.
//   - When every non-coherent family will see the stored line released in
//     this very step, the store is made visible to all at once: hiding the
//     line from a family and showing it again within one host step changes
//     nothing a device can tell, and would cost the device that waits for
//     the release a second cache line to take from the host (the line's
//     mark) after the first (the word).
//   - Where a release will not land (a fault skips it or fails it), the
//     line is hidden as hostStore hides it.
func (b *Buffer) publishAtOnce(events *event.HostEvents, off int, v uint32, pubs []*Publication) error {
	f := b.profile.fabric
	var fired [atOnce]fault.Fired
	hits := len(pubs)  // the releases whose site was hit: up to the first that failed
	var landing uint64 // bit i: pubs[i] lands
	for i, p := range pubs {
		fired[i] = p.hit()
		if fired[i].Action == fault.Error {
			hits = i + 1
			break
		}
		if fired[i].Action != fault.Skip {
			landing |= 1 << i
		}
	}
	line := off / memory.LineBytes
	b.hostMu.Lock()
	if !b.releasedToAll(line, pubs, landing) {
		b.hideFromNonCoherent(line, line+1)
	}
	b.region.Store(off, v)
	b.hostMu.Unlock()
	f.exec.changed()
	events.Emit(event.HostActor, b.owner, event.EvHostStore, b.id, uint64(v), "")
	var err error
	for i, p := range pubs[:hits] {
		if lands, e := p.record(events, fired[i]); lands {
			p.land()
		} else if e != nil {
			err = e
		}
	}
	return err
}

// releasedToAll reports whether the landing publications release line to
// every non-coherent family of the buffer.
func (b *Buffer) releasedToAll(line int, pubs []*Publication, landing uint64) bool {
	for i := range b.attachments {
		a := &b.attachments[i]
		if a.coherent {
			continue
		}
		covered := false
		for j, p := range pubs {
			if landing&(1<<j) != 0 && p.att == a && p.lo <= line && line < p.hi {
				covered = true
				break
			}
		}
		if !covered {
			return false
		}
	}
	return true
}

// hostStore writes a word as the host (a release store), its events going
// to events. Non-coherent families do not see it until a publication
// covering it lands.
func (b *Buffer) hostStore(off int, v uint32, events *event.HostEvents) {
	f := b.profile.fabric
	f.landPending() // a release in flight lands before the host stores again
	// The event comes first (in a publication, its batch holds the stream's
	// gate), so no device's observation precedes it in the stream.
	events.Emit(event.HostActor, b.owner, event.EvHostStore, b.id, uint64(v), "")
	b.hostMu.Lock()
	b.hideFromNonCoherent(off/memory.LineBytes, off/memory.LineBytes+1)
	b.region.Store(off, v)
	b.hostMu.Unlock()
	f.exec.changed()
}

// Zero stores zero into every word as the host. A line that holds zeros
// already is not stored into: it stays as the non-coherent families see it
// (shown, or hidden since an earlier host store). A host store into it
// would change no word, yet hide the line, and the device that waits on
// the line would take its mark from the host when a release shows it
// again, a second cache line after the word: a session's startup line,
// made zeroed, reaches the NPU with its RUN alone. It fails only on a stale
// buffer (failure.Stale), storing nothing.
func (b *Buffer) Zero() error {
	if err := b.staleError("zero"); err != nil {
		return err
	}
	f := b.profile.fabric
	f.landPending()
	b.hostMu.Lock()
	for line := range b.region.Len() / memory.LineBytes {
		if b.zeroLine(line) {
			continue
		}
		b.hideFromNonCoherent(line, line+1)
		for off := line * memory.LineBytes; off < (line+1)*memory.LineBytes; off += 4 {
			b.region.Store(off, 0)
		}
	}
	b.hostMu.Unlock()
	f.exec.changed()
	return nil
}

// zeroLine reports whether every word of line holds zero.
func (b *Buffer) zeroLine(line int) bool {
	for off := line * memory.LineBytes; off < (line+1)*memory.LineBytes; off += 4 {
		if b.region.Load(off) != 0 {
			return false
		}
	}
	return true
}

// hideFromNonCoherent snapshots lines [lo, hi) for every non-coherent family
// that still sees them, before the host changes them. Call with hostMu held.
func (b *Buffer) hideFromNonCoherent(lo, hi int) {
	const wordsPerLine = memory.LineBytes / 4
	for i := range b.attachments {
		a := &b.attachments[i]
		if a.coherent {
			continue
		}
		st := a.stale.Load()
		if st == nil {
			lines := b.region.Len() / memory.LineBytes
			if ls := b.lineStale; ls != nil && lines == 1 && !ls.taken {
				ls.taken = true
				ls.st = staleness{lines: ls.lines[:], words: ls.words[:]}
				st = &ls.st
			} else {
				st = &staleness{lines: make([]atomic.Bool, lines), words: make([]atomic.Uint32, lines*wordsPerLine)}
			}
			a.stale.Store(st)
		}
		for line := lo; line < hi; line++ {
			if st.lines[line].Load() {
				continue
			}
			for w := line * wordsPerLine; w < (line+1)*wordsPerLine; w++ {
				// An atomic store is a locked instruction: storing only
				// the words that changed since the line's last snapshot
				// makes a copy 16 loads and few stores (none, for a
				// startup line that still holds WAIT).
				if v := b.region.Load(w * 4); st.words[w].Load() != v {
					st.words[w].Store(v)
				}
			}
			st.lines[line].Store(true)
		}
	}
}

func (b *Buffer) attachment(d *Device, family QueueFamily) (*attachment, error) {
	for i := range b.attachments {
		if a := &b.attachments[i]; a.device == d && a.family.ordinal == family.ordinal {
			return a, nil
		}
	}
	return nil, failure.Errorf(failure.Invalid, "view", "buffer %d is not shared with %s family %d (%s)", b.id, d.name, family.ordinal, family.Command)
}

// Release unmaps the buffer and returns its budget. It refuses, and keeps the
// memory, while a program that can reach the buffer has not retired or while
// a quarantine holds it; the refused attempt is recorded as an event, so the
// oracle sees it. A stale buffer is refused (failure.Stale) and keeps its
// memory, which the renewed fabric never carves again.
func (b *Buffer) Release() error {
	if err := b.staleError("release"); err != nil {
		return err
	}
	f := b.profile.fabric
	var pinned []*memory.Region
	defer unmapAll(&pinned) // after f.mu is unlocked
	f.mu.Lock()
	defer f.mu.Unlock()
	if b.released {
		return failure.Errorf(failure.Busy, "release", "buffer %d is already released", b.id)
	}
	refuse := func(err *failure.Error) error {
		f.events.Emit(event.HostActor, b.owner, event.EvReleaseRefused, b.id, uint64(b.region.Len()), err.Message)
		return err
	}
	if b.quarantined {
		return refuse(failure.Errorf(failure.Busy, "release", "buffer %d is quarantined; reset its devices to release it", b.id))
	}
	if inv := f.reachingLocked(b); inv != nil {
		return refuse(failure.Errorf(failure.Busy, "release", "buffer %d is still reachable by invocation %d on %s; wait for it to retire, quarantine it, or reset the device", b.id, inv.id, inv.dev.name))
	}
	f.events.Atomically(func(emit event.EmitFunc) { pinned = b.releaseEmitting(false, emit, pinned) })
	return nil
}

// releaseEmitting refunds and unmaps b and emits its release with emit
// (fabric.mu held, inside event.Stream.Atomically). Pinned memory, whose
// unmapping is a driver call on the accelerator's thread, is appended to
// pinned instead, for the caller to unmap once it holds no lock
// (unmapAll); the budget is refunded at once either way.
func (b *Buffer) releaseEmitting(quarantined bool, emit event.EmitFunc, pinned []*memory.Region) []*memory.Region {
	b.released = true
	size := b.region.Len()
	b.budget.Refund(int64(size), quarantined)
	if b.profile.kind == memory.Pinned {
		pinned = append(pinned, b.region)
	} else {
		_ = b.region.Unmap() // only fails when already unmapped, which released excludes
	}
	emit(event.HostActor, b.owner, event.EvRelease, b.id, uint64(size), b.budgetLabel())
	return pinned
}

// unmapAll unmaps the regions that releaseEmitting set aside; *regions
// since it may be deferred before they are known. Call it with no lock of
// the fabric held.
func unmapAll(regions *[]*memory.Region) {
	for _, r := range *regions {
		_ = r.Unmap() // released once: never unmapped before
	}
}

func (b *Buffer) budgetLabel() string {
	if b.budget != &b.profile.fabric.budget {
		return event.PrivateBudget
	}
	return ""
}

// Publication is a prepared host release: executing it (Publish) makes the
// host's stores to a range visible to one queue family.
type Publication struct {
	buffer *Buffer
	att    *attachment
	lo, hi int    // lines
	label  string // "npu0 xdna", for events
}

// PrepareHostRelease prepares a release of bytes [lo, hi) of b for family of d.
func (b *Buffer) PrepareHostRelease(d *Device, family QueueFamily, lo, hi int) (*Publication, error) {
	if err := b.staleError("publication"); err != nil {
		return nil, err
	}
	a, err := b.attachment(d, family)
	if err != nil {
		return nil, err
	}
	if lo < 0 || hi > b.region.Len() || lo >= hi {
		return nil, failure.Errorf(failure.Invalid, "publication", "range [%d, %d) is outside buffer %d of %d bytes", lo, hi, b.id, b.region.Len())
	}
	p := &Publication{buffer: b, att: a, lo: lo / memory.LineBytes, hi: (hi + memory.LineBytes - 1) / memory.LineBytes,
		label: d.labels[family.ordinal]}
	return p, nil
}

// execute performs the release, its events going to events. The fault
// site host.publish can make it fail (error) or do nothing (skip).
func (p *Publication) execute(events *event.HostEvents) error {
	lands, err := p.record(events, p.hit())
	if !lands {
		return err
	}
	b := p.buffer
	f := b.profile.fabric
	if sim := f.simulated(); sim != nil && p.att.stale.Load() != nil &&
		sim.chooser != nil && ask(sim.chooser, 2, &alternatives{kind: choice.Landing, pub: p}) == 1 {
		sim.deferLanding(p)
		return nil
	}
	p.land()
	return nil
}

// hit lands an earlier release in flight, then hits the release's fault
// site.
func (p *Publication) hit() fault.Fired {
	f := p.buffer.profile.fabric
	f.landPending()
	return f.faults.Hit(fault.HostPublish)
}

// record records the release, whose fault site fired fired: lands reports
// whether it is to land, err the error of a release the fault failed.
func (p *Publication) record(events *event.HostEvents, fired fault.Fired) (lands bool, err error) {
	b := p.buffer
	recordFault(events, event.HostActor, b.owner, fault.HostPublish, fired)
	switch fired.Action {
	case fault.Error:
		events.Emit(event.HostActor, b.owner, event.EvPublication, uint64(p.att.device.actor), 2, p.label+": "+fired.Message)
		return false, failure.Errorf(failure.Publish, "publish", "host release of buffer %d to %s %s failed: %s", b.id, p.att.device.name, p.att.family.Command, fired.Message)
	case fault.Skip:
		events.Emit(event.HostActor, b.owner, event.EvPublication, uint64(p.att.device.actor), 1, p.label)
		return false, nil
	}
	events.Emit(event.HostActor, b.owner, event.EvPublication, uint64(p.att.device.actor), 0, p.label)
	return true, nil
}

// land un-hides the publication's lines for its family: the release's
// effect on what the family sees. A line already shown is not stored
// again, so that its mark's cache line stays with the devices that read it
// at every load.
func (p *Publication) land() {
	b := p.buffer
	st := p.att.stale.Load()
	if st == nil {
		return
	}
	shown := false
	b.hostMu.Lock()
	for line := p.lo; line < p.hi; line++ {
		if st.lines[line].Load() {
			st.lines[line].Store(false)
			shown = true
		}
	}
	b.hostMu.Unlock()
	if shown {
		b.profile.fabric.exec.changed()
	}
}
