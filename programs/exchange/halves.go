package exchange

import (
	"errors"
	"fmt"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// The two halves are step machines whose steps are those of the same
// program written in Lua (programs/exchange/exchange_gpu.lua and
// programs/exchange/exchange_npu.lua, docs/programs.md): each memory operation
// begins a step. A step does the effect of the operation the half stopped
// at, then the half's own work up to its next memory operation, whose
// scheduling need (go on at once, wait for a word, a delay) the step
// returns. So a seed gives the same events, step for step, for either
// text, and the model checker interleaves the devices at every memory
// operation of both. What the operations cost in modelled time (a line's
// DMA, a host store reaching the GPU) the runtime charges to the step that
// made them (docs/programs.md); the halves add no time of their own.

// op is the memory operation a half stopped at: what the next step does
// first.
type op uint8

const (
	opStart        op = iota // nothing yet: the program has not begun
	opLoadDecision           // load the startup word
	opWaitDecision           // load the startup word once it changed
	opObserveFault           // go on after a delay the run fault added to the observation
	opObserve                // the step after the decision's load: its cost passed
	opRoundDelay             // the round's delay fault passed
	opLoad                   // load a word of the payload (gen or credit)
	opWait                   // load it once it changed
	opWrite                  // store the slot's data (plain stores)
	opFlip                   // flip a bit of the slot (payload.corrupt)
	opStoreGen               // publish the generation
	opDMAIn                  // the step after the generation's load: its cost passed
	opRead                   // read the slot's data
	opLoadCount              // load the round's consumption count
	opWriteResult            // store the round's result
	opStoreCredit            // return the credit
	opDrain                  // drain the pending stores
	opDrainDelay             // the step after the drain: its lines went out by DMA
	opDiscard                // forget what was not drained, at the end
)

// half is what both halves share: the decision they read from the startup
// word, through the runtime's observer, and the generation they work on.
type half struct {
	x        *Exchange
	line     *devices.View
	payload  *devices.View
	observer program.Observer
	op       op
	seen     uint32 // what was read of the decision
	g        int    // the generation being worked on, from 1
	slot     int    // g's slot, kept as g advances: no division on a round's path
	word     uint32 // what the last load of the payload returned
	at       int    // the payload offset that load read
	// Kept from the first step (prologue), so that no step on the
	// exchange's path asks for it again: whether a Step may go on through
	// the steps that go on at once (not Env.Interleaved, and the
	// operations cost no modelled time, which passes between steps).
	onward bool
}

// loadDecision stops at a load of the startup word.
func (h *half) loadDecision() program.Next {
	h.op = opLoadDecision
	return program.Continue()
}

// readDecision is the effect of a load of the startup word: what the
// program sees of it, and a Next to take first when the run fault says so.
func (h *half) readDecision(env program.Env) (next program.Next, stop bool) {
	h.seen, next, stop = h.observer.Read(env, h.line.Load(0))
	return next, stop
}

// afterDecision goes on from a load of the startup word: wait while it is
// WAIT, otherwise observe the decision in a step of its own, once the
// load's cost (the host's store reaching the device) passed.
func (h *half) afterDecision() program.Next {
	if h.seen == program.StartupWait {
		h.op = opWaitDecision
		return program.WaitWord(h.line, 0, h.observer.WaitFor(h.seen))
	}
	h.op = opObserve
	return program.Sleep(0)
}

// observe reports the decision and acts on it: run reports whether to run
// the exchange; otherwise next is the retirement.
func (h *half) observe(env program.Env) (next program.Next, run bool) {
	env.Emit(program.EvObserve, uint64(h.seen), "")
	switch h.seen {
	case program.StartupAbort:
		return program.Retire(nil), false
	case program.StartupRun:
		h.g, h.slot = 1, 0
		return program.Next{}, true
	}
	return program.Retire(fmt.Errorf("%s read %d from the startup word; only RUN (1) or ABORT (2) may follow WAIT", env.DeviceName(), h.seen)), false
}

// roundFault is the run fault a half hits at the start of each round:
// stop is true when next replaces going on (hang, crash, or a delay, after
// which the step goes on at opRoundDelay).
func (h *half) roundFault(env program.Env, site fault.Site) (next program.Next, stop bool) {
	fired := env.Fault(site)
	switch fired.Action {
	case fault.Hang:
		return program.Hang(), true
	case fault.Crash:
		return program.Retire(errors.New(env.DeviceName() + " crashed: " + fired.Message)), true
	case fault.Delay:
		h.op = opRoundDelay
		return program.Sleep(fired.Delay), true
	}
	return program.Next{}, false
}

// returns reports whether a Step returns next to the executor rather
// than going on to the step it asks for: where the executor interleaves,
// or when next waits, sleeps or retires.
func (h *half) returns(next program.Next) bool { return !h.onward || !next.GoesOn() }

// nextGeneration moves on to the next generation and its slot.
func (h *half) nextGeneration() {
	h.g++
	if h.slot++; h.slot == h.x.cfg.Credits {
		h.slot = 0
	}
}

// wait stops at a wait for the payload word at h.at to change from h.word.
func (h *half) wait() program.Next {
	h.op = opWait
	return program.WaitWord(h.payload, h.at, h.word)
}

// prologue is a step at an operation before the rounds, which both halves
// do alike: the first step, the decision's load and wait, the step after
// it and the observation, after which round begins the half's first round
// on RUN. The first step keeps whether a Step may go on through the steps
// that go on at once in the half, so that no later step reads the fabric
// for it (the host writes lines near it as it submits and starts). stop
// says that the Step returns next whatever it is: the step emitted an
// event (the observation, a run fault that fired).
func (h *half) prologue(env program.Env, round func(program.Env) program.Next) (next program.Next, stop bool) {
	switch h.op {
	case opStart:
		h.onward = !env.Interleaved() && !env.Timing().ChargesMemory()
		return h.loadDecision(), false
	case opLoadDecision, opWaitDecision:
		if next, stop := h.readDecision(env); stop {
			h.op = opObserveFault
			return next, true
		}
	case opObserve:
		next, run := h.observe(env)
		if run {
			next = round(env)
		}
		return next, true
	}
	return h.afterDecision(), false
}

// Where the executor interleaves no other program between a half's steps
// (program.Env.Interleaved is false: real time), a Step goes on through
// the steps that go on at once (program.Next.GoesOn) without returning to
// the executor for each: the steps on the exchange's path cost a loop
// round, not a call. It returns after a step that emitted an event (an
// observation, a round's events, a fault that fired), so that the events
// of each step keep that step's time.

// gpuExchange is the GPU half: produce each generation into a free slot.
// The halves keep no buffers of their own that they write as they go (a
// generation's words are made as they are stored, and read into its
// checksum): two such buffers, allocated together, shared a cache line
// that the two devices' threads took from each other on every round.
type gpuExchange struct {
	half
	data []uint32 // a generation's words, as they are written
}

// Step runs the GPU half one step, or on through the steps that go on
// at once where the executor does not interleave. A case that goes on
// sets the next operation and leaves the switch, so that the operations
// between a peer's store and this half's own make no Next.
func (p *gpuExchange) Step(env program.Env) program.Next {
	x := p.x
	for {
		switch p.op {
		case opStart, opLoadDecision, opWaitDecision, opObserveFault, opObserve:
			next, stop := p.prologue(env, p.round)
			if stop || p.returns(next) {
				return next
			}
			continue
		case opRoundDelay:
			p.afterRoundFault()
		case opLoad, opWait: // the credit word
			p.word = p.payload.Load(p.at)
			if need := uint32(p.g - x.cfg.Credits); p.word < need {
				return p.wait()
			}
			p.op = opWrite
		case opWrite:
			for i := range p.data {
				p.data[i] = Pattern(x.owner, p.g, i)
			}
			p.payload.WritePlain(x.dataOff(p.slot), p.data)
			if env.Fault(PayloadCorrupt).Action == fault.Flip {
				p.op = opFlip
				return program.Continue()
			}
			p.op = opStoreGen
		case opFlip:
			i := p.g % x.words()
			p.payload.Flip(x.dataOff(p.slot)+4*i, 1<<(p.g%32))
			p.op = opStoreGen
		case opStoreGen:
			// The store that publishes the generation: the data needs no
			// order of its own, since the NPU loads this word before it
			// reads the slot.
			p.payload.Store(x.genOff(p.slot), uint32(p.g))
			env.Emit(EvPayloadWrite, uint64(p.g), "")
			if p.g == x.cfg.Rounds {
				return program.Retire(nil)
			}
			p.nextGeneration()
			return p.round(env)
		default:
			return program.Retire(errors.New("GPU exchange stepped after it retired"))
		}
		if !p.onward {
			return program.Continue()
		}
	}
}

// round begins generation p.g: its run fault, then its credit.
func (p *gpuExchange) round(env program.Env) program.Next {
	if next, stop := p.roundFault(env, fault.GPURun); stop {
		return next
	}
	p.afterRoundFault()
	return program.Continue()
}

// afterRoundFault goes on to load the slot's credit when the ring has
// gone round, or to write the slot.
func (p *gpuExchange) afterRoundFault() {
	if p.g > p.x.cfg.Credits {
		p.op, p.at = opLoad, p.x.ackOff(p.slot)
		return
	}
	p.op = opWrite
}

// npuExchange is the NPU half: consume each generation, checksum it, write
// its result, return the credit, drain.
type npuExchange struct {
	half
	consumed uint32
	sum      uint32
	drained  int // words the last drain wrote, -1 when the fault skipped it
}

// Step runs the NPU half one step, or on through the steps that go on
// at once where the executor does not interleave, as the GPU half's does.
func (p *npuExchange) Step(env program.Env) program.Next {
	x := p.x
	for {
		switch p.op {
		case opStart, opLoadDecision, opWaitDecision, opObserveFault, opObserve:
			next, stop := p.prologue(env, p.round)
			if stop || p.returns(next) {
				return next
			}
			continue
		case opRoundDelay:
			p.afterRoundFault()
		case opLoad, opWait: // the generation word
			gen := p.payload.Load(p.at)
			p.word = gen
			if gen < uint32(p.g) {
				return p.wait()
			}
			if gen > uint32(p.g) {
				return program.Retire(fmt.Errorf("NPU found generation %d in slot %d while waiting for %d: the GPU overran its credits", gen, p.slot, p.g))
			}
			// A step of its own before the slot's read, once the
			// generation's load was paid for.
			p.op = opDMAIn
			if !p.onward {
				return program.Sleep(0)
			}
		case opDMAIn:
			p.op = opRead
		case opRead:
			base := x.dataOff(p.slot)
			h := uint32(checksumStart)
			for i := range x.words() {
				h = (h ^ p.payload.Load(base+4*i)) * checksumPrime
			}
			p.sum = h
			p.consumed++
			p.op, p.at = opLoadCount, x.resultOff(p.g)+4
		case opLoadCount:
			p.word = p.payload.Load(p.at)
			p.op = opWriteResult
		case opWriteResult:
			res := x.resultOff(p.g)
			p.payload.StorePlain(res, p.consumed)
			p.payload.StorePlain(res+4, p.word+1)
			p.payload.StorePlain(res+8, p.sum)
			p.op = opStoreCredit
		case opStoreCredit:
			p.payload.Store(x.ackOff(p.slot), uint32(p.g))
			if env.Fault(NPUDrain).Action == fault.Skip {
				p.drained = -1
				return p.roundEnd(env)
			}
			p.op = opDrain
		case opDrain:
			p.drained = p.payload.Drain()
			return p.roundEnd(env)
		case opDiscard:
			p.payload.Discard() // what was not drained is lost with the device's cache
			return program.Retire(nil)
		case opDrainDelay:
			p.nextGeneration()
			if next := p.round(env); p.returns(next) {
				return next
			}
			continue
		default:
			return program.Retire(errors.New("NPU exchange stepped after it retired"))
		}
		if !p.onward {
			return program.Continue()
		}
	}
}

// round begins generation p.g: its run fault, then the generation word.
func (p *npuExchange) round(env program.Env) program.Next {
	if next, stop := p.roundFault(env, fault.NPURun); stop {
		return next
	}
	p.afterRoundFault()
	return program.Continue()
}

// afterRoundFault goes on to load the generation word.
func (p *npuExchange) afterRoundFault() { p.op, p.at = opLoad, p.x.genOff(p.slot) }

// roundEnd reports the round, whose drain handed the credit back (so
// recording never delays the GPU), then stops at the last round's discard
// or, in a step of its own, at the next round, once the drained lines
// went out.
func (p *npuExchange) roundEnd(env program.Env) program.Next {
	env.Emit(EvPayloadRead, uint64(p.g), "")
	env.Emit(EvCredit, uint64(p.g), "")
	if p.drained >= 0 {
		env.Emit(EvDrain, uint64(p.drained), "")
	}
	if p.g == p.x.cfg.Rounds {
		p.op = opDiscard
		return program.Continue()
	}
	p.op = opDrainDelay
	return program.Sleep(0)
}
