package devices

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// Prepared is a program ready to be dispatched on one queue family of a
// device, with the buffers it can reach.
type Prepared struct {
	device  *Device
	made    made
	family  QueueFamily
	program program.Program
	owner   uint64
	reach   []*Buffer

	dispatched atomic.Bool
}

// Prepare makes prog dispatchable on family of d. owner tags its events;
// reach lists every buffer the program can touch (they must outlive it,
// and none may be stale).
func (d *Device) Prepare(family QueueFamily, prog program.Program, owner uint64, reach ...*Buffer) (*Prepared, error) {
	for _, b := range reach {
		if err := b.staleError("prepare"); err != nil {
			return nil, err
		}
	}
	if family.ordinal < 0 || family.ordinal >= len(d.families) || d.families[family.ordinal] != family {
		return nil, failure.Errorf(failure.Invalid, "prepare", "%s has no queue family %d (%s)", d.name, family.ordinal, family.Command)
	}
	if prog == nil {
		return nil, failure.Errorf(failure.Invalid, "prepare", "no program given")
	}
	return &Prepared{device: d, made: d.fabric.madeNow(), family: family, program: prog, owner: owner, reach: reach}, nil
}

// Device is the device the program runs on.
func (p *Prepared) Device() *Device { return p.device }

// Family is the queue family the program is dispatched to.
func (p *Prepared) Family() QueueFamily { return p.family }

// Reach yields the buffers the program can touch, in the order they were
// prepared with.
func (p *Prepared) Reach() iter.Seq[*Buffer] { return slices.Values(p.reach) }

// Program is the program that was prepared.
func (p *Prepared) Program() program.Program { return p.program }

// Dispatch puts the program on its queue. It is rejected while the device is
// occupied (Busy), when the program was dispatched before (Busy), when the
// device's dispatch fault fires (Device), or when a Starter program's Start
// fails. An accepted program starts after its queue's dispatch latency. A
// program prepared before its fabric was renewed is refused (failure.Stale),
// with no event.
func (p *Prepared) Dispatch() (*Completion, error) {
	if p.made.stale() {
		return nil, staleError("dispatch", "the program prepared on "+p.device.labels[p.family.ordinal])
	}
	if s, ok := p.program.(program.Starter); ok {
		// Work outside the fabric (a kernel on hardware) is admitted once
		// it has started.
		return p.dispatchStarting(func(env *env) *failure.Error {
			if err := s.Start(env); err != nil {
				return startError(p.device, err)
			}
			return nil
		})
	}
	f := p.device.fabric
	f.mu.Lock()
	defer f.mu.Unlock()
	inv, delay, err := p.admitLocked()
	if err != nil {
		return nil, err
	}
	p.startLocked(inv, delay)
	return inv.comp, nil
}

// dispatchStarting dispatches a program that is admitted only once start
// has started its work outside the fabric (a kernel on hardware, which can
// take seconds), so start runs outside fabric.mu: admission reserves the
// device (the invocation is its current one, not yet started, so the
// device is occupied and the program's buffers are reached), start follows
// with only the device's hw lock held, which keeps the device's resets (and
// so Fabric.Close) out, and then the invocation starts, or the reservation
// is undone and the dispatch rejected with start's error.
func (p *Prepared) dispatchStarting(start func(env *env) *failure.Error) (*Completion, error) {
	d := p.device
	f := d.fabric
	d.hw.Lock()
	defer d.hw.Unlock()
	f.mu.Lock()
	prev := d.current
	inv, delay, err := p.admitLocked()
	if err == nil {
		d.current = inv
	}
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	startErr := start(&inv.env)
	f.mu.Lock()
	defer f.mu.Unlock()
	if startErr != nil {
		d.current = prev
		return nil, p.rejectLocked(startErr)
	}
	p.startLocked(inv, delay)
	return inv.comp, nil
}

// rejectLocked records a refused dispatch and returns its error (fabric.mu
// held).
func (p *Prepared) rejectLocked(err *failure.Error) error {
	p.device.fabric.events.Emit(p.device.actor, p.owner, evReject, uint64(p.family.ordinal), 0, err.Message)
	return err
}

// admitLocked checks that the program may run now and hits the device's
// dispatch fault; it returns the invocation to start and its dispatch
// latency (fabric.mu held).
func (p *Prepared) admitLocked() (*invocation, time.Duration, error) {
	d := p.device
	f := d.fabric
	if f.closed {
		return nil, 0, p.rejectLocked(failure.Errorf(failure.Busy, "dispatch", "the fabric is closed; make a new one"))
	}
	for _, b := range p.reach {
		if b.released {
			return nil, 0, p.rejectLocked(failure.Errorf(failure.Busy, "dispatch", "the program can reach buffer %d, which was released (its owner closed); prepare the program again with live buffers", b.id))
		}
	}
	if d.occupiedLocked() {
		if d.held > 0 {
			return nil, 0, p.rejectLocked(failure.Errorf(failure.Busy, "dispatch", "%s is held by a quarantined session; reset it to free it", d.name))
		}
		return nil, 0, p.rejectLocked(failure.Errorf(failure.Busy, "dispatch", "%s is occupied by invocation %d; one invocation runs per device, wait for it to retire", d.name, d.current.id))
	}
	if p.dispatched.Load() {
		return nil, 0, p.rejectLocked(failure.Errorf(failure.Busy, "dispatch", "this program was already dispatched; prepare a new one"))
	}
	site := fault.NPUDispatch
	if d.kind == GPU {
		site = fault.GPUDispatch
	}
	delay := dispatchLatency(&f.timing, p.family.Command)
	switch fired := f.hitFault(d.actor, p.owner, site); fired.Action {
	case fault.Error:
		return nil, 0, p.rejectLocked(failure.Errorf(failure.Device, "dispatch", "%s rejected the dispatch: %s", d.name, fired.Message))
	case fault.Delay:
		delay = addDurations(delay, fired.Delay) // saturates: never wraps into "start at once"
	}
	p.dispatched.Store(true)
	inv := &dispatched{}
	inv.id, inv.dev, inv.prog, inv.owner, inv.reach, inv.comp = f.newID(), d, p.program, p.owner, p.reach, &inv.completion
	if sd, ok := p.program.(program.SiteDeclarer); ok {
		inv.sites = sd.Sites()
	}
	inv.comp.made = p.made
	inv.env.inv = &inv.invocation
	inv.comp.inv = &inv.invocation
	return &inv.invocation, delay, nil
}

// startLocked makes inv the device's invocation and hands it to the
// executor, to start delay after now (fabric.mu held).
func (p *Prepared) startLocked(inv *invocation, delay time.Duration) {
	d := p.device
	f := d.fabric
	d.current = inv
	f.events.Emit(d.actor, p.owner, event.EvDispatch, inv.id, uint64(p.family.ordinal), "")
	for _, b := range p.reach {
		f.events.Emit(d.actor, p.owner, event.EvReach, inv.id, b.id, "")
	}
	// The latency counts from the dispatch event, however long the host
	// took to get here (a kernel's launch included): the program never
	// starts sooner after it.
	inv.startAt = deadline(f.exec.now(), delay)
	f.exec.launch(inv)
}

// startError is a Starter's failure as the dispatch's error: the Start's own
// *failure.Error when it is one, otherwise a device error that wraps it.
func startError(d *Device, err error) *failure.Error {
	var e *failure.Error
	if errors.As(err, &e) {
		return e
	}
	return failure.Errorf(failure.Device, "dispatch", "%s could not start the program: %w", d.name, err)
}

// invocation is one dispatched program and its executor state.
type invocation struct {
	id      uint64
	dev     *Device
	prog    program.Program
	owner   uint64
	reach   []*Buffer
	sites   []fault.Site // the program's own fault sites (program.SiteDeclarer)
	comp    *Completion
	env     env
	startAt time.Duration

	started bool          // executor-owned
	next    program.Next  // executor-owned: what the program waits for
	wakeAt  time.Duration // executor-owned
	stopped atomic.Bool   // set by reset
	log     *deviceLog    // real time, while it runs: where its program's events wait (deviceLog)
}

// emit records an event of the running program: into the device's log in
// real time, into the stream in simulated time. The first observation of
// the decision is kept for Completion.Steps.
func (inv *invocation) emit(kind program.EventKind, a, b uint64, detail string) {
	var at time.Duration
	if inv.log == nil {
		at = inv.dev.fabric.events.Emit(inv.dev.actor, inv.owner, kind, a, b, detail)
	} else {
		at = inv.log.add(inv, kind, a, b, detail)
	}
	if kind == program.EvObserve {
		inv.comp.observed.Mark(at)
	}
}

// tellStopped tells a program that a reset stopped it, once it will step no
// more (program.Stopper).
func (inv *invocation) tellStopped() {
	if s, ok := inv.prog.(program.Stopper); ok {
		s.Stopped()
	}
}

func (inv *invocation) reaches(b *Buffer) bool {
	for _, r := range inv.reach {
		if r == b {
			return true
		}
	}
	return false
}

// dispatched is an invocation and its completion, made together.
type dispatched struct {
	invocation
	completion Completion
}

// Completion reports when an invocation retires, like an HSA signal.
type Completion struct {
	made      made
	inv       *invocation
	done      atomic.Bool
	err       error           // set before done
	retiredAt time.Duration   // set before done
	observed  event.StampCell // the program's first observation (invocation.emit)

	once sync.Once
	ch   chan struct{} // closed when done; made on first use by a real-time waiter
}

// retired reports whether the invocation has retired (successfully or not),
// without making progress.
func (c *Completion) retired() bool { return c.done.Load() }

// IsComplete reports whether the invocation has retired, and its error if it
// failed, without making progress.
func (c *Completion) IsComplete() (bool, error) {
	if !c.done.Load() {
		return false, nil
	}
	return true, c.err
}

// WaitContext waits up to timeout for retirement: in simulated time by
// letting virtual time pass, in real time on the wall clock. It returns
// false on timeout; a device error is returned as the error. It also ends,
// returning false and ctx's error, as soon as ctx is done: in real time at
// once, in simulated time after the device step in progress (the executor
// checks ctx between steps), however much virtual time the wait still had.
// A retirement that came first wins.
// docs/memory-model.md says how the two clocks relate.
//
// A completion of a stale invocation (dispatched before its fabric was
// renewed) fails with failure.Stale, waiting for nothing.
func (c *Completion) WaitContext(ctx context.Context, timeout time.Duration) (bool, error) {
	if c.made.stale() {
		return false, staleError("wait", "invocation "+strconv.FormatUint(c.inv.id, 10))
	}
	if !c.done.Load() {
		ok, err := c.made.fabric.exec.wait(ctx, c, timeout)
		c.made.fabric.settleQuarantines() // programs may have retired meanwhile
		if !ok {
			return false, err
		}
	}
	return true, c.err
}

// ID is the invocation's id in events.
func (c *Completion) ID() uint64 { return c.inv.id }

// Steps says when the invocation's program observed the decision and when
// it retired, at the times of the events that say so. It may be called
// from any goroutine, while the program runs too.
func (c *Completion) Steps() event.Steps {
	st := event.Steps{Observed: c.observed.Load()}
	if c.done.Load() {
		st.Retired, st.Err = event.Stamp{At: c.retiredAt, Set: true}, c.err
	}
	return st
}

func (c *Completion) channel() chan struct{} {
	c.once.Do(func() { c.ch = make(chan struct{}) })
	return c.ch
}

// finish records retirement. The completion fault can turn a clean
// retirement into a device error.
func (c *Completion) finish(err error) {
	inv := c.inv
	f := c.made.fabric
	site := fault.NPUComplete
	if inv.dev.kind == GPU {
		site = fault.GPUComplete
	}
	if fired := f.hitFault(inv.dev.actor, inv.owner, site); fired.Action == fault.Error && err == nil {
		err = failure.Errorf(failure.Device, "complete", "%s completion reported an error: %s", inv.dev.name, fired.Message)
	}
	var known *failure.Error
	if err != nil && !errors.As(err, &known) {
		// A program's own error (a crash it was told to have, a Lua
		// error) is its device's failure.
		err = &failure.Error{Kind: failure.Device, Op: "run", Message: err.Error(), Err: err}
	}
	status, detail := uint64(0), ""
	if err != nil {
		status, detail = 1, failure.Detail(err)
	}
	c.retiredAt = f.events.Emit(inv.dev.actor, inv.owner, event.EvRetire, inv.id, status, detail)
	c.err = err
	c.done.Store(true)
	c.once.Do(func() { c.ch = closedChannel })
	if c.ch != closedChannel {
		close(c.ch)
	}
}

// closedChannel stands in for a completion's channel when no waiter made one.
var closedChannel = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

// evReject is a dispatch the runtime refused. A: family ordinal; Detail: why.
var evReject = program.DefineEvent("dispatch.reject", program.CategoryDevice)
