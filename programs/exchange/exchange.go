// Package exchange is the built-in program pair that a resident session runs
// on the devices runtime: the host and device halves of the exchange, their
// events, the verification the host runs after both retire, and the GPU
// half as a kernel (exchange_gpu.cu) that a hardware backend launches as
// it launches a user's kernel (kernel.Launcher of programs/kernel). The devices
// package knows nothing of it; it is one program among those the runtime
// can run.
package exchange

import (
	"errors"
	"fmt"

	"golang.org/x/sys/cpu"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/programs/kernel"
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
		return failure.Errorf(failure.Invalid, "startup", "rounds must be from 1 to %d, got %d", MaxRounds, c.Rounds)
	case c.Credits < 1 || c.Credits > MaxCredits:
		return failure.Errorf(failure.Invalid, "startup", "credits must be from 1 to %d, got %d", MaxCredits, c.Credits)
	case c.SlotBytes < 8 || c.SlotBytes > MaxSlotBytes || c.SlotBytes%8 != 0:
		return failure.Errorf(failure.Invalid, "startup", "slot_bytes must be a multiple of 8 from 8 to %d, got %d", MaxSlotBytes, c.SlotBytes)
	case c.GPUQueue != devices.PM4 && c.GPUQueue != devices.AQL:
		return failure.Errorf(failure.Invalid, "startup", "the GPU queue must be pm4 or aql, got %s", c.GPUQueue)
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
// together.
type prepared struct {
	x     Exchange
	reach [2]*devices.Buffer // the startup line and the payload
	gpu   gpuExchange
	npu   npuExchange
}

// paddedPrepared is a prepared exchange as a real-time fabric runs it: each
// half writes its state on every step, from its own device's thread, and
// the pads keep the halves on lines of their own. In simulated time one
// thread runs both, and they need no pads.
type paddedPrepared struct {
	x     Exchange
	reach [2]*devices.Buffer
	gpu   gpuExchange
	_     cpu.CacheLinePad
	npu   npuExchange
	_     cpu.CacheLinePad
}

// parts are where the parts of a prepared exchange live: in a prepared, or
// in a paddedPrepared on a real-time fabric.
type parts struct {
	x     *Exchange
	reach *[2]*devices.Buffer
	gpu   *gpuExchange
	npu   *npuExchange
}

// newParts makes the storage of an exchange on gpu's fabric.
func newParts(gpu *devices.Device) parts {
	if gpu.Fabric().Mode() == devices.RealTime {
		p := &paddedPrepared{}
		return parts{&p.x, &p.reach, &p.gpu, &p.npu}
	}
	p := &prepared{}
	return parts{&p.x, &p.reach, &p.gpu, &p.npu}
}

const resultSize = 16

// SlotLayout is where the words of a credit slot are, in bytes from the
// slot's start: what the exchange's kernel (exchange_gpu.cu) writes and
// polls, computing the same offsets from the slot bytes it is given.
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
// at dispatch, so the accelerator must be a kernel.Launcher.
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
	module, err := kernelOf(gpu, startup)
	if err != nil {
		return nil, err
	}
	r := newParts(gpu)
	x := r.x
	x.cfg, x.owner, x.slots = cfg, owner, Layout(cfg.SlotBytes)
	x.results = cfg.Credits * x.slots.Stride
	payload, err := startup.Profile().Allocate(x.results+cfg.Rounds*resultSize, startup.Budget(), owner)
	if err != nil {
		return nil, err
	}
	x.payload = payload
	*r.reach = [2]*devices.Buffer{startup, payload}
	views := func(d *devices.Device, fam devices.QueueFamily) (line, pay *devices.View, err error) {
		if line, err = startup.View(d, fam); err == nil {
			pay, err = payload.View(d, fam)
		}
		return
	}
	gl, gp, err := views(gpu, gfam)
	if err == nil {
		*r.gpu = gpuExchange{half: half{x: x, line: gl, payload: gp, observer: program.NewObserver(fault.GPURun)}, data: make([]uint32, x.words())}
		var prog program.Program = r.gpu
		if module != nil {
			prog = &kernelExchange{x: x, module: module, startup: startup}
		}
		x.gpu, err = gpu.Prepare(gfam, prog, owner, r.reach[:]...)
	}
	if err != nil {
		_ = payload.Release()
		return nil, err
	}
	nl, np, err := views(npu, nfam)
	if err == nil {
		*r.npu = npuExchange{half: half{x: x, line: nl, payload: np, observer: program.NewObserver(fault.NPURun)}}
		x.npu, err = npu.Prepare(nfam, r.npu, owner, r.reach[:]...)
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

// kernelOf is the exchange's kernel loaded on gpu's accelerator (a
// kernel.Launcher), or nil when gpu is simulated. Real hardware reaches
// only pinned memory, so the startup line must be pinned.
func kernelOf(gpu *devices.Device, startup *devices.Buffer) (kernel.Module, error) {
	accel := gpu.Accelerator()
	if accel == nil {
		return nil, nil
	}
	if kind := startup.Profile().Kind(); kind != memory.Pinned {
		return nil, failure.Errorf(failure.Unsupported, "startup", "%s is real hardware and reaches only pinned memory; the startup line is %s", gpu.Name(), kind)
	}
	launcher, ok := accel.(kernel.Launcher)
	if !ok {
		return nil, failure.Errorf(failure.Unsupported, "startup", "%s (%s) cannot launch the exchange kernel", gpu.Name(), accel.Describe())
	}
	module, err := launcher.Load(kernelPTX, kernelEntry) // the launcher keeps what it compiled
	if err != nil {
		return nil, failure.Errorf(failure.Device, "startup", "%s (%s) could not load the exchange kernel: %w", gpu.Name(), accel.Describe(), err)
	}
	return module, nil
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
func (x *Exchange) words() int           { return x.cfg.SlotBytes / 4 }

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
			v.Problem = fmt.Sprintf("generation %d has checksum 0x%08x, want 0x%08x: the slot was corrupted", g, sum, x.expectedChecksum(g))
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
