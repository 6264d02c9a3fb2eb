package devices

import (
	"time"

	"github.com/residentlua/residentlua/devices/memory"
)

// Accelerator is real hardware behind a GPU device. It lends the pinned host
// memory it reaches coherently and runs the GPU half of the exchange itself,
// as a resident kernel, in place of the simulated program; everything else
// (the NPU, publications, completions, quarantine) stays the fabric's.
// devices/cuda is one. A fabric with an accelerator runs in real time.
type Accelerator interface {
	// Describe names the hardware, such as "cuda: NVIDIA H200 (sm_90)".
	Describe() string
	// Attach aligns the hardware's clock with the fabric's; NewFabric calls
	// it once, before anything runs.
	Attach(clock func() time.Duration) error
	// Map returns zeroed pinned host memory of size bytes (whole lines) that
	// the hardware reaches coherently at system scope. Unmapping the region
	// gives it back; the fabric does that only when nothing can reach it.
	Map(size int) (*memory.Region, error)
	// Launch starts the GPU half of an exchange and returns once the
	// kernel is resident (polling the startup word, or hung by the fault).
	Launch(k KernelLaunch) (Kernel, error)
	// Reset stops whatever runs and tears the hardware's execution context
	// down and up again. Memory from Map stays valid.
	Reset() error
	// Close releases the hardware; the fabric calls it last.
	Close() error
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
// layout (Exchange).
type KernelLaunch struct {
	Startup *memory.Region
	Payload *memory.Region
	Owner   uint64
	Config  ExchangeConfig
	Stride  int // bytes between credit slots
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
	Observed   uint32 // the decision seen; StartupWait until one is
	ObservedAt time.Duration
	Done       KernelDone
	RetiredAt  time.Duration
}
