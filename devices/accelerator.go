package devices

import (
	"time"

	"github.com/residentlua/residentlua/devices/memory"
)

// Accelerator is real hardware behind a GPU device: what any hardware
// backend provides to the fabric. It lends the pinned host memory it
// reaches coherently, keeps its clock aligned with the fabric's, and can be
// reset and closed; everything else (the NPU, publications, completions,
// quarantine) stays the fabric's. What a backend runs on the hardware is
// offered through optional interfaces that the program using it asserts on
// the accelerator (programs/exchange asserts its kernel launch,
// exchange.Launcher). backends/cuda is one. A fabric with an accelerator
// runs in real time.
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
	// Reset stops whatever runs and tears the hardware's execution context
	// down and up again. Memory from Map stays valid.
	Reset() error
	// Close releases the hardware; the fabric calls it last.
	Close() error
}
