package devices

import (
	"golang.org/x/sys/cpu"

	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
)

// View is how one device program reaches a buffer through one queue family.
//
// A coherent view loads and stores memory at once. A non-coherent view
// (the NPU's XDNA DMA) reads what the buffer holds, except lines the host
// stored into since the last host release for this family: those read as
// they were then. Its stores stay in the device (its reads see them) until
// Drain writes them back to memory.
//
// A view keeps what its loads and stores need (the buffer's memory, whether
// the family is coherent, the fabric's executor) itself, so that a program
// polling a word reads no line of the Buffer or of a coherent family's
// attachment, which share lines with the lock the host takes to store.
type View struct {
	buffer   *Buffer
	region   *memory.Region
	coherent bool
	exec     executor
	att      *attachment
	pending  []pendingWrite
	plain    *plainWords // in simulated time, the plain stores not yet published (rule 8); nil in real time
	meter    *meter      // the device's, which its program's loads and stores pay
	// lines is which lines the meter charges a load for: the buffer's id
	// and the family's ordinal, as the meter keys the line it last paid.
	lines meterKey
}

// paddedView is a view on cache lines of its own, as a real-time fabric
// makes them: the NPU's stores write pending while the GPU reads its own
// view, which may have been made just after this one, and the pad keeps
// them off one cache line, which the two devices' threads would otherwise
// take from each other on every store. In simulated time one thread runs
// every device, and a view needs no pad.
type paddedView struct {
	View
	_ cpu.CacheLinePad
}

// pendingWrite is a store a non-coherent view keeps until its drain;
// plain when every store to the word since the last drain was (StorePlain).
type pendingWrite struct {
	off   int
	val   uint32
	plain bool
}

// View returns a view of b for family of d, for one program.
func (b *Buffer) View(d *Device, family QueueFamily) (*View, error) {
	if err := b.staleError("view"); err != nil {
		return nil, err
	}
	a, err := b.attachment(d, family)
	if err != nil {
		return nil, err
	}
	v := View{buffer: b, region: b.region, coherent: a.coherent, exec: b.profile.fabric.exec, att: a,
		meter: &d.meter, lines: meterKey{b.id, uint64(family.ordinal)}}
	if s := b.profile.fabric.simulated(); s != nil {
		v.plain = &s.plain
	}
	if b.profile.fabric.mode == RealTime {
		p := &paddedView{View: v}
		return &p.View, nil
	}
	return &v, nil
}

// Buffer is the viewed buffer.
func (v *View) Buffer() *Buffer { return v.buffer }

// Coherent reports whether the view sees memory coherently.
func (v *View) Coherent() bool { return v.coherent }

// Load reads the word at byte offset off as this family sees it. The
// program's step pays for the word's line (meter).
func (v *View) Load(off int) uint32 { return v.load(off, true) }

// load reads the word at off as this family sees it. A program's load
// (program) pays for the word's line when the meter charges it, and is
// looked at by rule 8 while some word is unpublished; the executor's look
// at a waiter's word, which is no read of the program's, is neither.
func (v *View) load(off int, program bool) uint32 {
	if program {
		if v.meter.loads(v, off) {
			v.meter.load(v, off)
		}
		if v.plain != nil && v.plain.n != 0 {
			v.plain.read(v.buffer, off, v.att.device)
		}
	}
	if v.coherent {
		return v.region.Load(off)
	}
	for i := len(v.pending) - 1; i >= 0; i-- {
		if v.pending[i].off == off {
			return v.pending[i].val
		}
	}
	// The word, then whether its line is hidden: a host store marks the
	// line hidden (and snapshots it) before it stores, so a word stored
	// since the family's last release is never returned. Loading the word
	// first, even while the line is hidden, means a poller whose line is
	// released already holds the word and misses on the mark alone.
	val := v.region.Load(off)
	if st := v.att.stale.Load(); st != nil && st.lines[off/memory.LineBytes].Load() {
		return st.words[off/4].Load()
	}
	return val
}

// Store writes the word at off: at once when coherent, at the next Drain otherwise.
func (v *View) Store(off int, val uint32) {
	v.meter.store()
	if v.coherent {
		if v.plain != nil && v.plain.n != 0 {
			v.plain.publish(v.att.device)
		}
		v.region.Store(off, val)
		v.exec.changed()
		return
	}
	v.keep(off, val, false)
}

// keep keeps a store of a non-coherent view until its drain.
func (v *View) keep(off int, val uint32, plain bool) {
	for i := range v.pending {
		if p := &v.pending[i]; p.off == off {
			p.val, p.plain = val, p.plain && plain
			return
		}
	}
	v.pending = append(v.pending, pendingWrite{off, val, plain})
}

// StorePlain writes the word at off as Store does, but with no ordering of
// its own and, when coherent, no doorbell: another program may read it only
// after it has loaded a later Store of this program, such as the generation
// word that publishes a slot's data (memory.Region.StorePlain). A
// non-coherent view keeps it pending, as any store, and its drain writes
// it with a plain store too.
func (v *View) StorePlain(off int, val uint32) {
	v.meter.store()
	if v.coherent {
		v.region.StorePlain(off, val) // first: a word outside the buffer panics before rule 8 notes it
		if v.plain != nil {
			v.plain.wrote(v.buffer, off, v.att.device)
		}
		return
	}
	v.keep(off, val, true)
}

// WritePlain stores words from off on, one after another, each as
// StorePlain does: what a program writing a run of data before the store
// that publishes it does, at one bookkeeping of rule 8 for the run.
func (v *View) WritePlain(off int, words []uint32) {
	v.meter.store()
	if !v.coherent {
		for i, w := range words {
			v.keep(off+4*i, w, true)
		}
		return
	}
	v.region.WritePlain(off, words) // first: words outside the buffer panic before rule 8 notes them
	if v.plain != nil {
		v.plain.wroteWords(v.buffer, off, len(words), v.att.device)
	}
}

// Flip flips bits of a word in memory, as a fault would (no ordering, no drain).
func (v *View) Flip(off int, mask uint32) { v.region.Xor(off, mask) }

// Drain writes the view's pending stores back to memory, in the order they
// were made, and returns how many words it wrote. The program's step pays
// a line's DMA for each line the words lie on (meter).
func (v *View) Drain() int {
	v.meter.drain(v.pending)
	n := len(v.pending)
	if n == 0 {
		return 0
	}
	for _, p := range v.pending {
		if p.plain {
			v.region.StorePlain(p.off, p.val)
		} else {
			v.region.Store(p.off, p.val)
		}
	}
	v.pending = v.pending[:0]
	v.exec.changed()
	return n
}

// Discard forgets the pending stores, as a device reset or an undrained
// retirement does.
func (v *View) Discard() { v.pending = v.pending[:0] }

// Size is the buffer's size in bytes (whole lines).
func (v *View) Size() int { return v.region.Len() }

// peeker is a view as the executor looks through it while a program
// waits: its loads are the executor's, which no step pays for.
type peeker struct{ *View }

// Load reads the word as the view sees it, charging no step.
func (p peeker) Load(off int) uint32 { return p.View.load(off, false) }

// peek is the view for the executor's looks (peeker).
func (v *View) peek() program.View { return peeker{v} }
