// Package cuda is the CUDA backend of a GPU device: a session's GPU half runs
// as a one-thread resident kernel on a real NVIDIA GPU, loaded from PTX
// through kernel.Launcher (programs/kernel; the built-in exchange's kernel
// is one such), and polls the startup word in pinned, mapped host memory,
// while the NPU stays simulated and shares that memory non-coherently. The
// backend knows no particular program: its own kernels (kernels.cu) are the
// ping-pongs that align its clock and measure the floor.
//
// The driver is loaded at run time with purego (no cgo). One locked OS thread
// owns two contexts: a memory context that allocates every pinned buffer and
// lives as long as the backend, and an execution context holding the module
// and the stream, which a reset destroys and makes anew. Destroying the
// execution context therefore never frees memory that the host or the NPU
// may still reach. Pinned buffers are carved from chunks the memory context
// allocates once (a pinned arena), so a session allocates and frees nothing
// through the driver; a launch and a stream query run on the caller's
// thread with the execution context made current there (GPU.onCaller).
package cuda

import (
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ebitengine/purego"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/memory"
)

//go:embed kernels.ptx
var kernelsPTX []byte

// Driver flags and attributes the backend uses.
const (
	ctxMapHost          = 0x08 // CU_CTX_MAP_HOST
	hostAllocPortable   = 0x01 // CU_MEMHOSTALLOC_PORTABLE
	hostAllocDeviceMap  = 0x02 // CU_MEMHOSTALLOC_DEVICEMAP
	streamNonBlocking   = 0x01 // CU_STREAM_NON_BLOCKING
	attrCanMapHost      = 19   // CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY
	attrComputeMajor    = 75   // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	attrComputeMinor    = 76   // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
	minCompute          = 75   // sm_75: the oldest target of CUDA 13, which built the PTX
	stopTimeout         = 2 * time.Second
	calibrationRounds   = 200
	realignRounds       = 50
	realignEvery        = 100 * time.Millisecond
	kernelAnswerTimeout = 5 * time.Second
)

// Layout of the scratch region (mapped memory outside the Go heap) that
// receives the driver's out-parameters and holds C strings.
const (
	scratchOut   = 0    // 8 bytes: an out-parameter
	scratchName  = 64   // 256 bytes: the device name
	scratchPing  = 576  // "ping_pong\0" (320 to 575 are unused)
	scratchClock = 640  // "ping_pong_clock\0"
	scratchEntry = 768  // a kernel's entry name, NUL-terminated (at most maxEntry bytes)
	scratchBytes = 1024 // whole region
)

// Layout of the control region (pinned, mapped): kernel parameter lists,
// argument blocks, and the words a kernel and the host share. Kernels take
// their arguments by value (the driver copies the block at launch), so the
// host may rewrite a block once its kernel is launched. Every shared word
// sits on a 128-byte line written by one side only: the kernel's status and
// pong lines, the host's stop and ping lines. The ping arguments match
// kernels.cu; the status and a loaded kernel's arguments match ResidentArgs
// (docs/cuda.md, user.go). Bytes 0 to 7 and 24 to 191 are unused holes (they held
// an argument block of the exchange's own, before its kernel was launched
// as any loaded kernel is).
const (
	ctlPingList  = 8   // u64: host address of ctlPingArgs (kernelParams: one parameter)
	ctlUserList  = 16  // u64: host address of ctlUserArgs
	ctlPingArgs  = 192 // PingArgs, 32 bytes
	ctlStatus    = 256 // Status: a line the kernel alone writes
	ctlStop      = 384 // u32 stop word: a line the host alone writes
	ctlPing      = 512 // u32 ping word: a line the host alone writes
	ctlPong      = 640 // u32 pong word and the clock: a line the kernel alone writes
	ctlClock     = 648 // u64 %globaltimer at the last pong of ping_pong_clock
	ctlUserArgs  = 768 // a loaded kernel's argument block (ResidentArgs, user.go), userArgsSize bytes
	controlBytes = 1280

	statusObserved   = ctlStatus + 0
	statusDone       = ctlStatus + 4
	statusStarted    = ctlStatus + 8
	statusObservedAt = ctlStatus + 16
	statusRetiredAt  = ctlStatus + 24
	statusBytes      = 32

	pingArgPing   = ctlPingArgs + 0
	pingArgPong   = ctlPingArgs + 8
	pingArgClock  = ctlPingArgs + 16
	pingArgRounds = ctlPingArgs + 24

	pingStop = 0xFFFFFFFF // a ping that ends ping_pong early
)

// GPU is a CUDA device as a backend.Accelerator that also loads and
// launches a session's GPU half as a resident kernel (kernel.Launcher).
type GPU struct {
	drv     *driver
	thread  *thread
	device  uintptr // CUdevice
	name    string
	major   int
	minor   int
	memCtx  uintptr
	scratch *memory.Region // mapped, not pinned: out-parameters and C strings
	image   *memory.Region // mapped: the PTX, NUL-terminated
	control *memory.Region // pinned: parameters, arguments, status, ping words

	// pinned carves Map's regions from chunks of pinned memory that the
	// memory context allocates (lendPinned); a region given back is
	// carved again, so a session costs the driver no allocation.
	pinned *memory.Arena

	mu          sync.Mutex // guards what follows, and the control region's use
	exec        execution
	generation  uint64               // of the execution context: a reset makes a new one
	clock       func() time.Duration // the fabric's, from Attach
	alignedAt   time.Duration        // when the clocks were last aligned, by clock
	clockOffset atomic.Int64         // kernel clock minus fabric clock, in ns
	closed      bool
	// modules keeps each kernel Load compiled, by its entry (and, among
	// those of one entry, its PTX), until the GPU is closed: loading is a
	// JIT compile, and every session of the built-in exchange (or a
	// script's resident.kernel) loads the same kernel again.
	modules map[string][]*userModule

	lentMu sync.Mutex   // guards lent; taken under mu or alone, never the other way
	lent   []pinnedLoan // the driver's allocations the arena carves
}

// pinnedLoan is one allocation of pinned memory the arena carves (a chunk,
// or a region too large to carve), with where the kernels of one
// generation of the execution context see it.
type pinnedLoan struct {
	host, size uintptr
	device     uintptr
	generation uint64 // of device; 0: not asked yet
}

// execution is what a reset destroys: the execution context, its module,
// functions and stream, and the device address of the control region in it.
type execution struct {
	ctx, module, stream uintptr
	ping                uintptr // ping_pong
	pingClock           uintptr // ping_pong_clock
	controlDevice       uintptr
	launched            bool
}

// Open loads libcuda, takes GPU ordinal 0 and readies it. The error says
// what was missing: the driver library, a GPU, or a capability.
func Open() (*GPU, error) { return open(libraryName) }

func open(library string) (*GPU, error) {
	drv, err := loadDriver(library)
	if err != nil {
		return nil, failure.Errorf(failure.Unsupported, "cuda", "%w", err)
	}
	g := &GPU{drv: drv, thread: startThread()}
	g.pinned = memory.NewArenaOf(g.lendPinned)
	if err := g.thread.do(g.start); err != nil {
		_ = g.thread.do(g.release)
		g.thread.stop()
		_ = purego.Dlclose(drv.lib)
		return nil, err
	}
	return g, nil
}

// release undoes what a failed start made (on the thread): the contexts
// (which frees the control region) and the mapped scratch and image.
func (g *GPU) release() error {
	if g.exec.ctx != 0 {
		_ = g.drv.call("cuCtxDestroy_v2", g.exec.ctx)
	}
	if g.memCtx != 0 {
		_ = g.drv.call("cuCtxDestroy_v2", g.memCtx)
	}
	for _, r := range []*memory.Region{g.scratch, g.image} {
		if r != nil {
			_ = r.Unmap()
		}
	}
	return nil
}

// start runs on the thread: device, memory context, control region,
// execution context.
func (g *GPU) start() (err error) {
	if g.scratch, err = memory.Map(scratchBytes); err != nil {
		return err
	}
	if g.image, err = memory.Map(len(kernelsPTX) + 1); err != nil {
		return err
	}
	g.image.Write(0, kernelsPTX)
	g.scratch.Write(scratchPing, []byte("ping_pong\x00"))
	g.scratch.Write(scratchClock, []byte("ping_pong_clock\x00"))
	d := g.drv
	if err := d.call("cuInit", 0); err != nil {
		if re := (*resultError)(nil); errors.As(err, &re) && re.code == cudaErrNoDevice {
			return failure.Errorf(failure.Unsupported, "cuda", "no CUDA GPU is present (%w)", err)
		}
		return failure.Errorf(failure.Unsupported, "cuda", "the driver did not start: %w", err)
	}
	if err := d.call("cuDeviceGetCount", g.out()); err != nil {
		return failure.Errorf(failure.Unsupported, "cuda", "%w", err)
	}
	if g.scratch.Load(scratchOut) == 0 {
		return failure.Errorf(failure.Unsupported, "cuda", "no CUDA GPU is present (the driver found none)")
	}
	if err := d.call("cuDeviceGet", g.out(), 0); err != nil {
		return failure.Errorf(failure.Unsupported, "cuda", "%w", err)
	}
	g.device = uintptr(g.scratch.Load(scratchOut))
	if err := d.call("cuDeviceGetName", g.scratch.Addr(scratchName), 255, g.device); err == nil {
		g.name = cString(g.scratch.Read(scratchName, 256))
	}
	canMap, err := g.attribute(attrCanMapHost)
	if err == nil {
		g.major, err = g.attribute(attrComputeMajor)
	}
	if err == nil {
		g.minor, err = g.attribute(attrComputeMinor)
	}
	switch {
	case err != nil:
		return failure.Errorf(failure.Unsupported, "cuda", "%w", err)
	case canMap == 0:
		return failure.Errorf(failure.Unsupported, "cuda", "%s cannot map host memory, which the resident kernel polls", g.name)
	case g.major*10+g.minor < minCompute:
		return failure.Errorf(failure.Unsupported, "cuda", "%s is sm_%d%d; the resident kernel needs sm_75 or newer", g.name, g.major, g.minor)
	}
	if g.memCtx, err = g.createContext(); err != nil {
		return err
	}
	if g.control, err = g.hostAlloc(controlBytes, func() {}); err != nil {
		return err
	}
	return g.startExecution()
}

// out is the address of the scratch out-parameter, zeroed.
func (g *GPU) out() uintptr {
	g.scratch.Store64(scratchOut, 0)
	return g.scratch.Addr(scratchOut)
}

func (g *GPU) attribute(attr uintptr) (int, error) {
	if err := g.drv.call("cuDeviceGetAttribute", g.out(), attr, g.device); err != nil {
		return 0, err
	}
	return int(int32(g.scratch.Load(scratchOut))), nil
}

func (g *GPU) createContext() (uintptr, error) {
	if err := g.drv.call("cuCtxCreate_v2", g.out(), ctxMapHost, g.device); err != nil {
		return 0, failure.Errorf(failure.Device, "cuda", "%w", err)
	}
	return uintptr(g.scratch.Load64(scratchOut)), nil
}

// hostAlloc allocates pinned, mapped, portable host memory in the memory
// context (on the thread). Unmapping the region frees it, then calls freed.
func (g *GPU) hostAlloc(size int, freed func()) (*memory.Region, error) {
	d := g.drv
	if err := d.call("cuCtxSetCurrent", g.memCtx); err != nil {
		return nil, failure.Errorf(failure.Device, "cuda", "%w", err)
	}
	if err := d.call("cuMemHostAlloc", g.out(), uintptr(size), hostAllocPortable|hostAllocDeviceMap); err != nil {
		return nil, failure.Errorf(failure.Device, "alloc", "pinned host memory of %d bytes: %w", size, err)
	}
	addr := uintptr(g.scratch.Load64(scratchOut))
	free := func() error {
		err := g.thread.do(func() error {
			if err := d.call("cuCtxSetCurrent", g.memCtx); err != nil {
				return err
			}
			return d.call("cuMemFreeHost", addr)
		})
		freed()
		return err
	}
	r, err := memory.Foreign(addr, size, free)
	if err != nil {
		_ = d.call("cuMemFreeHost", addr)
		return nil, err
	}
	return r, nil
}

// startExecution makes the execution context, loads the kernels and makes
// the stream (on the thread).
func (g *GPU) startExecution() error {
	d := g.drv
	ctx, err := g.createContext()
	if err != nil {
		return err
	}
	x := execution{ctx: ctx}
	fail := func(err error) error {
		_ = d.call("cuCtxDestroy_v2", ctx)
		return failure.Errorf(failure.Device, "cuda", "%w", err)
	}
	if err := d.call("cuModuleLoadData", g.out(), g.image.Addr(0)); err != nil {
		return fail(fmt.Errorf("loading the kernels (PTX ISA 9.0 for sm_75 and newer, which needs a CUDA 13 driver) on %s: %w", g.name, err))
	}
	x.module = uintptr(g.scratch.Load64(scratchOut))
	if err := d.call("cuModuleGetFunction", g.out(), x.module, g.scratch.Addr(scratchPing)); err != nil {
		return fail(err)
	}
	x.ping = uintptr(g.scratch.Load64(scratchOut))
	if err := d.call("cuModuleGetFunction", g.out(), x.module, g.scratch.Addr(scratchClock)); err != nil {
		return fail(err)
	}
	x.pingClock = uintptr(g.scratch.Load64(scratchOut))
	if err := d.call("cuStreamCreate", g.out(), streamNonBlocking); err != nil {
		return fail(err)
	}
	x.stream = uintptr(g.scratch.Load64(scratchOut))
	if x.controlDevice, err = g.devicePointer(g.control, 0); err != nil {
		return fail(err)
	}
	c := g.control
	c.Store64(ctlPingList, uint64(c.Addr(ctlPingArgs)))
	c.Store64(ctlUserList, uint64(c.Addr(ctlUserArgs)))
	g.exec = x
	g.generation++
	return nil
}

// devicePointer is where the current context's kernels see byte off of a
// pinned region that is an allocation of its own (the control region).
func (g *GPU) devicePointer(r *memory.Region, off int) (uintptr, error) {
	if err := g.drv.call("cuMemHostGetDevicePointer_v2", g.out(), r.Addr(0), 0); err != nil {
		return 0, err
	}
	return uintptr(g.scratch.Load64(scratchOut)) + uintptr(off), nil
}

// lendPinned is the pinned arena's source: an allocation of size bytes in
// the memory context, recorded among the loans until the arena gives it
// back.
func (g *GPU) lendPinned(size int) (*memory.Region, error) {
	var r *memory.Region
	var host uintptr // set before the region can be given back
	err := g.thread.do(func() (err error) {
		r, err = g.hostAlloc(size, func() {
			g.lentMu.Lock()
			g.lent = slices.DeleteFunc(g.lent, func(l pinnedLoan) bool { return l.host == host })
			g.lentMu.Unlock()
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	host = r.Addr(0)
	g.lentMu.Lock()
	g.lent = append(g.lent, pinnedLoan{host: host, size: uintptr(size)})
	g.lentMu.Unlock()
	return r, nil
}

// deviceAddress is where the kernels of the current execution context see
// a region Map lent: its loan's device pointer, asked of the driver once
// per loan and generation (g.mu held, on a thread with the execution
// context current).
func (g *GPU) deviceAddress(r *memory.Region) (uintptr, error) {
	at := r.Addr(0)
	g.lentMu.Lock()
	defer g.lentMu.Unlock()
	for i := range g.lent {
		l := &g.lent[i]
		if at < l.host || at >= l.host+l.size {
			continue
		}
		if l.generation != g.generation {
			if err := g.drv.call("cuMemHostGetDevicePointer_v2", g.out(), l.host, 0); err != nil {
				return 0, err
			}
			l.device, l.generation = uintptr(g.scratch.Load64(scratchOut)), g.generation
		}
		return l.device + (at - l.host), nil
	}
	return 0, fmt.Errorf("memory at %#x was not lent by this GPU's Map", at)
}

// cString is b up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// Describe names the GPU, such as "cuda: NVIDIA H200 (sm_90)".
func (g *GPU) Describe() string {
	return fmt.Sprintf("cuda: %s (sm_%d%d)", g.name, g.major, g.minor)
}

// Map lends zeroed pinned host memory that the GPU reaches at system scope,
// carved from the pinned arena: the driver allocates a chunk only when the
// arena has no room, and a region given back (Unmap) is carved again. A
// region that is never given back (quarantined memory) keeps its chunk.
func (g *GPU) Map(size int) (*memory.Region, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, failure.Errorf(failure.Busy, "alloc", "the CUDA backend is closed")
	}
	return g.pinned.Alloc(size)
}

// onCaller runs fn on the calling goroutine's OS thread with the execution
// context current there (g.mu held): the launch and the stream queries of
// a session, where a hop to the backend's thread and back would cost two
// thread wake-ups, more than the driver call. g.mu serializes them with
// everything that runs on the backend's thread, and a context may be
// current on more than one thread.
func (g *GPU) onCaller(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := g.drv.call("cuCtxSetCurrent", g.exec.ctx); err != nil {
		return err
	}
	return fn()
}
