package devices

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// realTimeExecutor runs each device on its own locked OS thread against the
// wall clock. A waiting program spins briefly, then sleeps until a write wakes
// it, so a 2-core machine is not starved by polling devices.
type realTimeExecutor struct {
	fabric  *Fabric
	epoch   time.Time
	devices map[*Device]*deviceThread
	quit    chan struct{}
	wg      sync.WaitGroup
}

// spinFor is how long a waiter polls before it sleeps.
const spinFor = 20 * time.Microsecond

// deviceThread is one device's OS thread.
type deviceThread struct {
	exec     *realTimeExecutor
	queue    chan *invocation
	wake     chan struct{}
	sleeping atomic.Bool
}

func newRealTimeExecutor(f *Fabric) *realTimeExecutor {
	r := &realTimeExecutor{fabric: f, epoch: time.Now(), devices: map[*Device]*deviceThread{}, quit: make(chan struct{})}
	for _, d := range f.devices {
		t := &deviceThread{exec: r, queue: make(chan *invocation, 1), wake: make(chan struct{}, 1)}
		r.devices[d] = t
		r.wg.Add(1)
		go t.loop()
	}
	return r
}

func (r *realTimeExecutor) now() time.Duration { return time.Since(r.epoch) }

func (r *realTimeExecutor) launch(inv *invocation) { r.devices[inv.dev].queue <- inv }

func (r *realTimeExecutor) changed() {
	for _, t := range r.devices {
		t.poke()
	}
}

func (t *deviceThread) poke() {
	if t.sleeping.Load() {
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
}

func (r *realTimeExecutor) wait(c *Completion, timeout time.Duration) bool {
	start := time.Now()
	for time.Since(start) < spinFor && time.Since(start) < timeout {
		if c.done.Load() {
			return true
		}
	}
	if c.done.Load() {
		return true
	}
	left := timeout - time.Since(start)
	if left <= 0 {
		return false
	}
	timer := time.NewTimer(left)
	defer timer.Stop()
	select {
	case <-c.channel():
		return true
	case <-timer.C:
		return c.done.Load()
	}
}

func (r *realTimeExecutor) stop(inv *invocation) {
	inv.stopped.Store(true)
	r.devices[inv.dev].poke()
	// The device thread finishes the invocation; wait for it, so that
	// nothing runs the program once stop returns.
	for !inv.comp.done.Load() {
		select {
		case <-inv.comp.channel():
		case <-time.After(time.Millisecond):
			r.devices[inv.dev].poke()
		}
	}
}

func (r *realTimeExecutor) advance(d time.Duration) { time.Sleep(d) }

func (r *realTimeExecutor) close() {
	close(r.quit)
	r.wg.Wait()
}

func (t *deviceThread) loop() {
	defer t.exec.wg.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for {
		select {
		case inv := <-t.queue:
			t.run(inv)
		case <-t.exec.quit:
			return
		}
	}
}

// run drives one invocation to retirement or reset.
func (t *deviceThread) run(inv *invocation) {
	if !t.sleepUntil(inv, inv.startAt) {
		inv.comp.finish(errReset(inv))
		return
	}
	inv.env.Emit(EvStart, 0, "")
	for {
		if inv.stopped.Load() {
			inv.comp.finish(errReset(inv))
			return
		}
		n := inv.prog.Step(&inv.env)
		ok := true
		switch n.kind {
		case nextWaitWord:
			ok = t.waitWord(inv, n.view, n.off, n.old)
		case nextSleep:
			ok = t.sleepUntil(inv, deadline(t.exec.now(), n.d))
		case nextHang:
			ok = t.block(inv, forever)
		case nextRetire:
			if t.sleepUntil(inv, t.exec.now()+t.exec.fabric.timing.Completion) {
				inv.comp.finish(n.err)
			} else {
				inv.comp.finish(errReset(inv))
			}
			return
		}
		if !ok {
			inv.comp.finish(errReset(inv))
			return
		}
	}
}

// waitWord returns when the word changes (true) or the invocation is stopped (false).
func (t *deviceThread) waitWord(inv *invocation, v *View, off int, old uint32) bool {
	start := time.Now()
	for i := 0; ; i++ {
		if v.Load(off) != old {
			return true
		}
		if inv.stopped.Load() {
			return false
		}
		if i&63 == 63 && time.Since(start) > spinFor {
			break
		}
	}
	for {
		t.sleeping.Store(true)
		if v.Load(off) != old || inv.stopped.Load() {
			t.sleeping.Store(false)
			return !inv.stopped.Load()
		}
		select {
		case <-t.wake:
		case <-t.exec.quit:
			inv.stopped.Store(true)
		}
		t.sleeping.Store(false)
	}
}

// sleepUntil waits for the clock to reach at: spinning when it is near,
// sleeping otherwise. It returns false when the invocation is stopped.
func (t *deviceThread) sleepUntil(inv *invocation, at time.Duration) bool {
	for {
		if inv.stopped.Load() {
			return false
		}
		left := at - t.exec.now()
		if left <= 0 {
			return true
		}
		if left <= 200*time.Microsecond {
			continue
		}
		if !t.block(inv, left-100*time.Microsecond) {
			return false
		}
	}
}

// block sleeps until poked, stopped or d passes; false when stopped.
func (t *deviceThread) block(inv *invocation, d time.Duration) bool {
	t.sleeping.Store(true)
	defer t.sleeping.Store(false)
	if inv.stopped.Load() {
		return false
	}
	var timeout <-chan time.Time
	if d != forever {
		timer := time.NewTimer(d)
		defer timer.Stop()
		timeout = timer.C
	}
	for {
		select {
		case <-t.wake:
			// Memory changed; a sleeping or hung program does not care.
			if inv.stopped.Load() {
				return false
			}
		case <-timeout:
			return true
		case <-t.exec.quit:
			inv.stopped.Store(true)
			return false
		}
	}
}
