package exchange

import (
	_ "embed"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/programs/kernel"
)

// kernelPTX is the GPU half of the exchange on a real GPU: exchange_gpu.cu
// compiled (its header says how), launched as a user's kernel is, through
// a hardware backend's kernel.Launcher. It takes the generic argument block
// (kernel.Block, ResidentArgs in docs/cuda.md): buffer[0] the payload,
// value[0] rounds, value[1] credits, value[2] slot bytes; its slots are laid
// out as Layout lays them out (TestTheKernelLaysSlotsOutAsLayoutDoes).
//
//go:embed exchange_gpu.ptx
var kernelPTX []byte

// kernelEntry is the kernel's entry in kernelPTX.
const kernelEntry = "exchange_gpu"

// kernelExchange is the GPU half of an exchange on an accelerator. It is a
// step machine like every program, run by the device's real-time goroutine,
// but it is a program.Starter: Dispatch has it launch the kernel (Start),
// and its steps only watch the kernel's mapped status block: the kernel
// itself polls the startup word and produces the generations. It reports
// the observation when the kernel does and retires when the kernel does,
// and rings the doorbell (program.Env.Ring) whenever the kernel publishes a
// generation, so that a sleeping NPU wakes as it would for a host write.
type kernelExchange struct {
	x       *Exchange
	module  kernel.Module
	startup *devices.Buffer
	running kernel.Running
	crash   string   // the crash fault's message, when it fired
	gens    []uint32 // the generation word of each slot, as last seen
	polls   uint32
	clock   kernel.Clock
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
	st := p.running.Status()
	if p.clock.Observe(env, st.Observed, st.ObservedAt) {
		progress = true
	}
	if st.Done != kernel.DoneRunning {
		p.clock.Retire(env, st.RetiredAt)
		return program.Retire(p.ending(env, st))
	}
	if p.polls++; p.polls%faultCheckEvery == 0 {
		// The kernel writes its ending before it returns, so only a failure
		// counts here: a kernel that ended cleanly shows it in its status.
		if _, err := p.running.Check(); err != nil {
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
// the kernel; it returns when the kernel is resident (it stored its start,
// Block.AwaitStart). Dispatch calls it before it admits the program.
func (p *kernelExchange) Start(env program.Env) error {
	cfg := p.x.cfg
	b := kernel.Block{
		Startup: p.startup.Region(), Buffers: []*memory.Region{p.x.payload.Region()}, Owner: p.x.owner,
		Values:     []int64{int64(cfg.Rounds), int64(cfg.Credits), int64(cfg.SlotBytes)},
		AwaitStart: true,
	}
	p.crash = b.RunFault(env)
	running, err := p.module.Launch(b)
	if err != nil {
		return failure.Errorf(failure.Device, "dispatch", "%s could not launch the kernel: %w", env.DeviceName(), err)
	}
	p.running = running
	p.gens = make([]uint32, cfg.Credits)
	return nil
}

// ending turns how the kernel ended into the invocation's result.
func (p *kernelExchange) ending(env program.Env, st kernel.Status) error {
	name := env.DeviceName()
	switch st.Done {
	case kernel.DoneOK:
		return nil
	case kernel.DoneCrashed:
		return failure.Errorf(failure.Device, "run", "%s crashed: %s", name, p.crash)
	case kernel.DoneBadDecision:
		return failure.Errorf(failure.Device, "run", "%s read %d from the startup word; only RUN (1) or ABORT (2) may follow WAIT", name, st.Observed)
	case kernel.DoneStopped:
		return env.ResetError()
	}
	return failure.Errorf(failure.Device, "run", "%s's kernel ended with unknown code %d", name, st.Done)
}
