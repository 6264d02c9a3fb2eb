package devices

import (
	"time"

	"github.com/residentlua/residentlua/devices/fault"
)

// Program is a device program written as a step machine. Step does a little
// work through its views and says what it waits for next. It never blocks,
// sleeps or starts goroutines: an executor runs it, so the same program is
// correct in real and in simulated time, and every interleaving can be
// replayed.
type Program interface {
	Step(env *Env) Next
}

// Starter is a Program that starts work outside the fabric when it is
// dispatched, such as a kernel on real hardware that the program's steps
// then watch. Dispatch calls Start once, with the invocation's Env, before
// it admits the program, and rejects the dispatch with Start's error. Start
// runs under the fabric's lock: it may use the Env but no other method of
// the fabric.
type Starter interface {
	Program
	Start(env *Env) error
}

type nextKind uint8

const (
	nextContinue nextKind = iota
	nextWaitWord
	nextSleep
	nextHang
	nextRetire
	nextPoll
)

// Next is what a step returns: continue, wait, or retire.
type Next struct {
	kind nextKind
	view *View
	off  int
	old  uint32
	d    time.Duration
	err  error
}

// Continue asks to be stepped again at once.
func Continue() Next { return Next{kind: nextContinue} }

// WaitWord asks to be stepped again once the word at off, as v sees it, no
// longer holds old.
func WaitWord(v *View, off int, old uint32) Next {
	return Next{kind: nextWaitWord, view: v, off: off, old: old}
}

// Sleep asks to be stepped again after d of the fabric's time.
func Sleep(d time.Duration) Next { return Next{kind: nextSleep, d: d} }

// Poll asks to be stepped again soon, after a step that found nothing new
// in memory whose writes no view announces (a real device's status block,
// written by hardware). The real-time executor polls, yielding its
// processor, then backs off to naps of up to a millisecond; simulated time
// lets a microsecond pass.
func Poll() Next { return Next{kind: nextPoll} }

// Hang never asks to be stepped again: the program never retires by itself.
func Hang() Next { return Next{kind: nextHang} }

// Retire ends the program, successfully when err is nil.
func Retire(err error) Next { return Next{kind: nextRetire, err: err} }

// Env is what a running program may use besides its views: the clock, the
// timing profile, the fault plane and the event stream.
type Env struct {
	inv *invocation
}

// Now is the fabric's time.
func (e *Env) Now() time.Duration { return e.inv.dev.fabric.exec.now() }

// Timing is the fabric's timing profile.
func (e *Env) Timing() *Timing { return &e.inv.dev.fabric.timing }

// Emit records an event by this device about this invocation (A is the
// invocation). In real time it reaches the stream in a batch, stamped with
// the time of the step that emitted it (Stream).
func (e *Env) Emit(kind EventKind, b uint64, detail string) {
	e.inv.emit(kind, e.inv.id, b, detail)
}

// Fault hits a fault site, recording what fired.
func (e *Env) Fault(site fault.Site) fault.Fired {
	fired := e.inv.dev.fabric.faults.Hit(site)
	if fired.Action != fault.None {
		e.inv.emit(EvFault, uint64(site), uint64(fired.Action), faultDetail(site, fired.Action))
	}
	return fired
}

// Ring says that the program wrote memory other programs may wait on
// outside a view (a kernel on real hardware did), so waiting programs look
// again: the doorbell a device rings after a write.
func (e *Env) Ring() { e.inv.dev.fabric.exec.changed() }

// ResetError is the error of this invocation stopped by a device reset, for
// a program that learns of the reset itself (a kernel whose hardware was
// torn down) and retires with it.
func (e *Env) ResetError() error { return errReset(e.inv) }

// Device is the device running the program.
func (e *Env) Device() *Device { return e.inv.dev }
