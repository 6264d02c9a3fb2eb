package exchange

import (
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/programs/kernel"
)

// Launcher is what a hardware backend's accelerator (backend.Accelerator)
// implements to run the GPU half of the exchange itself, as a resident
// kernel, in place of the simulated program. Prepare asserts it on the
// GPU's accelerator; backends/cuda implements it.
type Launcher interface {
	// Launch starts the GPU half of an exchange and returns once the
	// kernel is resident (polling the startup word, or hung by the fault).
	Launch(k KernelLaunch) (Kernel, error)
}

// KernelMode is how the gpu.run fault shapes a launched kernel.
type KernelMode uint32

// Kernel modes.
const (
	KernelRun         KernelMode = iota // the exchange as specified
	KernelHang                          // never observes the startup line
	KernelIgnoreAbort                   // keeps polling after ABORT
	KernelCrash                         // retires with an error once it observes the decision
)

// KernelLaunch is the GPU half of one exchange, as an accelerator runs it:
// the startup word is word 0 of Startup, and Payload has the exchange's
// layout (Exchange), its slots laid out as Slots says.
type KernelLaunch struct {
	Startup *memory.Region
	Payload *memory.Region
	Owner   uint64
	Config  Config
	Slots   SlotLayout
	Mode    KernelMode
	Delay   time.Duration // waited after observing RUN (gpu.run delay)
}

// Kernel is a launched resident kernel.
type Kernel interface {
	// Status reads what the kernel has reported so far, without a driver call.
	Status() KernelStatus
	// Fault asks the driver whether the kernel failed; nil while it runs or
	// after it ended cleanly.
	Fault() error
}

// KernelDone is how a kernel ended.
type KernelDone uint32

// Kernel endings, as the kernel writes them.
const (
	KernelRunning     KernelDone = iota // not ended
	KernelOK                            // retired cleanly
	KernelCrashed                       // retired with the crash fault
	KernelStopped                       // left because a reset asked it to
	KernelBadDecision                   // read a value that is neither RUN nor ABORT
)

// KernelStatus is what a kernel reports in its mapped status block. Times
// are the kernel's own clock (%globaltimer on CUDA), aligned with the
// fabric's.
type KernelStatus struct {
	Observed   uint32 // the decision seen; program.StartupWait until one is
	ObservedAt time.Duration
	Done       KernelDone
	RetiredAt  time.Duration
}

// kernelExchange is the GPU half of an exchange on an accelerator. It is a
// step machine like every program, run by the device's real-time goroutine,
// but it is a devices.Starter: Dispatch has it launch the kernel (Start),
// and its steps only watch the kernel's mapped status block: the kernel
// itself polls the startup word and produces the generations. It reports
// the observation when the kernel does and retires when the kernel does,
// and rings the doorbell (devices.Env.Ring) whenever the kernel publishes a
// generation, so that a sleeping NPU wakes as it would for a host write.
type kernelExchange struct {
	x        *Exchange
	launcher Launcher
	startup  *devices.Buffer
	kernel   Kernel
	crash    string   // the crash fault's message, when it fired
	gens     []uint32 // the generation word of each slot, as last seen
	polls    uint32
	clock    kernel.Clock
}

// faultCheckEvery is how many status reads pass between asking the driver
// whether the kernel failed (a driver call costs more than a read).
const faultCheckEvery = 1 << 12

// KernelTimes is the kernel's own times (kernel.Clocked).
func (p *kernelExchange) KernelTimes() (observed, retired event.Stamp) { return p.clock.Times() }

// Step watches the kernel, which Dispatch launched. It polls (Poll) while
// nothing changes, so the executor paces it.
func (p *kernelExchange) Step(env program.Env) program.Next {
	progress := p.ringOnNewGenerations(env)
	st := p.kernel.Status()
	if p.clock.Observe(env, st.Observed, st.ObservedAt) {
		progress = true
	}
	if st.Done != KernelRunning {
		p.clock.Retire(env, st.RetiredAt)
		return program.Retire(p.ending(env, st))
	}
	if p.polls++; p.polls%faultCheckEvery == 0 {
		if err := p.kernel.Fault(); err != nil {
			return program.Retire(failure.Errorf(failure.Device, "run", "%s: the kernel failed: %w", env.DeviceName(), err))
		}
	}
	if progress {
		return program.Continue()
	}
	return program.Poll()
}

// ringOnNewGenerations rings the doorbell when a slot's generation word
// changed since the last step, and reports whether one did.
func (p *kernelExchange) ringOnNewGenerations(env program.Env) bool {
	changed := false
	for slot := range p.gens {
		if g := p.x.payload.HostLoad(p.x.genOff(slot)); g != p.gens[slot] {
			p.gens[slot], changed = g, true
		}
	}
	if changed {
		env.Ring()
	}
	return changed
}

// Start applies the gpu.run fault to the kernel's mode, once, and launches
// the kernel; it returns when the kernel is resident. Dispatch calls it
// before it admits the program.
func (p *kernelExchange) Start(env program.Env) error {
	k := KernelLaunch{
		Startup: p.startup.Region(), Payload: p.x.payload.Region(), Owner: p.x.owner,
		Config: p.x.cfg, Slots: p.x.slots,
	}
	switch fired := env.Fault(fault.GPURun); fired.Action {
	case fault.Hang:
		k.Mode = KernelHang
	case fault.Crash:
		k.Mode, p.crash = KernelCrash, fired.Message
	case fault.IgnoreAbort:
		k.Mode = KernelIgnoreAbort
	case fault.Delay:
		k.Delay = fired.Delay
	}
	kernel, err := p.launcher.Launch(k)
	if err != nil {
		return failure.Errorf(failure.Device, "dispatch", "%s could not launch the kernel: %w", env.DeviceName(), err)
	}
	p.kernel = kernel
	p.gens = make([]uint32, p.x.cfg.Credits)
	return nil
}

// ending turns how the kernel ended into the invocation's result.
func (p *kernelExchange) ending(env program.Env, st KernelStatus) error {
	name := env.DeviceName()
	switch st.Done {
	case KernelOK:
		return nil
	case KernelCrashed:
		return failure.Errorf(failure.Device, "run", "%s crashed: %s", name, p.crash)
	case KernelBadDecision:
		return failure.Errorf(failure.Device, "run", "%s read %d from the startup word; only RUN (1) or ABORT (2) may follow WAIT", name, st.Observed)
	case KernelStopped:
		return env.ResetError()
	}
	return failure.Errorf(failure.Device, "run", "%s's kernel ended with unknown code %d", name, st.Done)
}
