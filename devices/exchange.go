package devices

import (
	"fmt"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
)

// Values of the startup word, which the host writes once and devices poll.
const (
	StartupWait  uint32 = 0
	StartupRun   uint32 = 1
	StartupAbort uint32 = 2
)

// ExchangeConfig sets the shape of the built-in exchange.
type ExchangeConfig struct {
	Rounds    int     // generations, 1 to MaxRounds
	Credits   int     // ring slots, 1 to MaxCredits
	SlotBytes int     // bytes per slot, a multiple of 8 from 8 to MaxSlotBytes
	GPUQueue  Command // PM4 or AQL
}

// Limits of an exchange.
const (
	MaxRounds    = 1_000_000
	MaxCredits   = 64
	MaxSlotBytes = 1 << 20
)

// DefaultExchange is one round, one credit, 64-byte slots, on AQL.
func DefaultExchange() ExchangeConfig {
	return ExchangeConfig{Rounds: 1, Credits: 1, SlotBytes: 64, GPUQueue: AQL}
}

// Validate says what is wrong with c, if anything.
func (c ExchangeConfig) Validate() error {
	switch {
	case c.Rounds < 1 || c.Rounds > MaxRounds:
		return Errorf(KindInvalid, "startup", "rounds must be from 1 to %d, got %d", MaxRounds, c.Rounds)
	case c.Credits < 1 || c.Credits > MaxCredits:
		return Errorf(KindInvalid, "startup", "credits must be from 1 to %d, got %d", MaxCredits, c.Credits)
	case c.SlotBytes < 8 || c.SlotBytes > MaxSlotBytes || c.SlotBytes%8 != 0:
		return Errorf(KindInvalid, "startup", "slot_bytes must be a multiple of 8 from 8 to %d, got %d", MaxSlotBytes, c.SlotBytes)
	case c.GPUQueue != PM4 && c.GPUQueue != AQL:
		return Errorf(KindInvalid, "startup", "the GPU queue must be pm4 or aql, got %s", c.GPUQueue)
	}
	return nil
}

// Exchange is the built-in program pair: the GPU writes a pattern into a ring
// of credit slots, generation by generation, and the NPU checksums each one
// into a result area that the host verifies after both retire.
//
// Payload layout: credits slots of stride bytes (generation word at +0, credit
// word at +64, data at +128), then 16 bytes of result per generation (order
// of consumption, times consumed, checksum).
type Exchange struct {
	cfg     ExchangeConfig
	owner   uint64
	payload *Buffer
	stride  int
	results int
	gpu     *Prepared
	npu     *Prepared
}

const (
	slotAck    = memory.LineBytes
	slotData   = 2 * memory.LineBytes
	resultSize = 16
)

// PrepareExchange allocates the payload from the startup line's profile and
// prepares both programs: the GPU one on cfg.GPUQueue of gpu, the NPU one on
// XDNA of npu, both polling word 0 of startup. owner tags everything.
func PrepareExchange(startup *Buffer, gpu, npu *Device, cfg ExchangeConfig, owner uint64) (*Exchange, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	gfam, err := gpu.Family(cfg.GPUQueue)
	if err != nil {
		return nil, err
	}
	nfam, err := npu.Family(XDNA)
	if err != nil {
		return nil, err
	}
	if gpu.accel != nil && startup.profile.kind != Pinned {
		return nil, Errorf(KindUnsupported, "startup", "%s is real hardware and reaches only pinned memory; the startup line is %s", gpu.name, startup.profile.kind)
	}
	x := &Exchange{cfg: cfg, owner: owner, stride: slotData + memory.RoundUp(cfg.SlotBytes)}
	x.results = cfg.Credits * x.stride
	payload, err := startup.profile.Allocate(x.results+cfg.Rounds*resultSize, startup.budget, owner)
	if err != nil {
		return nil, err
	}
	x.payload = payload
	views := func(d *Device, fam QueueFamily) (line, pay *View, err error) {
		if line, err = startup.View(d, fam); err == nil {
			pay, err = payload.View(d, fam)
		}
		return
	}
	gl, gp, err := views(gpu, gfam)
	if err == nil {
		var prog Program = &gpuExchange{x: x, payload: gp, decisionReader: decisionReader{line: gl}}
		if gpu.accel != nil {
			prog = &kernelExchange{x: x, accel: gpu.accel, startup: startup}
		}
		x.gpu, err = gpu.Prepare(gfam, prog, owner, startup, payload)
	}
	if err != nil {
		_ = payload.Release()
		return nil, err
	}
	nl, np, err := views(npu, nfam)
	if err == nil {
		x.npu, err = npu.Prepare(nfam, &npuExchange{x: x, payload: np, decisionReader: decisionReader{line: nl}}, owner, startup, payload)
	}
	if err != nil {
		_ = payload.Release()
		return nil, err
	}
	x.gpu.exchange, x.npu.exchange = x, x
	return x, nil
}

// GPU is the prepared GPU program.
func (x *Exchange) GPU() *Prepared { return x.gpu }

// NPU is the prepared NPU program.
func (x *Exchange) NPU() *Prepared { return x.npu }

// Payload is the exchange's shared buffer.
func (x *Exchange) Payload() *Buffer { return x.payload }

// Config is the exchange's shape.
func (x *Exchange) Config() ExchangeConfig { return x.cfg }

func (x *Exchange) genOff(slot int) int  { return slot * x.stride }
func (x *Exchange) ackOff(slot int) int  { return slot*x.stride + slotAck }
func (x *Exchange) dataOff(slot int) int { return slot*x.stride + slotData }
func (x *Exchange) resultOff(g int) int  { return x.results + (g-1)*resultSize }
func (x *Exchange) slot(g int) int       { return (g - 1) % x.cfg.Credits }

// Pattern is word i of generation g of session owner: what the GPU half
// writes into a slot (a real-hardware kernel computes the same).
func Pattern(owner uint64, g, i int) uint32 {
	v := uint32(owner)*0x9E3779B1 ^ uint32(g)*0x85EBCA77 ^ uint32(i)*0xC2B2AE3D
	v ^= v >> 15
	v *= 0x2C1B3C6D
	v ^= v >> 12
	return v
}

const (
	checksumStart = 2166136261
	checksumPrime = 16777619
)

// expectedChecksum is the checksum of generation g's pattern.
func (x *Exchange) expectedChecksum(g int) uint32 {
	h := uint32(checksumStart)
	for i := 0; i < x.cfg.SlotBytes/4; i++ {
		h = (h ^ Pattern(x.owner, g, i)) * checksumPrime
	}
	return h
}

// Verification is what the host found in the result area.
type Verification struct {
	OK       bool
	Rounds   int    // generations expected
	Verified int    // generations consumed once, in order, with the right checksum
	Problem  string // the first thing wrong, when not OK
}

// Verify checks every generation: consumed once, in order, checksum right.
// Call it only after both programs retired.
func (x *Exchange) Verify() Verification {
	v := Verification{Rounds: x.cfg.Rounds}
	for g := 1; g <= x.cfg.Rounds; g++ {
		off := x.resultOff(g)
		order, count, sum := x.payload.HostLoad(off), x.payload.HostLoad(off+4), x.payload.HostLoad(off+8)
		switch {
		case count != 1:
			v.Problem = fmt.Sprintf("generation %d was consumed %d times, want once", g, count)
		case order != uint32(g):
			v.Problem = fmt.Sprintf("generation %d was consumed in position %d, want %d", g, order, g)
		case sum != x.expectedChecksum(g):
			v.Problem = fmt.Sprintf("generation %d has checksum %#08x, want %#08x: the slot was corrupted", g, sum, x.expectedChecksum(g))
		default:
			v.Verified++
			continue
		}
		return v
	}
	v.OK = true
	return v
}

// decisionReader is the part both programs share: poll the startup word,
// take the time to see a change, then act on the decision with the run
// fault applied.
type decisionReader struct {
	line    *View
	seen    uint32
	ignored bool // ignore_abort fired: keep polling past ABORT
}

// poll returns true once a decision was seen; otherwise next says what to wait for.
func (r *decisionReader) poll() (bool, Next) {
	v := r.line.Load(0)
	if v == StartupWait || (r.ignored && v == StartupAbort) {
		return false, WaitWord(r.line, 0, v)
	}
	r.seen = v
	return true, Next{}
}

// decide applies the run fault at observation and returns whether to run
// the exchange; when not, next says what the program does instead.
func (r *decisionReader) decide(env *Env, site fault.Site) (run bool, next Next) {
	env.Emit(EvObserve, uint64(r.seen), "")
	fired := env.Fault(site)
	switch fired.Action {
	case fault.Hang:
		return false, Hang()
	case fault.Crash:
		return false, Retire(Errorf(KindDevice, "run", "%s crashed: %s", env.Device().name, fired.Message))
	case fault.IgnoreAbort:
		if r.seen == StartupAbort {
			r.ignored = true
			return false, WaitWord(r.line, 0, StartupAbort)
		}
	}
	switch r.seen {
	case StartupAbort:
		return false, Retire(nil)
	case StartupRun:
		if fired.Action == fault.Delay {
			return true, Sleep(fired.Delay)
		}
		return true, Continue()
	}
	return false, Retire(Errorf(KindDevice, "run", "%s read %d from the startup word; only RUN (1) or ABORT (2) may follow WAIT", env.Device().name, r.seen))
}

// roundFault applies the run fault at the start of a round; ok false means
// next replaces the round.
func roundFault(env *Env, site fault.Site) (ok bool, next Next) {
	fired := env.Fault(site)
	switch fired.Action {
	case fault.Hang:
		return false, Hang()
	case fault.Crash:
		return false, Retire(Errorf(KindDevice, "run", "%s crashed: %s", env.Device().name, fired.Message))
	case fault.Delay:
		return false, Sleep(fired.Delay)
	}
	return true, Next{}
}

type exchangeState uint8

const (
	statePoll exchangeState = iota
	stateObserved
	stateRound // about to hit the round fault
	stateWork  // the round's work
	stateDone
)

// gpuExchange is the GPU half: produce each generation into a free slot.
type gpuExchange struct {
	x       *Exchange
	payload *View
	decisionReader
	state exchangeState
	g     int
}

// Step runs the GPU half one step.
func (p *gpuExchange) Step(env *Env) Next {
	x := p.x
	switch p.state {
	case statePoll:
		seen, next := p.poll()
		if !seen {
			return next
		}
		p.state = stateObserved
		return Sleep(env.Timing().HostToGPU)
	case stateObserved:
		run, next := p.decide(env, fault.GPURun)
		if run {
			p.g, p.state = 1, stateRound
		}
		return next
	case stateRound:
		p.state = stateWork
		if ok, next := roundFault(env, fault.GPURun); !ok {
			return next
		}
		fallthrough
	case stateWork:
		slot := x.slot(p.g)
		if p.g > x.cfg.Credits {
			need := uint32(p.g - x.cfg.Credits)
			if ack := p.payload.Load(x.ackOff(slot)); ack < need {
				return WaitWord(p.payload, x.ackOff(slot), ack)
			}
		}
		base := x.dataOff(slot)
		for i := 0; i < x.cfg.SlotBytes/4; i++ {
			p.payload.Store(base+4*i, Pattern(x.owner, p.g, i))
		}
		if env.Fault(fault.PayloadCorrupt).Action == fault.Flip {
			i := p.g % (x.cfg.SlotBytes / 4)
			p.payload.Flip(base+4*i, 1<<(p.g%32))
		}
		env.Emit(EvPayloadWrite, uint64(p.g), "")
		p.payload.Store(x.genOff(slot), uint32(p.g))
		if p.g == x.cfg.Rounds {
			p.state = stateDone
			return Retire(nil)
		}
		p.g++
		p.state = stateRound
		return Continue()
	}
	return Retire(Errorf(KindDevice, "run", "GPU exchange stepped after it retired"))
}

// npuExchange is the NPU half: consume each generation, checksum it, return
// the credit, drain.
type npuExchange struct {
	x       *Exchange
	payload *View
	decisionReader
	state    exchangeState
	g        int
	consumed uint32
	reading  bool
}

// Step runs the NPU half one step.
func (p *npuExchange) Step(env *Env) Next {
	x := p.x
	dma := env.Timing().NPUDMALine
	switch p.state {
	case statePoll:
		seen, next := p.poll()
		if !seen {
			return next
		}
		p.state = stateObserved
		return Sleep(dma)
	case stateObserved:
		run, next := p.decide(env, fault.NPURun)
		if run {
			p.g, p.state = 1, stateRound
		}
		return next
	case stateRound:
		p.state = stateWork
		if ok, next := roundFault(env, fault.NPURun); !ok {
			return next
		}
		fallthrough
	case stateWork:
		slot := x.slot(p.g)
		if !p.reading {
			gen := p.payload.Load(x.genOff(slot))
			if gen < uint32(p.g) {
				return WaitWord(p.payload, x.genOff(slot), gen)
			}
			if gen > uint32(p.g) {
				return Retire(Errorf(KindDevice, "run", "NPU found generation %d in slot %d while waiting for %d: the GPU overran its credits", gen, slot, p.g))
			}
			// DMA the generation line and the slot in.
			p.reading = true
			return Sleep(mulDuration(dma, 1+memory.RoundUp(x.cfg.SlotBytes)/memory.LineBytes))
		}
		p.reading = false
		base := x.dataOff(slot)
		h := uint32(checksumStart)
		for i := 0; i < x.cfg.SlotBytes/4; i++ {
			h = (h ^ p.payload.Load(base+4*i)) * checksumPrime
		}
		env.Emit(EvPayloadRead, uint64(p.g), "")
		p.consumed++
		res := x.resultOff(p.g)
		p.payload.Store(res, p.consumed)
		p.payload.Store(res+4, p.payload.Load(res+4)+1)
		p.payload.Store(res+8, h)
		p.payload.Store(x.ackOff(slot), uint32(p.g))
		env.Emit(EvCredit, uint64(p.g), "")
		wrote := p.drain(env)
		if p.g == x.cfg.Rounds {
			p.state = stateDone
			p.payload.Discard() // what was not drained is lost with the device's cache
			return Retire(nil)
		}
		p.g++
		p.state = stateRound
		return Sleep(mulDuration(dma, wrote))
	}
	return Retire(Errorf(KindDevice, "run", "NPU exchange stepped after it retired"))
}

// drain writes the NPU's pending stores back unless npu.drain skips it, and
// returns how many lines it wrote.
func (p *npuExchange) drain(env *Env) int {
	if env.Fault(fault.NPUDrain).Action == fault.Skip {
		return 0
	}
	n := p.payload.Drain()
	env.Emit(EvDrain, uint64(n), "")
	return (n*4 + memory.LineBytes - 1) / memory.LineBytes
}
