package devices

import (
	"math/rand/v2"
	"time"

	"github.com/residentlua/residentlua/devices/event"

	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
)

// meter is what a device's program owes for the memory operations of the
// step it runs: the executor begins it before each step and, after the
// step, lets what it owes pass before the program's next step (its sleep,
// its wait or its retirement comes that much later). Only the goroutine
// that steps the device's programs writes it, and only during a step: the
// simulated executor's, or the device's own thread in real time. A view
// used outside a step (by a test, say) charges nothing.
//
// A step pays for each line its operations touch through a view, once a
// line in a row: the words of a read or a write that share a line are one
// line's cost. docs/programs.md gives each operation's cost; under a
// timing profile with a Stall the step's cost varies, drawn from the
// device's own generator, seeded from the fabric's seed and the device.
type meter struct {
	timing  *program.Timing
	active  bool // a step is running, under a timing whose memory operations cost (costly)
	costly  bool // the timing charges memory operations or stalls steps
	owed    time.Duration
	touched bool // the step made a memory operation
	// last and line are the line the step last paid for: of the buffer
	// and through the family last names (no pointer, so that a load does
	// not pay a write barrier while the collector runs). At a step's
	// start, line is -1, a line no load is on.
	last meterKey
	line int
	rng  rand.PCG
}

// renew readies the meter for a fabric of timing t and seed.
func (m *meter) renew(t *program.Timing, seed uint64, actor event.Actor) {
	m.timing, m.active, m.owed, m.touched, m.last = t, false, 0, false, meterKey{}
	m.costly = t.HostToGPU != 0 || t.NPUDMALine != 0 || t.Stall > 0
	m.rng.Seed(seed, 0x7157a11<<8|uint64(actor))
}

// begin begins a step. Under a timing that charges nothing, the meter
// stays inactive: the step owes nothing whatever it does.
func (m *meter) begin() {
	m.active, m.owed, m.touched, m.last, m.line = m.costly, 0, false, meterKey{}, -1
}

// meterKey names the lines of one buffer through one queue family: the
// buffer's id and the family's ordinal.
type meterKey struct{ buffer, family uint64 }

// loads reports whether a load of the word at off of v is to be paid for:
// in a step, the first time in a row the step touches the word's line. It
// is the whole question for most loads (the words of a read that share a
// line), so it is kept small enough to be inlined into View.Load.
func (m *meter) loads(v *View, off int) bool {
	return m.active && (m.line != int(uint(off)/memory.LineBytes) || m.last != v.lines)
}

// load charges a load or read of the word at off of v, which loads says
// is to be paid for: a line's cost.
func (m *meter) load(v *View, off int) {
	m.touched = true
	m.last, m.line = v.lines, int(uint(off)/memory.LineBytes)
	if v.coherent {
		m.owed = addDurations(m.owed, m.timing.HostToGPU)
	} else {
		m.owed = addDurations(m.owed, m.timing.NPUDMALine)
	}
}

// store notes a store: the GPU's are posted and the NPU's kept pending, so
// a store costs its program nothing but the step's stall.
func (m *meter) store() {
	if m.active {
		m.touched = true
	}
}

// drain charges the drain of a non-coherent view's pending stores: a
// line's DMA for each line they lie on, counted as they run (the words of
// one line one after another are one line).
func (m *meter) drain(pending []pendingWrite) {
	if !m.active {
		return
	}
	m.touched = true
	last := -1
	for _, p := range pending {
		if line := p.off / memory.LineBytes; line != last {
			m.owed = addDurations(m.owed, m.timing.NPUDMALine)
			last = line
		}
	}
}

// settle ends the step and returns what it owes: its operations' cost, and
// under a Stall, that cost times a factor from 1/2 to 3/2 and, one step in
// 64, a stall of up to Stall more. A step with no memory operation
// owes nothing.
func (m *meter) settle() time.Duration {
	m.active = false
	owed := m.owed
	if !m.touched || m.timing.Stall <= 0 {
		return owed
	}
	r := m.rng.Uint64()
	// The low 32 bits scale the cost, six more say whether it stalls (one
	// step in 64), and the high 24 how long.
	owed = addDurations(owed/2, time.Duration(float64(owed)*(float64(uint32(r))/(1<<32))))
	if r>>32&63 == 0 {
		owed = addDurations(owed, time.Duration(float64(m.timing.Stall)*float64(r>>40)/(1<<24)))
	}
	return owed
}

// hash adds what the meter will draw, under a Stall, for the model
// checker's state hash: two states alike but for the devices' generators
// have different futures.
func (m *meter) hash(h *program.StateHash) {
	if m.timing.Stall <= 0 {
		return
	}
	b, _ := m.rng.MarshalBinary() // a PCG's never fails
	h.AddString(string(b))
}
