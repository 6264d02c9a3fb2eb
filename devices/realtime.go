package devices

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/devices/wait"

	"github.com/residentlua/residentlua/devices/program"
)

// realTimeExecutor runs each device on its own goroutine against the wall
// clock, and its waits pass by the fabric's wait.Policy. Under wait.Hybrid
// (the default) a waiting program polls, and blocks only when the wait
// lasts longer than spinFor, so that a peer's write is seen within a poll
// instead of a thread wake-up; on fewer cores than waiters (yields) it hands
// its processor to any other runnable goroutine between short bursts of
// polls, so that a 2-core machine is not starved by polling devices. Under wait.Spin it polls without yielding or
// blocking; under wait.Block it blocks at once.
//
// Only under wait.Spin are the device goroutines locked to OS threads:
// runtime.Gosched on a locked thread parks the thread and costs a futex
// wake-up (tens of microseconds) every time, while on an ordinary goroutine
// it costs about a hundred nanoseconds where other goroutines wait for a
// processor, and a spinning thread never yields.
// docs/performance.md has the measurements.
type realTimeExecutor struct {
	fabric *Fabric
	policy wait.Policy
	// yields says that a hybrid waiter hands its processor to another
	// goroutine between bursts of polls: only where the process has
	// fewer usable cores than the fabric's devices and the host. Where it
	// has a core for each, a yield finds nobody to run, and costs a
	// wake-up of an idle processor's thread and often a move to another
	// core, several times a raw round trip.
	yields  bool
	timed   bool // the timing profile models some latency: devices keep the model's instants (run)
	epoch   time.Time
	devices []*deviceThread // by actor - 1
	// collectable holds a token once a device handed a batch of events
	// (deviceLog): a host blocked in wait wakes for it and collects.
	collectable chan struct{}
	quit        chan struct{}
	wg          sync.WaitGroup
}

const (
	// spinFor is how long a waiter polls before it blocks. While a session
	// runs, its peers answer well within it; a wait this long means the
	// peer is idle, hung or sleeping a long modeled latency.
	spinFor = 500 * time.Microsecond
	// hostSpinFor is how long the host polls a completion before it
	// blocks where the process has fewer cores than waiters (yields):
	// shorter than a device's, because while the host polls, three
	// goroutines (host, GPU, NPU) share what may be two processors, and
	// every one the host gives back runs a device at full speed. With a
	// core for each it polls as long as a device does (spinFor): a
	// blocked host pays a thread wake-up, tens of microseconds, when the
	// completion comes.
	hostSpinFor = 20 * time.Microsecond
	// pollsPerYield is how many polls a waiter makes back to back (a
	// fraction of a microsecond) before it yields its processor; a power of
	// two.
	pollsPerYield = 32
	// pollsPerClock is how many polls a waiter that does not yield makes
	// between two reads of the clock for its budget: a few microseconds,
	// nothing beside a budget of spinFor. A clock read costs as much as
	// several polls, and a wait that ends sooner, as a peer's answer in an
	// exchange does, reads none (docs/performance.md, "Why the code is
	// shaped as it is").
	pollsPerClock = 512 // a power of two, as pollsPerYield (next masks by them)
	// timerSlack is how late a Go timer may fire: the runtime's poller
	// sleeps in whole milliseconds. sleepUntil polls for the last part of
	// a sleep, so a modeled latency ends on time.
	timerSlack = 1500 * time.Microsecond
)

// deviceThread is one device's goroutine.
type deviceThread struct {
	exec   *realTimeExecutor
	log    *deviceLog // the running program's events
	queue  chan *invocation
	parker *parker // where the device blocks (waitWord, block), and what wakes it
}

func newRealTimeExecutor(f *Fabric) *realTimeExecutor {
	r := &realTimeExecutor{fabric: f, policy: f.wait, timed: f.timing != timing.Ideal(), epoch: time.Now(), collectable: make(chan struct{}, 1), quit: make(chan struct{})}
	r.yields = f.wait == wait.Hybrid && usableCores() < len(f.devices)+1
	for range f.devices {
		t := &deviceThread{exec: r, log: newDeviceLog(&f.events, r.collectable), queue: make(chan *invocation, 1), parker: newParker()}
		r.devices = append(r.devices, t)
		r.wg.Add(1)
		go t.loop()
	}
	return r
}

func (r *realTimeExecutor) now() time.Duration { return time.Since(r.epoch) }

func (r *realTimeExecutor) thread(d *Device) *deviceThread { return r.devices[d.actor-1] }

func (r *realTimeExecutor) launch(inv *invocation) { r.thread(inv.dev).queue <- inv }

// collect moves the devices' handed event batches into the stream: work
// the host does between polls, so that devices spend no time on it.
func (r *realTimeExecutor) collect() {
	for _, t := range r.devices {
		t.log.collect()
	}
}

// changed wakes the devices blocked on memory: a store into it came
// before (parker).
func (r *realTimeExecutor) changed() {
	for _, t := range r.devices {
		t.parker.unpark()
	}
}

// backoff paces a polling loop by a wait policy. Under wait.Hybrid it
// polls until budget has passed since its first clock read: where it
// yields, pollsPerYield times back to back between yields of the
// processor, reading the clock at each yield; otherwise reading the clock
// every pollsPerClock polls. Under wait.Spin it polls without yielding
// until budget has passed (never, for a budget of forever); under
// wait.Block it does not poll.
type backoff struct {
	policy wait.Policy
	yields bool // hybrid on fewer cores than waiters (realTimeExecutor.yields)
	polls  int
	start  time.Time
	budget time.Duration
}

// backoff is a device's backoff for a wait: hybrid polls for budget,
// spin for as long as the wait lasts.
func (r *realTimeExecutor) backoff(budget time.Duration) backoff {
	if r.policy == wait.Spin {
		budget = forever
	}
	return backoff{policy: r.policy, yields: r.yields, budget: budget}
}

// next is called after each poll that found nothing; it reports whether to
// keep polling.
func (b *backoff) next() bool {
	if b.policy == wait.Block {
		return false
	}
	b.polls++
	// Both periods are powers of two: a mask, not a division, on every poll.
	mask := pollsPerClock - 1
	if b.yields {
		mask = pollsPerYield - 1
	}
	if b.polls&mask != 0 || b.budget == forever {
		return true
	}
	if b.polls == mask+1 {
		b.start = time.Now() // a wait that ends before reads no clock
	} else if time.Since(b.start) > b.budget {
		return false
	}
	if b.yields {
		runtime.Gosched()
	}
	return true
}

// burstEnded reports whether the last next ended a burst of polls: where a
// long poll checks what else could end it.
func (b *backoff) burstEnded() bool { return b.polls%pollsPerYield == 0 }

// wait polls the completion by the policy (hybrid for spinFor, or for
// hostSpinFor where it yields; spin until the timeout or ctx ends), then
// blocks on it. Between bursts of polls, and when a device hands a batch
// while it blocks, it moves the devices' full batches of events into the
// stream (deviceLog), work the devices would otherwise do themselves.
func (r *realTimeExecutor) wait(ctx context.Context, c *Completion, timeout time.Duration) (bool, error) {
	b := backoff{policy: r.policy, yields: r.yields, budget: min(spinFor, timeout)}
	if r.yields {
		b.budget = min(hostSpinFor, timeout)
	}
	if r.policy == wait.Spin {
		b.budget = timeout
	}
	for !c.done.Load() {
		if !b.next() {
			break
		}
		if b.burstEnded() {
			if ctx.Err() != nil {
				break
			}
			r.collect()
		}
	}
	if c.done.Load() {
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	left := timeout
	if !b.start.IsZero() {
		left -= time.Since(b.start)
	}
	if left <= 0 {
		return false, nil
	}
	timer := time.NewTimer(left)
	defer timer.Stop()
	for {
		select {
		case <-c.channel():
			return true, nil
		case <-r.collectable:
			r.collect()
		case <-timer.C:
			return c.done.Load(), nil
		case <-ctx.Done():
			if c.done.Load() {
				return true, nil
			}
			return false, ctx.Err()
		}
	}
}

// stop stops inv and waits for its device's goroutine to finish it, so
// that nothing runs the program once stop returns. The device sees stopped
// wherever it is: its polls check it, and a parked device is unparked
// after it was stored (parker).
func (r *realTimeExecutor) stop(inv *invocation) {
	inv.stopped.Store(true)
	r.thread(inv.dev).parker.unpark()
	<-inv.comp.channel()
}

func (r *realTimeExecutor) advance(d time.Duration) { time.Sleep(d) }

func (r *realTimeExecutor) close() {
	close(r.quit)
	r.wg.Wait()
}

func (t *deviceThread) loop() {
	defer t.exec.wg.Done()
	if t.exec.policy == wait.Spin {
		// The goroutine ends without unlocking, which ends the thread too.
		runtime.LockOSThread()
	}
	for {
		// An idle device polls its queue for a while (under hybrid
		// yielding between polls, so the host keeps a processor to
		// dispatch on), then blocks: a dispatch to a blocked device pays
		// for waking a thread.
		b := backoff{policy: t.exec.policy, yields: t.exec.yields, budget: spinFor}
		var inv *invocation
		for inv == nil {
			select {
			case inv = <-t.queue:
				continue
			default:
			}
			if !b.next() {
				break
			}
		}
		if inv == nil {
			select {
			case inv = <-t.queue:
			case <-t.exec.quit:
				return
			}
		}
		t.run(inv)
		t.exec.fabric.settleQuarantines() // inv has retired: a quarantine may wait for it
	}
}

// run drives one invocation to retirement or reset.
//
// When the timing profile models some latency (timed), the device keeps
// the model's clock as simulated time does, where a step takes no time: a
// burst of steps that go on at once (burst) is one instant, at which all
// its events are stamped and from which a latency it asks for runs; and a
// latency ends at its deadline, so the burst after it begins there, not
// when the device's poll noticed it (woke). So the work of a burst, and
// the poll's lateness, fall inside the latency that follows instead of
// adding to it, as they do not exist in simulated time. A burst that
// follows a wait for memory, a block or a poll begins when the device saw
// what it waited for: the clock. Under ideal timing the only latencies
// are faults' delays; no step reads the clock for them (an event reads it
// once per step), and a delay starts when the step that asks for it
// returns.
func (t *deviceThread) run(inv *invocation) {
	inv.log = t.log
	if !t.sleepUntil(inv, inv.startAt) {
		t.stopped(inv)
		return
	}
	timed := t.exec.timed
	var at time.Duration // the instant of the next burst, when timed
	if timed {
		at = t.woke(inv.startAt)
	}
	t.stamp(at)
	inv.env.Emit(event.EvStart, 0, "")
	var polling pacer
	for {
		if inv.stopped.Load() {
			t.stopped(inv)
			return
		}
		n, owed := t.burst(inv, at)
		if owed > 0 { // what the last step's memory operations cost passes first
			if !t.sleep(inv, at, owed) {
				t.stopped(inv)
				return
			}
			if timed {
				at = t.woke(deadline(at, owed))
			}
		}
		ok := true
		switch n.Kind() {
		case program.NextWaitWord:
			v, off, old := n.Word()
			ok = t.waitWord(inv, v, off, old)
		case program.NextSleep:
			ok = t.sleep(inv, at, n.Duration())
			if ok && timed {
				at = t.woke(deadline(at, n.Duration()))
			}
		case program.NextHang:
			ok = t.block(inv, forever)
		case program.NextPoll:
			ok = polling.pace(t, inv)
		case program.NextRetire:
			// The program's events go to the stream while its
			// completion's latency runs, not after it.
			t.log.flush()
			if t.sleep(inv, at, t.exec.fabric.timing.Completion) {
				t.retire(inv, n.Err())
			} else {
				t.stopped(inv)
			}
			return
		}
		if !ok {
			t.stopped(inv)
			return
		}
		if timed && n.Kind() != program.NextSleep && !n.GoesOn() {
			at = t.exec.now()
		}
		if n.Kind() != program.NextPoll {
			polling = pacer{}
		}
	}
}

// wakeSlack is how late after a latency's deadline a device may notice
// that it passed and still take the deadline as the instant it woke: the
// lateness of a poll and of the clock read it makes. A device that woke
// later than that was held up (by the scheduler, say), and what follows
// begins when it woke, so that the hold-up counts and the device never
// catches up on the model's latencies by skipping them.
const wakeSlack = time.Microsecond

// woke is the instant a timed device resumes at after a latency whose
// deadline it has reached (resumeAt).
func (t *deviceThread) woke(deadline time.Duration) time.Duration {
	return resumeAt(deadline, t.exec.now())
}

// resumeAt is the instant a device that noticed at now that a latency's
// deadline passed resumes at: the deadline, unless it noticed more than
// wakeSlack late.
func resumeAt(deadline, now time.Duration) time.Duration {
	if now-deadline > wakeSlack {
		return now
	}
	return deadline
}

// stamp begins a step: at is its instant when the device is timed;
// otherwise its first event reads the clock.
func (t *deviceThread) stamp(at time.Duration) {
	if t.exec.timed {
		t.log.stepAt(at)
	} else {
		t.log.step()
	}
}

// burst steps inv's program until it asks for more than to go on at once
// (a wait, a sleep, a poll, a retirement) or is stopped, and returns what
// its last step asked for. One memory operation is a step, so that
// simulated time can interleave the devices at each; in real time nothing
// comes between two steps of a device that go on at once, and stepping
// them back to back here keeps the run loop's work (its switch, its pacer,
// its checks) to once per wait instead of once per memory operation. A
// sleep of no time is going on at once. Every step of a burst begins at
// at, when the device is timed (run). A step whose memory operations cost
// time ends the burst too: owed is that time, which passes before what
// the step asks for.
func (t *deviceThread) burst(inv *invocation, at time.Duration) (n program.Next, owed time.Duration) {
	t.stamp(at)
	m := &inv.dev.meter
	for {
		m.begin()
		n = inv.prog.Step(&inv.env)
		if owed = m.settle(); owed > 0 || !n.GoesOn() || inv.stopped.Load() {
			return n, owed
		}
		if !t.exec.timed { // a timed burst is one instant
			t.log.step()
		}
	}
}

// stopped retires inv, which a reset stopped, with its reset error.
func (t *deviceThread) stopped(inv *invocation) {
	inv.tellStopped()
	t.retire(inv, errReset(inv))
}

// retire hands the program's events to the stream, then finishes its
// completion with err: the retirement follows every event of the program.
func (t *deviceThread) retire(inv *invocation, err error) {
	t.log.flush()
	inv.comp.finish(err)
}

// sleep lets d pass from at, the instant of the burst that asked for it,
// when the device is timed, or from now otherwise; false when the
// invocation was stopped.
func (t *deviceThread) sleep(inv *invocation, at, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	if !t.exec.timed {
		at = t.exec.now()
	}
	return t.sleepUntil(inv, deadline(at, d))
}

// Naps of a program that keeps polling without progress.
const (
	firstNap = 50 * time.Microsecond
	longNap  = time.Millisecond
)

// pacer paces a program that returns Poll: it polls by the policy's
// backoff for spinFor, then naps, each nap twice the last up to longNap, so
// that a device watching hardware which makes no progress (a kernel waiting
// for a decision the host has not made) does not take a processor. Under
// wait.Spin it never naps; under wait.Block it naps at once.
type pacer struct {
	burst backoff
	nap   time.Duration
}

// pace reports false when the invocation was stopped.
func (p *pacer) pace(t *deviceThread, inv *invocation) bool {
	if p.burst.budget == 0 {
		p.burst = t.exec.backoff(spinFor)
	}
	if p.burst.next() {
		return !inv.stopped.Load()
	}
	p.nap = min(max(2*p.nap, firstNap), longNap)
	return t.block(inv, p.nap)
}

// waitWord returns when the word changes (true) or the invocation is stopped (false).
func (t *deviceThread) waitWord(inv *invocation, v program.View, off int, old uint32) bool {
	if dv, ok := v.(*View); ok {
		v = dv.peek() // the executor's looks are no loads of the program's
	}
	b := t.exec.backoff(spinFor)
	for {
		if v.Load(off) != old {
			return true
		}
		if inv.stopped.Load() {
			return false
		}
		if !b.next() {
			break
		}
	}
	t.log.flush() // a blocked device's events wait for no one
	changed := func() bool { return v.Load(off) != old || inv.stopped.Load() }
	for !changed() {
		if t.parker.park(changed, nil, t.exec.quit) == quitting {
			inv.stopped.Store(true)
		}
	}
	return !inv.stopped.Load()
}

// sleepUntil waits for the clock to reach at: polling (and, under hybrid,
// yielding) for the last timerSlack, blocking on a timer before that; under
// wait.Block it blocks on the timer all the way, and may end up to a
// timerSlack late. It returns false when the invocation is stopped.
func (t *deviceThread) sleepUntil(inv *invocation, at time.Duration) bool {
	polls := 0
	for {
		if inv.stopped.Load() {
			return false
		}
		left := at - t.exec.now()
		if left <= 0 {
			return true
		}
		if nap := t.nap(left); nap > 0 {
			if !t.block(inv, nap) {
				return false
			}
			continue
		}
		if polls++; polls%pollsPerYield == 0 && t.exec.yields {
			runtime.Gosched()
		}
	}
}

// nap is how long sleepUntil blocks when left remains: all of it under
// wait.Block, otherwise all but the last timerSlack, and nothing once less
// than twice that remains (the rest is polled).
func (t *deviceThread) nap(left time.Duration) time.Duration {
	switch {
	case t.exec.policy == wait.Block:
		return left
	case left > 2*timerSlack:
		return left - timerSlack
	}
	return 0
}

// block sleeps until stopped or d passes; false when stopped. A change of
// memory unparks it too, which a sleeping or hung program does not care
// about: it parks again.
func (t *deviceThread) block(inv *invocation, d time.Duration) bool {
	t.log.flush()
	var timeout <-chan time.Time
	if d != forever {
		timer := time.NewTimer(d)
		defer timer.Stop()
		timeout = timer.C
	}
	for !inv.stopped.Load() {
		switch t.parker.park(inv.stopped.Load, timeout, t.exec.quit) {
		case timedOut:
			return true
		case quitting:
			inv.stopped.Store(true)
		}
	}
	return false
}
