// Package backend is the runtime's side of real hardware: the Accelerator a
// hardware package (backends/cuda) puts behind a fabric's GPU, the Backend
// that opens one, and the registry by which devices.NewFabricWith finds a
// backend by name, as database/sql finds a driver.
package backend

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
)

// Accelerator is real hardware behind a GPU device: what any hardware
// backend provides to the fabric. It lends the pinned host memory it
// reaches coherently, keeps its clock aligned with the fabric's, and can be
// reset and closed; everything else (the NPU, publications, completions,
// quarantine) stays the fabric's. What a backend runs on the hardware is
// offered through optional interfaces that the program using it asserts on
// the accelerator (the built-in exchange and a user's kernel both assert
// kernel.Launcher of programs/kernel). backends/cuda is one. A fabric with
// an accelerator runs in real time.
type Accelerator interface {
	// Describe names the hardware, such as "cuda: NVIDIA H200 (sm_90)".
	Describe() string
	// Attach aligns the hardware's clock with the fabric's; devices.NewFabric
	// calls it once, before anything runs.
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

// Backend opens the real hardware behind a fabric's GPU. A hardware package
// registers one under a name when it is imported, as a database/sql driver
// does (backends/cuda registers "cuda"), and devices.NewFabricWith finds it
// by that name; a program that does not import the package does not link
// it.
type Backend interface {
	// Open readies the hardware for one fabric, which closes it. Closing
	// what it returns must be safe twice: devices.NewFabricWith closes it
	// when the fabric could not be made, and the fabric may have closed it
	// already.
	Open() (Accelerator, error)
}

// Sim names the simulated GPU, which every build has and no package
// registers.
const Sim = "sim"

// backends is the registry of Register; its lock is taken alone.
var backends struct {
	sync.RWMutex
	byName map[string]Backend
}

// Register makes b available under name to devices.NewFabricWith.
// Hardware packages call it from an init function. It panics when b is
// nil, when name is empty or "sim", or when name is already registered:
// each is a mistake in the program, not in its input.
func Register(name string, b Backend) {
	if b == nil {
		panic("backend: Register of a nil backend")
	}
	if name == "" || name == Sim {
		panic("backend: Register needs a name other than \"\" and \"sim\", got " + strconv.Quote(name))
	}
	backends.Lock()
	defer backends.Unlock()
	if _, dup := backends.byName[name]; dup {
		panic("backend: Register called twice for " + strconv.Quote(name))
	}
	if backends.byName == nil {
		backends.byName = map[string]Backend{}
	}
	backends.byName[name] = b
}

// Names lists the GPU backends this program has: "sim" first, then the
// registered ones in alphabetical order.
func Names() []string {
	backends.RLock()
	defer backends.RUnlock()
	names := make([]string, 0, len(backends.byName))
	for name := range backends.byName {
		names = append(names, name)
	}
	slices.Sort(names)
	return append([]string{Sim}, names...)
}

// Lookup returns the backend registered under name, and whether there is
// one; "sim" and "" have none, being the simulated GPU.
func Lookup(name string) (Backend, bool) {
	backends.RLock()
	defer backends.RUnlock()
	b, ok := backends.byName[name]
	return b, ok
}

// Check says what is wrong with a backend name: nil for "" (the simulated
// GPU), "sim" and every registered name; otherwise an invalid error that
// lists the names there are.
func Check(name string) error {
	if name == "" || name == Sim {
		return nil
	}
	if _, ok := Lookup(name); !ok {
		return failure.Errorf(failure.Invalid, "fabric", "unknown GPU backend %q; use %s", name, quotedChoices(Names()))
	}
	return nil
}

// quotedChoices is `"a", "b" or "c"`.
func quotedChoices(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// FaultSupport is an optional interface of an Accelerator whose hardware
// cannot honour some fault sites (on a GPU whose kernel writes the payload
// slots itself, payload.corrupt has nothing to corrupt). An accelerator
// without it supports every site.
type FaultSupport interface {
	// UnsupportedFault says why site cannot fire on this hardware, or ""
	// when it can.
	UnsupportedFault(site fault.Site) string
}
