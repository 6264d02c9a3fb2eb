package devices

import (
	"slices"
	"time"

	"github.com/residentlua/residentlua/devices/event"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// env is an invocation's program.Env.
type env struct {
	inv *invocation
}

// Now is the fabric's time.
func (e *env) Now() time.Duration { return e.inv.dev.fabric.exec.now() }

// Timing is the fabric's timing profile.
func (e *env) Timing() program.Timing { return e.inv.dev.fabric.timing }

// Emit records an event by this device about this invocation (A is the
// invocation). In real time it reaches the stream in a batch, stamped with
// the time of the step that emitted it (event.Stream).
func (e *env) Emit(kind program.EventKind, b uint64, detail string) {
	e.inv.emit(kind, e.inv.id, b, detail)
}

// Fault hits a fault site, recording what fired.
func (e *env) Fault(site fault.Site) fault.Fired {
	if !site.Generic() && !slices.Contains(e.inv.sites, site) {
		return fault.Fired{} // not the program's own: no fault of another program's reaches it
	}
	fired := e.inv.dev.fabric.faults.Hit(site)
	if fired.Action != fault.None {
		e.inv.emit(event.EvFault, uint64(site), uint64(fired.Action), faultDetail(site, fired.Action))
	}
	return fired
}

// Ring wakes programs waiting on memory a program wrote outside a view.
func (e *env) Ring() { e.inv.dev.fabric.exec.changed() }

// ResetError is the error of this invocation stopped by a device reset.
func (e *env) ResetError() error { return errReset(e.inv) }

// Stopping reports whether a reset is stopping the invocation
// (program.Stopping).
func (e *env) Stopping() bool { return e.inv.stopped.Load() }

// Interleaved is true in simulated time, where the executor may step
// another program between two steps of this one.
func (e *env) Interleaved() bool { return e.inv.dev.fabric.mode == Simulated }

// DeviceName is the name of the device running the program.
func (e *env) DeviceName() string { return e.inv.dev.name }
