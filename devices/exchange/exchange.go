// Package exchange is the built-in program pair that a resident session runs
// on the devices runtime: the host and device halves of the exchange, their
// events, the verification the host runs after both retire, and the GPU
// half as a kernel that a hardware backend launches (Launcher). The devices
// package knows nothing of it; it is one program among those the runtime
// can run.
package exchange

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
)

// Config sets the shape of the built-in exchange.
type Config struct {
	Rounds    int             // generations, 1 to MaxRounds
	Credits   int             // ring slots, 1 to MaxCredits
	SlotBytes int             // bytes per slot, a multiple of 8 from 8 to MaxSlotBytes
	GPUQueue  devices.Command // PM4 or AQL
}

// Limits of an exchange.
const (
	MaxRounds    = 1_000_000
	MaxCredits   = 64
	MaxSlotBytes = 1 << 20
)

// Default is one round, one credit, 64-byte slots, on AQL.
func Default() Config {
	return Config{Rounds: 1, Credits: 1, SlotBytes: 64, GPUQueue: devices.AQL}
}

// Validate says what is wrong with c, if anything.
func (c Config) Validate() error {
	switch {
	case c.Rounds < 1 || c.Rounds > MaxRounds:
		return devices.Errorf(devices.KindInvalid, "startup", "rounds must be from 1 to %d, got %d", MaxRounds, c.Rounds)
	case c.Credits < 1 || c.Credits > MaxCredits:
		return devices.Errorf(devices.KindInvalid, "startup", "credits must be from 1 to %d, got %d", MaxCredits, c.Credits)
	case c.SlotBytes < 8 || c.SlotBytes > MaxSlotBytes || c.SlotBytes%8 != 0:
		return devices.Errorf(devices.KindInvalid, "startup", "slot_bytes must be a multiple of 8 from 8 to %d, got %d", MaxSlotBytes, c.SlotBytes)
	case c.GPUQueue != devices.PM4 && c.GPUQueue != devices.AQL:
		return devices.Errorf(devices.KindInvalid, "startup", "the GPU queue must be pm4 or aql, got %s", c.GPUQueue)
	}
	return nil
}

// Exchange is the built-in program pair: the GPU writes a pattern into a ring
// of credit slots, generation by generation, and the NPU checksums each one
// into a result area that the host verifies after both retire.
//
// Payload layout: credits slots of stride bytes, then 16 bytes of result
// per generation (order of consumption, times consumed, checksum). A slot
// holds the generation word at +0 and the data at +8, on lines the GPU alone
// writes, then the credit word on a pair of lines the NPU alone writes
// (SlotLayout).
type Exchange struct {
	cfg     Config
	owner   uint64
	payload *devices.Buffer
	slots   SlotLayout
	results int
	gpu     *devices.Prepared
	npu     *devices.Prepared
	checked *Verification // what Check found
}

// prepared is an exchange, its programs and the buffers they reach, made
// together and kept with the startup line (devices.Kept).
type prepared struct {
	x     Exchange
	reach [2]*devices.Buffer // the startup line and the payload
	// Each half writes its state on every step, from its own device's
	// thread in real time: the pads keep the halves on lines of their own.
	gpu gpuExchange
	_   cpu.CacheLinePad
	npu npuExchange
	_   cpu.CacheLinePad
}

const resultSize = 16

// SlotLayout is where the words of a credit slot are, in bytes from the
// slot's start: what a kernel that a Launcher launches writes and polls.
//
// The generation word and the data share their first line, so that the NPU
// takes one line from the GPU to see a generation and read its data (and
// the GPU one back to write the next); the credit word is on a 128-byte
// pair of lines of its own (the adjacent-line prefetcher fetches lines in
// pairs), which no other word of the slot shares. docs/performance.md has
// the measurements.
type SlotLayout struct {
	Stride int // bytes from one slot to the next, a multiple of 128
	Data   int // the data's offset; the generation word is at 0
	Credit int // the credit word's offset
}

// pairBytes is a pair of cache lines, the unit in which lines are fetched.
const pairBytes = 2 * memory.LineBytes

// Layout is the slot layout of slots of slotBytes bytes.
func Layout(slotBytes int) SlotLayout {
	const data = 8 // after the generation word, keeping the data 8-byte aligned
	gpu := (data + slotBytes + pairBytes - 1) / pairBytes * pairBytes
	return SlotLayout{Stride: gpu + pairBytes, Data: data, Credit: gpu}
}

// Prepare allocates the payload from the startup line's profile and
// prepares both programs: the GPU one on cfg.GPUQueue of gpu, the NPU one on
// XDNA of npu, both polling word 0 of startup. owner tags everything. When
// gpu has an accelerator, the GPU half is a kernel the accelerator launches
// at dispatch, so the accelerator must be a Launcher.
func Prepare(startup *devices.Buffer, gpu, npu *devices.Device, cfg Config, owner uint64) (*Exchange, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	gfam, err := gpu.Family(cfg.GPUQueue)
	if err != nil {
		return nil, err
	}
	nfam, err := npu.Family(devices.XDNA)
	if err != nil {
		return nil, err
	}
	launcher, err := launcherOf(gpu, startup)
	if err != nil {
		return nil, err
	}
	r := devices.Kept[prepared](startup) // lives as long as the line's fabric
	x := &r.x
	x.cfg, x.owner, x.slots = cfg, owner, Layout(cfg.SlotBytes)
	x.results = cfg.Credits * x.slots.Stride
	payload, err := startup.Profile().Allocate(x.results+cfg.Rounds*resultSize, startup.Budget(), owner)
	if err != nil {
		return nil, err
	}
	x.payload = payload
	r.reach = [2]*devices.Buffer{startup, payload}
	views := func(d *devices.Device, fam devices.QueueFamily) (line, pay *devices.View, err error) {
		if line, err = startup.View(d, fam); err == nil {
			pay, err = payload.View(d, fam)
		}
		return
	}
	gl, gp, err := views(gpu, gfam)
	if err == nil {
		r.gpu = gpuExchange{x: x, payload: gp, half: half{line: gl}}
		var prog devices.Program = &r.gpu
		if launcher != nil {
			prog = &kernelExchange{x: x, launcher: launcher, startup: startup}
		}
		x.gpu, err = gpu.Prepare(gfam, prog, owner, r.reach[:]...)
	}
	if err != nil {
		_ = payload.Release()
		return nil, err
	}
	nl, np, err := views(npu, nfam)
	if err == nil {
		r.npu = npuExchange{x: x, payload: np, half: half{line: nl}}
		x.npu, err = npu.Prepare(nfam, &r.npu, owner, r.reach[:]...)
	}
	if err != nil {
		_ = payload.Release()
		return nil, err
	}
	return x, nil
}

// Programs is how an engine session (engine.Open) prepares the exchange
// with cfg on its startup line: the GPU half on cfg.GPUQueue of the line's
// GPU, the NPU half on its NPU's XDNA family.
func Programs(cfg Config) func(line *devices.Buffer, gpu, npu *devices.Device, owner uint64) (*devices.Prepared, *devices.Prepared, error) {
	return func(line *devices.Buffer, gpu, npu *devices.Device, owner uint64) (*devices.Prepared, *devices.Prepared, error) {
		x, err := Prepare(line, gpu, npu, cfg, owner)
		if err != nil {
			return nil, nil, err
		}
		return x.gpu, x.npu, nil
	}
}

// launcherOf is gpu's accelerator as a Launcher, or nil when gpu is
// simulated. Real hardware reaches only pinned memory, so the startup line
// must be pinned.
func launcherOf(gpu *devices.Device, startup *devices.Buffer) (Launcher, error) {
	accel := gpu.Accelerator()
	if accel == nil {
		return nil, nil
	}
	if kind := startup.Profile().Kind(); kind != devices.Pinned {
		return nil, devices.Errorf(devices.KindUnsupported, "startup", "%s is real hardware and reaches only pinned memory; the startup line is %s", gpu.Name(), kind)
	}
	launcher, ok := accel.(Launcher)
	if !ok {
		return nil, devices.Errorf(devices.KindUnsupported, "startup", "%s (%s) cannot launch the exchange kernel", gpu.Name(), accel.Describe())
	}
	return launcher, nil
}

// Of is the exchange that p is a half of, or nil when p runs another
// program.
func Of(p *devices.Prepared) *Exchange {
	switch prog := p.Program().(type) {
	case *gpuExchange:
		return prog.x
	case *npuExchange:
		return prog.x
	case *kernelExchange:
		return prog.x
	}
	return nil
}

// GPU is the prepared GPU program.
func (x *Exchange) GPU() *devices.Prepared { return x.gpu }

// NPU is the prepared NPU program.
func (x *Exchange) NPU() *devices.Prepared { return x.npu }

// Payload is the exchange's shared buffer.
func (x *Exchange) Payload() *devices.Buffer { return x.payload }

// Config is the exchange's shape.
func (x *Exchange) Config() Config { return x.cfg }

func (x *Exchange) genOff(slot int) int  { return slot * x.slots.Stride }
func (x *Exchange) ackOff(slot int) int  { return slot*x.slots.Stride + x.slots.Credit }
func (x *Exchange) dataOff(slot int) int { return slot*x.slots.Stride + x.slots.Data }
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

// Check is the exchange's own check of its results, which the session runs
// once it retired under RUN (program.Checker): Verify, as an error. The NPU
// half carries it, since what is checked is the result area the NPU writes.
// What it found stays for Verification: once the session is closed, its
// memory is gone.
func (p *npuExchange) Check() error {
	v := p.x.Verify()
	p.x.checked = &v
	if !v.OK {
		return errors.New(v.Problem)
	}
	return nil
}

// Verification is what the session's check of the exchange found (Check),
// and false before it ran.
func (x *Exchange) Verification() (Verification, bool) {
	if x.checked == nil {
		return Verification{}, false
	}
	return *x.checked, true
}

// half is the part both programs share: poll the startup word, take the
// time to see a change, act on the decision with the run fault applied,
// then run generation after generation, each after its round's run fault.
type half struct {
	line    *devices.View
	seen    uint32
	ignored bool // ignore_abort fired: keep polling past ABORT
	state   exchangeState
	g       int // the generation being worked on, from 1
}

// toRound takes the steps both halves take before a round's work: poll the
// startup word, take observe to see it, act on the decision, and hit the
// run fault at site at the start of each round. work reports whether the
// step goes on to the work of generation g; otherwise next is the step's
// answer. who names the half in the error of a step after it retired.
func (r *half) toRound(env program.Env, site fault.Site, observe time.Duration, who string) (next devices.Next, work bool) {
	switch r.state {
	case statePoll:
		seen, next := r.poll()
		if !seen {
			return next, false
		}
		r.state = stateObserved
		return program.Sleep(observe), false
	case stateObserved:
		run, next := r.decide(env, site)
		if run {
			r.g, r.state = 1, stateRound
		}
		return next, false
	case stateRound:
		r.state = stateWork
		if ok, next := roundFault(env, site); !ok {
			return next, false
		}
		return program.Next{}, true
	case stateWork:
		return program.Next{}, true
	}
	return program.Retire(devices.Fixed(devices.KindDevice, "run", who+" exchange stepped after it retired")), false
}

// poll returns true once a decision was seen; otherwise next says what to wait for.
func (r *half) poll() (bool, devices.Next) {
	v := r.line.Load(0)
	if v == program.StartupWait || (r.ignored && v == program.StartupAbort) {
		return false, program.WaitWord(r.line, 0, v)
	}
	r.seen = v
	return true, program.Next{}
}

// decide applies the run fault at observation and returns whether to run
// the exchange; when not, next says what the program does instead.
func (r *half) decide(env program.Env, site fault.Site) (run bool, next devices.Next) {
	env.Emit(program.EvObserve, uint64(r.seen), "")
	fired := env.Fault(site)
	switch fired.Action {
	case fault.Hang:
		return false, program.Hang()
	case fault.Crash:
		return false, program.Retire(devices.Fixed(devices.KindDevice, "run", env.DeviceName()+" crashed: "+fired.Message))
	case fault.IgnoreAbort:
		if r.seen == program.StartupAbort {
			r.ignored = true
			return false, program.WaitWord(r.line, 0, program.StartupAbort)
		}
	}
	switch r.seen {
	case program.StartupAbort:
		return false, program.Retire(nil)
	case program.StartupRun:
		if fired.Action == fault.Delay {
			return true, program.Sleep(fired.Delay)
		}
		return true, program.Continue()
	}
	return false, program.Retire(devices.Errorf(devices.KindDevice, "run", "%s read %d from the startup word; only RUN (1) or ABORT (2) may follow WAIT", env.DeviceName(), r.seen))
}

// roundFault applies the run fault at the start of a round; ok false means
// next replaces the round.
func roundFault(env program.Env, site fault.Site) (ok bool, next devices.Next) {
	fired := env.Fault(site)
	switch fired.Action {
	case fault.Hang:
		return false, program.Hang()
	case fault.Crash:
		return false, program.Retire(devices.Fixed(devices.KindDevice, "run", env.DeviceName()+" crashed: "+fired.Message))
	case fault.Delay:
		return false, program.Sleep(fired.Delay)
	}
	return true, program.Next{}
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
	payload *devices.View
	half
}

// Step runs the GPU half one step.
func (p *gpuExchange) Step(env program.Env) devices.Next {
	if next, work := p.toRound(env, fault.GPURun, env.Timing().HostToGPU, "GPU"); !work {
		return next
	}
	x := p.x
	slot := x.slot(p.g)
	if p.g > x.cfg.Credits {
		need := uint32(p.g - x.cfg.Credits)
		if ack := p.payload.Load(x.ackOff(slot)); ack < need {
			return program.WaitWord(p.payload, x.ackOff(slot), ack)
		}
	}
	// The data needs no order of its own: the generation word's store,
	// which the NPU loads before it reads the slot, publishes it.
	base := x.dataOff(slot)
	for i := 0; i < x.cfg.SlotBytes/4; i++ {
		p.payload.StorePlain(base+4*i, Pattern(x.owner, p.g, i))
	}
	if env.Fault(fault.PayloadCorrupt).Action == fault.Flip {
		i := p.g % (x.cfg.SlotBytes / 4)
		p.payload.Flip(base+4*i, 1<<(p.g%32))
	}
	p.payload.Store(x.genOff(slot), uint32(p.g))
	// The event follows the store that publishes the generation: in real
	// time its step's clock read would otherwise stand between the NPU and
	// the generation it waits for (a step is atomic in simulated time, so
	// the events and their times are the same).
	env.Emit(EvPayloadWrite, uint64(p.g), "")
	if p.g == x.cfg.Rounds {
		p.state = stateDone
		return program.Retire(nil)
	}
	p.g++
	p.state = stateRound
	return program.Continue()
}

// npuExchange is the NPU half: consume each generation, checksum it, return
// the credit, drain.
type npuExchange struct {
	x       *Exchange
	payload *devices.View
	half
	consumed uint32
	reading  bool
}

// Step runs the NPU half one step.
func (p *npuExchange) Step(env program.Env) devices.Next {
	dma := env.Timing().NPUDMALine
	if next, work := p.toRound(env, fault.NPURun, dma, "NPU"); !work {
		return next
	}
	x := p.x
	slot := x.slot(p.g)
	if !p.reading {
		gen := p.payload.Load(x.genOff(slot))
		if gen < uint32(p.g) {
			return program.WaitWord(p.payload, x.genOff(slot), gen)
		}
		if gen > uint32(p.g) {
			return program.Retire(devices.Errorf(devices.KindDevice, "run", "NPU found generation %d in slot %d while waiting for %d: the GPU overran its credits", gen, slot, p.g))
		}
		// DMA in the lines that hold the generation word and the slot.
		p.reading = true
		return program.Sleep(mulDuration(dma, memory.RoundUp(x.slots.Data+x.cfg.SlotBytes)/memory.LineBytes))
	}
	p.reading = false
	base := x.dataOff(slot)
	h := uint32(checksumStart)
	for i := 0; i < x.cfg.SlotBytes/4; i++ {
		h = (h ^ p.payload.Load(base+4*i)) * checksumPrime
	}
	p.consumed++
	res := x.resultOff(p.g)
	p.payload.Store(res, p.consumed)
	p.payload.Store(res+4, p.payload.Load(res+4)+1)
	p.payload.Store(res+8, h)
	p.payload.Store(x.ackOff(slot), uint32(p.g))
	// The round's events follow its drain, which hands the credit
	// back: recording them never delays the GPU. A step is atomic in
	// simulated time, so the events and their times are the same.
	drained, lines := p.drain(env)
	env.Emit(EvPayloadRead, uint64(p.g), "")
	env.Emit(EvCredit, uint64(p.g), "")
	if drained >= 0 {
		env.Emit(EvDrain, uint64(drained), "")
	}
	if p.g == x.cfg.Rounds {
		p.state = stateDone
		p.payload.Discard() // what was not drained is lost with the device's cache
		return program.Retire(nil)
	}
	p.g++
	p.state = stateRound
	return program.Sleep(mulDuration(dma, lines))
}

// drain writes the NPU's pending stores back unless npu.drain skips it,
// and returns how many words and lines it wrote; words is -1 when the fault
// skipped the drain.
func (p *npuExchange) drain(env program.Env) (words, lines int) {
	if env.Fault(fault.NPUDrain).Action == fault.Skip {
		return -1, 0
	}
	n := p.payload.Drain()
	return n, (n*4 + memory.LineBytes - 1) / memory.LineBytes
}

// mulDuration multiplies a non-negative duration by a non-negative count,
// saturating at the largest duration (a DMA of many lines at an overridden,
// huge per-line figure never wraps into a short sleep).
func mulDuration(d time.Duration, n int) time.Duration {
	const forever = time.Duration(1<<63 - 1)
	if n != 0 && d > forever/time.Duration(n) {
		return forever
	}
	return d * time.Duration(n)
}
