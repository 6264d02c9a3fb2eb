package devices

import (
	"golang.org/x/sys/cpu"

	"github.com/residentlua/residentlua/devices/memory"
)

// View is how one device program reaches a buffer through one queue family.
//
// A coherent view loads and stores memory at once. A non-coherent view
// (the NPU's XDNA DMA) reads what the buffer holds, except lines the host
// stored into since the last host release for this family: those read as
// they were then. Its stores stay in the device (its reads see them) until
// Drain writes them back to memory.
type View struct {
	buffer  *Buffer
	att     *attachment
	pending []pendingWrite
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

type pendingWrite struct {
	off int
	val uint32
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
	if b.profile.fabric.mode == RealTime {
		p := &paddedView{View: View{buffer: b, att: a}}
		return &p.View, nil
	}
	return &View{buffer: b, att: a}, nil
}

// Buffer is the viewed buffer.
func (v *View) Buffer() *Buffer { return v.buffer }

// Coherent reports whether the view sees memory coherently.
func (v *View) Coherent() bool { return v.att.coherent }

// Load reads the word at byte offset off as this family sees it.
func (v *View) Load(off int) uint32 {
	if v.att.coherent {
		return v.buffer.region.Load(off)
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
	val := v.buffer.region.Load(off)
	if st := v.att.stale.Load(); st != nil && st.lines[off/memory.LineBytes].Load() {
		return st.words[off/4].Load()
	}
	return val
}

// Store writes the word at off: at once when coherent, at the next Drain otherwise.
func (v *View) Store(off int, val uint32) {
	if v.att.coherent {
		v.buffer.region.Store(off, val)
		v.buffer.profile.fabric.exec.changed()
		return
	}
	for i := range v.pending {
		if v.pending[i].off == off {
			v.pending[i].val = val
			return
		}
	}
	v.pending = append(v.pending, pendingWrite{off, val})
}

// StorePlain writes the word at off as Store does, but with no ordering of
// its own and, when coherent, no doorbell: another program may read it only
// after it has loaded a later Store of this program, such as the generation
// word that publishes a slot's data (memory.Region.StorePlain). A
// non-coherent view keeps it pending, as any store.
func (v *View) StorePlain(off int, val uint32) {
	if v.att.coherent {
		v.buffer.region.StorePlain(off, val)
		return
	}
	v.Store(off, val)
}

// Flip flips bits of a word in memory, as a fault would (no ordering, no drain).
func (v *View) Flip(off int, mask uint32) { v.buffer.region.Xor(off, mask) }

// Drain writes the view's pending stores back to memory, in the order they
// were made, and returns how many words it wrote.
func (v *View) Drain() int {
	n := len(v.pending)
	if n == 0 {
		return 0
	}
	for _, p := range v.pending {
		v.buffer.region.Store(p.off, p.val)
	}
	v.pending = v.pending[:0]
	v.buffer.profile.fabric.exec.changed()
	return n
}

// Discard forgets the pending stores, as a device reset or an undrained
// retirement does.
func (v *View) Discard() { v.pending = v.pending[:0] }

// Size is the buffer's size in bytes (whole lines).
func (v *View) Size() int { return v.buffer.region.Len() }
