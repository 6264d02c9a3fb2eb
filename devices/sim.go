package devices

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/residentlua/residentlua/devices/choice"
	"github.com/residentlua/residentlua/devices/event"

	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/internal/slot"
)

// simExecutor runs every device step on the calling goroutine against a
// virtual clock. When several programs can step at the same instant, its
// chooser picks the order: by default a generator seeded from the fabric's
// seed, so a seed and a sequence of host operations always give the same
// events.
type simExecutor struct {
	fabric  *Fabric
	mu      slot.Slot // serialises runs: one goroutine steps devices at a time
	clock   atomic.Int64
	pcg     rand.PCG
	rng     rand.Rand      // draws from pcg
	chooser choice.Chooser // every decision (Config.Chooser); nil: the seed decides
	active  []*invocation
	ready   []*invocation // scratch

	// What only an explicit chooser brings about: host releases in flight
	// (choice.Landing), how many (read without mu), the program that
	// stepped last (for preemptions), and the run in progress (its
	// deadline and the completion it waits for), for Fabric.HashState.
	landings []*Publication
	inFlight atomic.Int32
	last     *invocation
	running  bool
	runUntil time.Duration
	awaited  *Completion

	plain plainWords // the plain stores no release store published yet (rule 8)
}

// init readies the executor, new or of a renewed fabric, for f at time
// zero with nothing to run, its order of steps decided by ch, or drawn
// from seed when ch is nil.
func (s *simExecutor) init(f *Fabric, seed uint64, ch choice.Chooser) {
	if s.mu == nil {
		s.mu = slot.New() // a new fabric's: no other goroutine knows it yet
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fabric = f
	s.clock.Store(0)
	s.pcg.Seed(seed, 0x5eed5c4ed)
	s.rng = *rand.New(&s.pcg)
	s.chooser = ch
	clear(s.active[:cap(s.active)]) // what they held beyond their length too
	clear(s.ready[:cap(s.ready)])
	clear(s.landings[:cap(s.landings)])
	s.active, s.ready, s.landings = s.active[:0], s.ready[:0], s.landings[:0]
	s.plain.reset()
	s.inFlight.Store(0)
	s.last, s.running, s.runUntil, s.awaited = nil, false, 0, nil
}

func (s *simExecutor) now() time.Duration { return time.Duration(s.clock.Load()) }

func (s *simExecutor) launch(inv *invocation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inv.wakeAt = inv.startAt
	inv.next = program.Sleep(0)
	s.active = append(s.active, inv)
}

func (s *simExecutor) changed() {}

func (s *simExecutor) wait(ctx context.Context, c *Completion, timeout time.Duration) (bool, error) {
	if err := s.mu.LockContext(ctx); err != nil { // another goroutine's simulated wait may hold it for long
		return c.done.Load(), err
	}
	defer s.mu.Unlock()
	defer s.landAll()
	return s.run(ctx, s.until(timeout), c)
}

func (s *simExecutor) advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.landAll()
	_, _ = s.run(context.Background(), s.until(d), nil) // a background context never ends a run
}

// until is the instant a run of d from now stops at: simEnd at the latest.
func (s *simExecutor) until(d time.Duration) time.Duration {
	return min(deadline(s.now(), d), simEnd)
}

func (s *simExecutor) stop(inv *invocation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inv.stopped.Store(true)
	s.remove(inv)
	inv.tellStopped()
	inv.comp.finish(errReset(inv))
}

func (s *simExecutor) close() {}

func (s *simExecutor) remove(inv *invocation) {
	for i, x := range s.active {
		if x == inv {
			s.active = append(s.active[:i], s.active[i+1:]...)
			return
		}
	}
}

// run steps programs until c completes (when c is not nil), until the clock
// reaches until, or until ctx ends, which it checks before every step. It
// reports whether c completed, and ctx's error when ctx ended the run.
func (s *simExecutor) run(ctx context.Context, until time.Duration, c *Completion) (bool, error) {
	s.running, s.runUntil, s.awaited = true, until, c
	defer func() { s.running, s.awaited = false, nil }()
	for {
		if c != nil && c.done.Load() {
			return true, nil
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		now := s.now()
		s.ready = s.ready[:0]
		next := forever
		for _, inv := range s.active {
			switch inv.next.Kind() {
			case program.NextContinue:
				s.ready = append(s.ready, inv)
			case program.NextWaitWord:
				// A wait begins once the step before it was paid for.
				if inv.wakeAt > now {
					next = min(next, inv.wakeAt)
				} else if v, off, old := inv.next.Word(); s.wakes(v, off, old, inv.dev) {
					s.ready = append(s.ready, inv)
				}
			case program.NextSleep, program.NextRetire:
				if inv.wakeAt <= now {
					s.ready = append(s.ready, inv)
				} else if inv.wakeAt < next {
					next = inv.wakeAt
				}
			}
		}
		if len(s.ready) == 0 && len(s.landings) > 0 {
			s.landAll() // releases in flight land before time passes
			continue
		}
		if len(s.ready) == 0 {
			if next > until || next == forever {
				if until > now {
					s.clock.Store(int64(until))
				}
				return c != nil && c.done.Load(), nil
			}
			s.clock.Store(int64(next))
			continue
		}
		if c != nil && now == until && until < simEnd &&
			s.chooser != nil && ask(s.chooser, 2, &alternatives{kind: choice.Deadline, ready: s.ready}) == 1 {
			return false, nil // the deadline passed before the steps of its instant
		}
		inv := s.ready[0]
		if n := len(s.ready) + len(s.landings); n > 1 {
			var i int
			if s.chooser == nil {
				i = s.rng.IntN(n) // the seed's step order
			} else {
				i = ask(s.chooser, n, &alternatives{kind: choice.Step, ready: s.ready, landings: s.landings, last: s.last})
			}
			if i >= len(s.ready) {
				s.land(i - len(s.ready))
				continue
			}
			inv = s.ready[i]
		}
		s.last = inv
		s.step(inv)
	}
}

// deferLanding puts a host release in flight: it lands at a step choice, or
// before time passes, or before the host goes on (mu not held: a host
// operation calls it).
func (s *simExecutor) deferLanding(p *Publication) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.landings = append(s.landings, p)
	s.inFlight.Add(1)
}

// land lands the i-th release in flight (mu held).
func (s *simExecutor) land(i int) {
	p := s.landings[i]
	s.landings = append(s.landings[:i], s.landings[i+1:]...)
	s.inFlight.Add(-1)
	p.land()
}

// landAll lands every release in flight, in order (mu held).
func (s *simExecutor) landAll() {
	for len(s.landings) > 0 {
		s.land(0)
	}
}

// landPending lands the releases in flight before a host operation that
// must come after them (mu not held; free when none is in flight, which is
// always so under the seeded chooser).
func (s *simExecutor) landPending() {
	if s.inFlight.Load() == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.landAll()
}

// wakes reports whether a program of dev waiting for the word at off of v
// to change from old is woken: the word changed, and not by a plain store
// of another program that no release store published yet, which on the
// hardware rings no doorbell (rule 8).
func (s *simExecutor) wakes(v program.View, off int, old uint32, dev *Device) bool {
	dv, ok := v.(*View)
	if !ok {
		return v.Load(off) != old
	}
	return dv.load(off, false) != old && (s.plain.n == 0 || !s.plain.hidden(dv.buffer, off, dev))
}

func (s *simExecutor) step(inv *invocation) {
	if inv.next.Kind() == program.NextRetire {
		if s.plain.n != 0 {
			s.plain.publish(inv.dev) // a completion is a release
		}
		s.remove(inv)
		inv.comp.finish(inv.next.Err())
		return
	}
	if !inv.started {
		inv.started = true
		inv.env.Emit(event.EvStart, 0, "")
	}
	inv.dev.meter.begin()
	inv.next = inv.prog.Step(&inv.env)
	// What the step's memory operations cost passes before what it asks
	// for next: its sleep, its wait, its retirement.
	from := deadline(s.now(), inv.dev.meter.settle())
	if inv.next.Kind() == program.NextPoll {
		inv.next = program.Sleep(time.Microsecond)
	}
	switch inv.next.Kind() {
	case program.NextContinue:
		if from > s.now() {
			inv.next = program.Sleep(from - s.now())
		}
		inv.wakeAt = from
	case program.NextWaitWord:
		inv.wakeAt = from
	case program.NextSleep:
		inv.wakeAt = deadline(from, inv.next.Duration())
	case program.NextRetire:
		inv.wakeAt = deadline(from, inv.dev.fabric.timing.Completion)
	}
}
