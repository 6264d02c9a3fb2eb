package devices

import (
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"

	"golang.org/x/sys/cpu"

	"github.com/residentlua/residentlua/devices/memory"
)

// DeviceKind says what a device is.
type DeviceKind uint8

// Device kinds.
const (
	GPU DeviceKind = iota + 1
	NPU
)

// String is "gpu" or "npu".
func (k DeviceKind) String() string {
	switch k {
	case GPU:
		return "gpu"
	case NPU:
		return "npu"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Command is the command format a queue family accepts.
type Command uint8

// Queue commands: GPU PM4, AQL and SDMA; NPU XDNA.
const (
	PM4 Command = iota + 1
	AQL
	SDMA
	XDNA
)

// String is the command's name ("pm4", "aql", "sdma", "xdna").
func (c Command) String() string {
	switch c {
	case PM4:
		return "pm4"
	case AQL:
		return "aql"
	case SDMA:
		return "sdma"
	case XDNA:
		return "xdna"
	}
	return fmt.Sprintf("command(%d)", uint8(c))
}

// ParseCommand reads a command name ("pm4", "aql", "sdma", "xdna").
func ParseCommand(name string) (Command, error) {
	for _, c := range []Command{PM4, AQL, SDMA, XDNA} {
		if c.String() == name {
			return c, nil
		}
	}
	return 0, failure.Errorf(failure.Invalid, "queue", "unknown queue kind %q; use pm4, aql, sdma or xdna", name)
}

// QueueFamily is one of a device's queue families. Its index among them
// (its place in Device.Families) is what events (dispatch's B) and error
// messages call its ordinal.
type QueueFamily struct {
	ordinal int
	Command Command
}

// Device is a GPU or an NPU of a fabric. It runs at most one invocation at a
// time and stays occupied while a quarantine holds it.
type Device struct {
	fabric   *Fabric
	actor    event.Actor
	name     string
	kind     DeviceKind
	families []QueueFamily
	labels   []string            // "name command" by family ordinal, for publications' events
	accel    backend.Accelerator // real hardware running the GPU half; nil when simulated

	// hw makes a reset and a dispatch that starts work outside the fabric
	// (a kernel's launch on accel) take turns: both call the hardware
	// outside fabric.mu, which can take seconds, and change the device's
	// state under it before and after. It comes before fabric.mu (doc.go).
	hw sync.Mutex

	// Guarded by fabric.mu.
	current *invocation
	held    int // quarantines that hold this device until it is reset

	// What the step the device runs owes for its memory operations:
	// written by whoever steps the device's programs, on lines of its own.
	_     cpu.CacheLinePad
	meter meter
	_     cpu.CacheLinePad
}

// Name is the device's name, such as "gpu0".
func (d *Device) Name() string { return d.name }

// Kind is GPU or NPU.
func (d *Device) Kind() DeviceKind { return d.kind }

// Actor is the device's actor number in events.
func (d *Device) Actor() event.Actor { return d.actor }

// Accelerator is the real hardware behind the device, or nil when it is
// simulated.
func (d *Device) Accelerator() backend.Accelerator { return d.accel }

// Fabric is the fabric the device belongs to.
func (d *Device) Fabric() *Fabric { return d.fabric }

// Families yields the device's queue families in ordinal order.
func (d *Device) Families() iter.Seq[QueueFamily] { return slices.Values(d.families) }

// Family returns the first family whose command is c.
func (d *Device) Family(c Command) (QueueFamily, error) {
	for _, f := range d.families {
		if f.Command == c {
			return f, nil
		}
	}
	return QueueFamily{}, failure.Errorf(failure.Unsupported, "queue", "%s has no %s queue family", d.name, c)
}

// Occupied reports whether the device runs an invocation or is held by a quarantine.
func (d *Device) Occupied() bool {
	d.fabric.mu.Lock()
	defer d.fabric.mu.Unlock()
	return d.occupiedLocked()
}

func (d *Device) occupiedLocked() bool {
	return d.held > 0 || (d.current != nil && !d.current.comp.retired())
}

// Reset stops whatever runs on the device (its completion finishes with a
// reset error) and frees the device. Quarantines whose devices have all been
// reset since they began are released: their memory is unmapped and their
// budget returned. Real hardware is torn down first, outside fabric.mu; if
// that fails, the invocation is left as it is (so everything it can reach
// stays in place), the device stays held, and the reset event says why.
func (d *Device) Reset() {
	f := d.fabric
	d.hw.Lock() // no dispatch that starts outside work is half-way meanwhile
	defer d.hw.Unlock()
	var pinned []*memory.Region
	defer unmapAll(&pinned) // after f.mu is unlocked
	wasRunning := false
	if d.accel != nil {
		var ok bool
		if wasRunning, ok = d.resetHardware(); !ok {
			return
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	inv := d.current
	var stopped uint64
	if inv != nil && (wasRunning || !inv.comp.retired()) {
		stopped = inv.id
		if !inv.comp.retired() { // the torn-down kernel's watcher may have retired it
			f.exec.stop(inv)
		}
	}
	d.current = nil
	d.held = 0
	f.events.Emit(d.actor, 0, event.EvReset, stopped, 0, "")
	pinned = f.releaseResetQuarantines(d)
}

// resetHardware tears the accelerator down when an invocation runs on the
// device or a quarantine holds it. The teardown runs outside fabric.mu,
// with d.hw held, so no dispatch on the device comes between the check and
// the state change that follows it. It reports whether an invocation was
// running when it began, and ok false when the teardown failed: then the
// device is held once more and the reset event says why (d.hw held).
func (d *Device) resetHardware() (running, ok bool) {
	f := d.fabric
	f.mu.Lock()
	running = d.current != nil && !d.current.comp.retired()
	busy := running || d.held > 0
	f.mu.Unlock()
	if !busy {
		return false, true
	}
	err := d.accel.Reset()
	if err == nil {
		return running, true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	d.held++
	f.events.Emit(d.actor, 0, event.EvReset, 0, 1, failure.Detail(err))
	return running, false
}
