package devices

import (
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/residentlua/residentlua/devices/choice"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
)

// alternatives is a simulated fabric's account of the alternatives of one
// choice it asks its chooser for (choice.Alternatives).
type alternatives struct {
	kind     choice.Kind
	ready    []*invocation  // choice.Step and choice.Deadline: the runnable programs
	landings []*Publication // choice.Step: pending releases, the alternatives after ready
	last     *invocation    // choice.Step: the program that stepped last, if any
	site     fault.Site     // choice.Fault
	percent  float64        // choice.Fault
	pub      *Publication   // choice.Landing
}

// ask asks ch for one of n alternatives, which a describes.
func ask(ch choice.Chooser, n int, a *alternatives) int {
	return ch.Choose(choice.Choice{Kind: a.kind, N: n, Alternatives: a})
}

// Continuing is, for choice.Step, the alternative that lets the program
// that stepped last step again, or -1 when it is not runnable.
func (c *alternatives) Continuing() int {
	if c.kind != choice.Step || c.last == nil {
		return -1
	}
	for i, inv := range c.ready {
		if inv == c.last {
			return i
		}
	}
	return -1
}

// Describe puts alternative i in words, such as "npu0 steps before gpu0"
// or "fault npu.run fires".
func (c *alternatives) Describe(i int) string {
	switch c.kind {
	case choice.Step:
		return c.describeStep(i)
	case choice.Fault:
		if i == 1 {
			return "fault " + c.site.String() + " fires (" + strconv.FormatFloat(c.percent, 'g', -1, 64) + "%)"
		}
		return "fault " + c.site.String() + " does not fire"
	case choice.Landing:
		if i == 1 {
			return "the " + c.pub.label + " release is still in flight (it lands after device steps)"
		}
		return "the " + c.pub.label + " release lands at once"
	case choice.Deadline:
		if i == 1 {
			return "the deadline passes before " + joinSteps(c.ready)
		}
		return joinSteps(c.ready) + " before the deadline passes"
	}
	return "alternative " + strconv.Itoa(i)
}

// describeStep says which alternative of a step choice runs before which.
func (c *alternatives) describeStep(i int) string {
	var first string
	var others []string
	for j, inv := range c.ready {
		if j == i {
			first = stepWords(inv)
		} else {
			others = append(others, inv.dev.name)
		}
	}
	for j, p := range c.landings {
		words := "the " + p.label + " release lands"
		if len(c.ready)+j == i {
			first = words
		} else {
			others = append(others, words)
		}
	}
	if first == "" {
		return "alternative " + strconv.Itoa(i)
	}
	return first + " before " + strings.Join(others, ", ")
}

// stepWords says what inv's next step is: a program step or its completion.
func stepWords(inv *invocation) string {
	switch inv.next.Kind() {
	case program.NextRetire:
		return inv.dev.name + " completes"
	case program.NextWaitWord:
		if v, _, _ := inv.next.Word(); !v.Coherent() {
			return inv.dev.name + " polls"
		}
	}
	return inv.dev.name + " steps"
}

// joinSteps lists what the runnable programs do next.
func joinSteps(ready []*invocation) string {
	parts := make([]string, len(ready))
	for i, inv := range ready {
		parts[i] = stepWords(inv)
	}
	return strings.Join(parts, ", ")
}

// faultDecider asks ch whether a fault term with a probability fires.
func faultDecider(ch choice.Chooser) fault.Decider {
	return func(site fault.Site, percent float64) bool {
		return ask(ch, 2, &alternatives{kind: choice.Fault, site: site, percent: percent}) == 1
	}
}

// HashState adds to h the state of a simulated fabric that its future
// depends on: the devices' invocations (what each waits for, when it
// wakes relative to now, its program's state), the run in progress (its
// deadline relative to now and the completion it waits for), host
// releases in flight, the fault plane's counts, the budget and the
// quarantines. The clock itself is left out, except near the end of
// simulated time, where deadlines saturate. Buffers' words are added by
// Buffer.HashState, for the buffers their owner knows. Call it from the
// goroutine that runs the fabric: between host operations, or from a
// Chooser for choice.Step or choice.Deadline.
func (f *Fabric) HashState(h *program.StateHash) {
	s := f.simulated()
	if s == nil {
		return
	}
	now := s.now()
	if now > simEnd-nearEnd {
		h.Add(uint64(now))
	}
	h.Add(uint64(len(s.active)))
	for _, inv := range s.active {
		hashInvocation(h, inv, now)
	}
	if s.running {
		h.Add(uint64(s.runUntil - now))
		if s.awaited != nil {
			h.Add(s.awaited.inv.id)
		}
	}
	h.Add(uint64(len(s.landings)))
	for _, p := range s.landings {
		h.Add(p.buffer.id)
		h.AddString(p.label)
	}
	f.faults.HashState(h.Add)
	s.plain.hash(h)
	st := f.budget.State()
	h.Add(uint64(st.Charged))
	h.Add(uint64(st.Quarantined))
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range f.devices {
		d.meter.hash(h)
		h.Add(uint64(d.held))
		if d.current != nil {
			h.Add(d.current.id)
			h.Add(boolWord(d.current.comp.retired()))
		}
	}
	h.Add(uint64(len(f.quarantines)))
	for _, q := range f.quarantines {
		h.Add(q.owner)
		h.Add(uint64(len(q.waiting)))
	}
}

// nearEnd is how close to the end of simulated time the clock must be for
// HashState to add it: a scenario's finite deadlines are shorter.
const nearEnd = 24 * time.Hour

// hashInvocation adds what an active invocation does next.
func hashInvocation(h *program.StateHash, inv *invocation, now time.Duration) {
	h.Add(inv.id)
	h.Add(uint64(inv.dev.actor))
	h.Add(boolWord(inv.started))
	h.Add(uint64(inv.next.Kind()))
	switch inv.next.Kind() {
	case program.NextWaitWord:
		v, off, old := inv.next.Word()
		if dv, ok := v.(*View); ok {
			h.Add(dv.buffer.id)
		}
		h.Add(uint64(off)<<32 | uint64(old))
		if inv.wakeAt > now { // the wait begins once its step was paid for
			h.Add(uint64(inv.wakeAt - now))
		}
	case program.NextSleep, program.NextRetire:
		h.Add(uint64(max(inv.wakeAt-now, 0)))
	}
	if err := inv.next.Err(); err != nil {
		h.AddString(err.Error())
	}
	if sh, ok := inv.prog.(program.StateHasher); ok {
		sh.HashState(h)
	} else {
		h.Add(opaqueStates.Add(1)) // a state like no other: never pruned
	}
}

// opaqueStates numbers the states of programs that cannot hash theirs.
var opaqueStates atomic.Uint64

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// HashState adds the buffer's state to h: whether it is released or
// quarantined, its words as the host sees them, and, for each
// non-coherent family, the lines hidden from it and their snapshots.
func (b *Buffer) HashState(h *program.StateHash) {
	h.Add(b.id)
	b.profile.fabric.mu.Lock()
	released, quarantined := b.released, b.quarantined
	b.profile.fabric.mu.Unlock()
	h.Add(boolWord(released)<<1 | boolWord(quarantined))
	if released {
		return
	}
	for off := 0; off < b.region.Len(); off += 4 {
		h.Add(uint64(b.region.Load(off)))
	}
	for i := range b.attachments {
		st := b.attachments[i].stale.Load()
		if st == nil {
			continue
		}
		for line := range st.lines {
			if !st.lines[line].Load() {
				continue
			}
			h.Add(uint64(line))
			for w := line * memory.LineBytes / 4; w < (line+1)*memory.LineBytes/4; w++ {
				h.Add(uint64(st.words[w].Load()))
			}
		}
	}
}

// HashState adds the view's pending stores to h, for a program's
// StateHasher.
func (v *View) HashState(h *program.StateHash) {
	h.Add(uint64(len(v.pending)))
	for _, p := range v.pending {
		h.Add(uint64(p.off)<<32 | uint64(p.val))
	}
}
