// Package kernel runs a user's own kernel, given as PTX, as a session's GPU
// program on a real GPU: the program launches the kernel when it is
// dispatched and watches the status the kernel reports. The built-in
// exchange's GPU half (programs/exchange/exchange_gpu.cu) is launched
// through the same Launcher. A hardware backend offers it by implementing
// Launcher on its accelerator (backends/cuda does).
//
// The kernel takes one argument, a block passed by value (the driver copies
// it at launch), laid out as Block says; docs/cuda.md gives it in C.
package kernel

import (
	"errors"
	"fmt"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
)

// Limits of the argument block.
const (
	MaxBuffers = 16 // buffers besides the startup line
	MaxValues  = 16 // the user's numbers
)

// Launcher is what a hardware backend's accelerator implements to run a
// user's kernel.
type Launcher interface {
	// Load compiles ptx and finds the kernel entry in it: a PTX that does
	// not load, or an entry that does not exist, is an error here, before
	// anything is dispatched. A launcher keeps what it compiled: the same
	// PTX and entry again give the module loaded before (a session of the
	// built-in exchange loads its kernel each time).
	Load(ptx []byte, entry string) (Module, error)
}

// Module is a user's kernel, loaded: what Launch starts.
type Module interface {
	// Launch starts the kernel with block (one block of one thread) and
	// returns once it is launched. The kernel's status block and stop word
	// are the backend's, and it fills them in the block.
	Launch(block Block) (Running, error)
}

// Running is a launched kernel.
type Running interface {
	// Status reads what the kernel has reported so far, without a driver
	// call.
	Status() Status
	// Check asks the driver whether the kernel returned, and whether it
	// failed.
	Check() (ended bool, err error)
}

// Mode is how the device's run fault shapes the kernel, which the kernel
// reads from its block and honours (the runtime cannot reach into it).
type Mode uint32

// The modes, as a kernel reads them.
const (
	ModeRun         Mode = iota // run as written
	ModeHang                    // never observe the startup word: leave only when the stop word is set
	ModeIgnoreAbort             // read ABORT as WAIT: keep polling after ABORT
	ModeCrash                   // report Crashed once the decision is observed
)

// Block is what a kernel is given, before the backend turns the regions
// into device addresses: the startup line, each buffer in name order, the
// session, the run fault and the user's numbers.
type Block struct {
	Startup *memory.Region
	Buffers []*memory.Region
	Owner   uint64
	Mode    Mode
	Delay   time.Duration // the run fault's delay: wait it after observing RUN
	Values  []int64
	// AwaitStart has Launch return only once the kernel has stored its
	// status's started, that is, once it is resident and polling; a kernel
	// that does not within the backend's timeout is torn down and Launch
	// fails. Only for a kernel that stores started at entry (the built-in
	// exchange's does; for a user's kernel it is optional).
	AwaitStart bool
}

// Done is how a kernel ended, as it writes it in its status.
type Done uint32

// Endings.
const (
	DoneRunning     Done = iota // not ended
	DoneOK                      // retired cleanly
	DoneCrashed                 // retired with the crash the run fault asked for
	DoneStopped                 // left because the stop word asked it to (a reset)
	DoneBadDecision             // read a value that is neither RUN nor ABORT
)

// Status is what a kernel reports in its status block, with times of its
// own clock aligned with the fabric's.
type Status struct {
	Observed   uint32 // the decision seen; 0 until one is
	ObservedAt time.Duration
	Done       Done // as the kernel wrote it
	RetiredAt  time.Duration
}

// Event kinds of a kernel's own clock, which every kernel on a real GPU
// reports (the built-in exchange's and a user's).
var (
	EvObserve = program.DefineEvent("kernel.observe", program.CategoryDevice) // A: invocation, B: fabric time in ns when the kernel saw the decision
	EvRetire  = program.DefineEvent("kernel.retire", program.CategoryDevice)  // A: invocation, B: fabric time in ns when the kernel retired
)

// Clocked is a program whose kernel keeps its own times: both programs
// that run kernels on a real GPU (a user's and the built-in exchange's).
type Clocked interface {
	// KernelTimes is when the kernel saw the decision and when it retired,
	// by its clock aligned with the fabric's (the B of EvObserve and
	// EvRetire); unset until it reported them.
	KernelTimes() (observed, retired event.Stamp)
}

// Clock reports a kernel's own times as events and keeps them for
// Clocked. A program keeps one and hands it what the kernel's status says.
type Clock struct {
	observed, retired event.StampCell
}

// Observe reports, the first time decision is no longer WAIT, that the
// kernel saw it at its time at: the program's observation, then the
// kernel's (EvObserve). It returns whether it reported.
func (c *Clock) Observe(env program.Env, decision uint32, at time.Duration) bool {
	if decision == program.StartupWait || c.observed.Load().Set {
		return false
	}
	env.Emit(program.EvObserve, uint64(decision), "")
	env.Emit(EvObserve, uint64(at), "")
	c.observed.Mark(at)
	return true
}

// Retire reports that the kernel retired at its time at (EvRetire).
func (c *Clock) Retire(env program.Env, at time.Duration) {
	env.Emit(EvRetire, uint64(at), "")
	c.retired.Mark(at)
}

// Times returns the times reported, unset until they were.
func (c *Clock) Times() (observed, retired event.Stamp) {
	return c.observed.Load(), c.retired.Load()
}

// Program is a user's kernel as a session's GPU program: a program.Starter
// whose Start launches the kernel and whose steps watch its status, report
// its observation and retire when it ends. It rings the doorbell on every
// step (program.Env.Ring), so an NPU program waiting on a word the kernel
// writes looks again.
type Program struct {
	module  Module
	name    string // the entry, for messages
	block   Block
	crash   string // the crash fault's message, when it fired
	running Running
	polls   uint32
	clock   Clock
}

// faultCheckEvery is how many status reads pass between asking the driver
// whether the kernel failed.
const faultCheckEvery = 1 << 12

// NewProgram makes the program of module with block (Mode and Delay are
// the run fault's, which Start sets). entry names the kernel in messages.
func NewProgram(module Module, entry string, block Block) (*Program, error) {
	switch {
	case len(block.Buffers) > MaxBuffers:
		return nil, fmt.Errorf("kernel %s: %d buffers; a kernel's block holds at most %d", entry, len(block.Buffers), MaxBuffers)
	case len(block.Values) > MaxValues:
		return nil, fmt.Errorf("kernel %s: %d values; a kernel's block holds at most %d", entry, len(block.Values), MaxValues)
	}
	return &Program{module: module, name: entry, block: block}, nil
}

// RunFault hits the gpu.run fault for a kernel about to be launched and
// sets b's Mode and Delay to what fired: a kernel consults no fault plane,
// so the fault shapes how it runs. It returns the crash's message when a
// crash fired, for the kernel's ending.
func (b *Block) RunFault(env program.Env) (crash string) {
	switch fired := env.Fault(fault.GPURun); fired.Action {
	case fault.Hang:
		b.Mode = ModeHang
	case fault.Crash:
		b.Mode, crash = ModeCrash, fired.Message
	case fault.IgnoreAbort:
		b.Mode = ModeIgnoreAbort
	case fault.Delay:
		b.Delay = fired.Delay
	}
	return crash
}

// Start applies the run fault to the kernel's mode and launches it.
func (p *Program) Start(env program.Env) error {
	p.crash = p.block.RunFault(env)
	r, err := p.module.Launch(p.block)
	if err != nil {
		return fmt.Errorf("%s could not launch kernel %s: %w", env.DeviceName(), p.name, err)
	}
	p.running = r
	return nil
}

// KernelTimes is the kernel's own times (Clocked).
func (p *Program) KernelTimes() (observed, retired event.Stamp) { return p.clock.Times() }

// Step watches the kernel. It polls (Poll) while nothing changes, so the
// executor paces it; every faultCheckEvery polls it asks the driver
// whether the kernel returned without writing its ending, or failed.
func (p *Program) Step(env program.Env) program.Next {
	env.Ring()
	st := p.running.Status()
	p.clock.Observe(env, st.Observed, st.ObservedAt)
	if st.Done != DoneRunning {
		p.clock.Retire(env, st.RetiredAt)
		return program.Retire(p.ending(env, st))
	}
	if p.polls++; p.polls%faultCheckEvery == 0 {
		ended, err := p.running.Check()
		switch {
		case err != nil:
			return program.Retire(fmt.Errorf("%s: kernel %s failed: %w", env.DeviceName(), p.name, err))
		case ended && p.running.Status().Done == DoneRunning:
			return program.Retire(nil) // it returned without writing its ending: a clean one
		}
	}
	return program.Poll()
}

// ending turns how the kernel ended into the invocation's result.
func (p *Program) ending(env program.Env, st Status) error {
	name := env.DeviceName()
	switch st.Done {
	case DoneOK:
		return nil
	case DoneCrashed:
		return errors.New(name + " crashed: " + p.crash)
	case DoneBadDecision:
		return fmt.Errorf("%s read %d from the startup word; only RUN (1) or ABORT (2) may follow WAIT", name, st.Observed)
	case DoneStopped:
		return env.ResetError()
	}
	return fmt.Errorf("%s: kernel %s ended with unknown code %d", name, p.name, st.Done)
}
