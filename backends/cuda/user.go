package cuda

import (
	"fmt"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/programs/kernel"
)

// A user's kernel runs under kernel.Program, and the built-in exchange's
// GPU half (programs/exchange) through the same interface; this keeps the
// backend's methods from drifting away from it unnoticed.
var _ kernel.Launcher = (*GPU)(nil)

// The argument block of a loaded kernel (a user's or the exchange's), at ctlUserArgs: docs/cuda.md gives
// it as the C struct ResidentArgs.
const (
	userStartup  = ctlUserArgs + 0   // const u32 *startup
	userStop     = ctlUserArgs + 8   // const u32 *stop
	userStatus   = ctlUserArgs + 16  // Status *status
	userDelay    = ctlUserArgs + 24  // u64 delay_ns
	userMode     = ctlUserArgs + 32  // u32 mode
	userBuffers  = ctlUserArgs + 36  // u32 nbuffers
	userOwner    = ctlUserArgs + 40  // u64 owner
	userValues   = ctlUserArgs + 48  // u32 nvalues (and 4 bytes of padding)
	userBuffer   = ctlUserArgs + 56  // unsigned char *buffer[16]
	userSize     = ctlUserArgs + 184 // u64 size[16]
	userValue    = ctlUserArgs + 312 // long long value[16]
	userArgsSize = 440

	maxEntry = 200 // bytes of an entry's name
)

// userModule is a kernel (a user's or the exchange's) loaded into the execution context of one
// generation; a reset makes a new context, and Launch loads it again.
type userModule struct {
	g          *GPU
	image      *memory.Region // the PTX, NUL-terminated
	ptx        string         // the PTX, which a Load of it again finds
	entry      string
	generation uint64
	module, fn uintptr
}

// Load compiles ptx and finds entry in it, in the execution context: a
// PTX that does not load or an entry that is not in it is an error here,
// before anything is dispatched. A kernel loaded before is given again,
// not compiled again (GPU.modules).
func (g *GPU) Load(ptx []byte, entry string) (kernel.Module, error) {
	if len(entry) == 0 || len(entry) > maxEntry {
		return nil, failure.Errorf(failure.Invalid, "kernel", "the entry %q must be a kernel's name of 1 to %d bytes", entry, maxEntry)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.modules[entry] {
		if m.ptx == string(ptx) { // compared in place: no copy of the PTX
			return m, nil
		}
	}
	image, err := memory.Map(len(ptx) + 1)
	if err != nil {
		return nil, err
	}
	image.Write(0, ptx)
	m := &userModule{g: g, image: image, ptx: string(ptx), entry: entry}
	if err := m.load(); err != nil {
		_ = image.Unmap()
		return nil, err
	}
	if g.modules == nil {
		g.modules = make(map[string][]*userModule)
	}
	g.modules[entry] = append(g.modules[entry], m)
	return m, nil
}

// load loads the module and finds its entry in the current execution
// context (g.mu held).
func (m *userModule) load() error {
	g := m.g
	if g.closed {
		return failure.Errorf(failure.Busy, "kernel", "the CUDA backend is closed")
	}
	if g.exec.ctx == 0 {
		return failure.Errorf(failure.Device, "kernel", "%s has no execution context since a reset failed; reset the device again", g.name)
	}
	return g.thread.do(func() error {
		d := g.drv
		if err := d.call("cuCtxSetCurrent", g.exec.ctx); err != nil {
			return failure.Errorf(failure.Device, "kernel", "%w", err)
		}
		if err := d.call("cuModuleLoadData", g.out(), m.image.Addr(0)); err != nil {
			return failure.Errorf(failure.Invalid, "kernel", "the PTX does not load on %s (sm_%d%d): %w; check that it is PTX text for this GPU (nvcc --ptx)", g.name, g.major, g.minor, err)
		}
		module := uintptr(g.scratch.Load64(scratchOut))
		g.scratch.Write(scratchEntry, append([]byte(m.entry), 0))
		if err := d.call("cuModuleGetFunction", g.out(), module, g.scratch.Addr(scratchEntry)); err != nil {
			_ = d.call("cuModuleUnload", module)
			return failure.Errorf(failure.Invalid, "kernel", "the PTX has no kernel entry %q (%w); name an extern \"C\" __global__ function of it", m.entry, err)
		}
		m.module, m.fn, m.generation = module, uintptr(g.scratch.Load64(scratchOut)), g.generation
		return nil
	})
}

// Launch starts the kernel with block, one block of one thread on the
// execution context's stream: the argument block is written in the
// control region and the driver copies it at launch. Only one kernel runs
// at a time (the fabric runs one invocation per device). It aligns the
// kernel's clock with the fabric's again first when realignEvery has
// passed, and with block.AwaitStart it returns once the kernel stored its
// start.
func (m *userModule) Launch(block kernel.Block) (kernel.Running, error) {
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, failure.Errorf(failure.Busy, "dispatch", "the CUDA backend is closed")
	}
	if g.exec.ctx == 0 {
		return nil, failure.Errorf(failure.Device, "dispatch", "%s has no execution context since a reset failed; reset the device again", g.name)
	}
	if g.clock == nil {
		return nil, failure.Errorf(failure.Invalid, "dispatch", "the CUDA GPU was not attached to a fabric; give it to one as a device's Accelerator")
	}
	if m.generation != g.generation {
		if err := m.load(); err != nil {
			return nil, err
		}
	}
	if g.clock()-g.alignedAt > realignEvery {
		if err := g.align(realignRounds); err != nil {
			return nil, err
		}
	}
	err := g.onCaller(func() error {
		if err := g.checkIdle(); err != nil {
			return err
		}
		c := g.control
		for off := ctlUserArgs; off < ctlUserArgs+userArgsSize; off += 8 {
			c.Store64(off, 0)
		}
		for off := ctlStatus; off < ctlStatus+statusBytes; off += 8 {
			c.Store64(off, 0)
		}
		c.Store(ctlStop, 0)
		startup, err := g.deviceAddress(block.Startup)
		if err != nil {
			return fmt.Errorf("the startup line is not pinned memory of this GPU: %w", err)
		}
		c.Store64(userStartup, uint64(startup))
		c.Store64(userStop, uint64(g.exec.controlDevice+ctlStop))
		c.Store64(userStatus, uint64(g.exec.controlDevice+ctlStatus))
		c.Store64(userDelay, uint64(block.Delay.Nanoseconds()))
		c.Store(userMode, uint32(block.Mode))
		c.Store(userBuffers, uint32(len(block.Buffers)))
		c.Store64(userOwner, block.Owner)
		c.Store(userValues, uint32(len(block.Values)))
		for i, b := range block.Buffers {
			p, err := g.deviceAddress(b)
			if err != nil {
				return fmt.Errorf("buffer %d is not pinned memory of this GPU: %w", i, err)
			}
			c.Store64(userBuffer+8*i, uint64(p))
			c.Store64(userSize+8*i, uint64(b.Len()))
		}
		for i, v := range block.Values {
			c.Store64(userValue+8*i, uint64(v))
		}
		return g.launch(m.fn, ctlUserList)
	})
	if err != nil {
		return nil, g.dispatchError(err)
	}
	g.exec.launched = true
	if block.AwaitStart && !spinUntilNonZero64(g.control, statusStarted, kernelAnswerTimeout) {
		// No invocation will own this kernel: end it before the memory it
		// was given can be released.
		// One error, not one wrapped in another: its text names the kind
		// and the op once.
		late := fmt.Sprintf("the kernel did not start within %v", kernelAnswerTimeout)
		if terr := g.teardown(); terr != nil {
			return nil, failure.Errorf(failure.Device, "dispatch", "%s, and tearing it down failed: %w", late, terr)
		}
		return nil, failure.Errorf(failure.Device, "dispatch", "%s", late)
	}
	return &userRunning{g: g}, nil
}

// userRunning is a launched user's kernel; it reads the status block.
type userRunning struct{ g *GPU }

// Status reads the status block the kernel writes, its ending first: the
// kernel stores its observation before its ending, so an ending read first
// comes with the observation it followed. Read the other way round, a
// kernel that observed and ended between the two loads reads as ended
// without observing, and its observation is lost.
func (r *userRunning) Status() kernel.Status {
	c := r.g.control
	st := kernel.Status{Done: kernel.Done(c.Load(statusDone))}
	st.Observed = c.Load(statusObserved)
	if st.Observed != program.StartupWait {
		st.ObservedAt = r.g.fabricTime(c.Load64(statusObservedAt))
	}
	if st.Done != kernel.DoneRunning {
		st.RetiredAt = r.g.fabricTime(c.Load64(statusRetiredAt))
	}
	return st
}

// Check asks the driver whether the kernel's stream is idle (the kernel
// returned) or failed.
func (r *userRunning) Check() (bool, error) {
	switch s := r.g.lockedStreamStatus(); s {
	case cudaSuccess:
		return true, nil
	case cudaErrNotReady:
		return false, nil
	default:
		return true, result("the kernel's stream", s)
	}
}
