package devices

import (
	"github.com/residentlua/residentlua/devices/fault"
)

// Events of a GPU half that runs as a kernel on an accelerator, carrying
// the kernel's own clock readings (aligned with the fabric's).
const (
	EvKernelObserve EventKind = "kernel.observe" // A: invocation, B: fabric time in ns when the kernel saw the decision
	EvKernelRetire  EventKind = "kernel.retire"  // A: invocation, B: fabric time in ns when the kernel retired
)

// kernelExchange is the GPU half of an exchange on an accelerator. It is a
// step machine like every program, run by the device's real-time goroutine,
// but Dispatch launches the kernel and its steps only watch the kernel's
// mapped status block: the kernel itself polls the startup word and
// produces the generations. It reports the observation when the kernel does and retires
// when the kernel does, and rings the doorbell (Env.ring) whenever the
// kernel publishes a generation, so that a sleeping NPU wakes as it would
// for a host write.
type kernelExchange struct {
	x        *Exchange
	accel    Accelerator
	startup  *Buffer
	kernel   Kernel
	crash    string   // the crash fault's message, when it fired
	gens     []uint32 // the generation word of each slot, as last seen
	observed bool
	polls    uint32
}

// faultCheckEvery is how many status reads pass between asking the driver
// whether the kernel failed (a driver call costs more than a read).
const faultCheckEvery = 1 << 12

// Step watches the kernel, which Dispatch launched. It polls (Poll) while
// nothing changes, so the executor paces it.
func (p *kernelExchange) Step(env *Env) Next {
	progress := p.ringOnNewGenerations(env)
	st := p.kernel.Status()
	if st.Observed != StartupWait && !p.observed {
		p.observed, progress = true, true
		env.Emit(EvObserve, uint64(st.Observed), "")
		env.Emit(EvKernelObserve, uint64(st.ObservedAt), "")
	}
	if st.Done != KernelRunning {
		env.Emit(EvKernelRetire, uint64(st.RetiredAt), "")
		return Retire(p.ending(env, st))
	}
	if p.polls++; p.polls%faultCheckEvery == 0 {
		if err := p.kernel.Fault(); err != nil {
			return Retire(Errorf(KindDevice, "run", "%s: the kernel failed: %w", env.Device().name, err))
		}
	}
	if progress {
		return Continue()
	}
	return Poll()
}

// ringOnNewGenerations rings the doorbell when a slot's generation word
// changed since the last step, and reports whether one did.
func (p *kernelExchange) ringOnNewGenerations(env *Env) bool {
	changed := false
	for slot := range p.gens {
		if g := p.x.payload.region.Load(p.x.genOff(slot)); g != p.gens[slot] {
			p.gens[slot], changed = g, true
		}
	}
	if changed {
		env.ring()
	}
	return changed
}

// launch applies the gpu.run fault to the kernel's mode, once, and starts
// the kernel; it returns when the kernel is resident.
func (p *kernelExchange) launch(env *Env) *Error {
	k := KernelLaunch{
		Startup: p.startup.region, Payload: p.x.payload.region, Owner: p.x.owner,
		Config: p.x.cfg, Stride: p.x.stride,
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
	kernel, err := p.accel.Launch(k)
	if err != nil {
		return Errorf(KindDevice, "dispatch", "%s could not launch the kernel: %w", env.Device().name, err)
	}
	p.kernel = kernel
	p.gens = make([]uint32, p.x.cfg.Credits)
	return nil
}

// ending turns how the kernel ended into the invocation's result.
func (p *kernelExchange) ending(env *Env, st KernelStatus) error {
	name := env.Device().name
	switch st.Done {
	case KernelOK:
		return nil
	case KernelCrashed:
		return Errorf(KindDevice, "run", "%s crashed: %s", name, p.crash)
	case KernelBadDecision:
		return Errorf(KindDevice, "run", "%s read %d from the startup word; only RUN (1) or ABORT (2) may follow WAIT", name, st.Observed)
	case KernelStopped:
		return errReset(env.inv)
	}
	return Errorf(KindDevice, "run", "%s's kernel ended with unknown code %d", name, st.Done)
}
