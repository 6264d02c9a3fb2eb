package engine

// Tests of a session's waits against real time: contexts end them soon,
// whatever the exchange's size, and a Wait in one goroutine blocks neither
// State nor Close in another. Real-time deadlines here are generous; what is
// asserted is the order of things and their outcome.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// sessionLargeExchange runs every step at virtual time 0 with ideal timing
// and takes hours of real time to finish.
var sessionLargeExchange = exchangeConfig(1000000, 64, 1<<20, devices.AQL)

// sessionGenerous bounds, in real time, what must end soon after 50 ms
// rather than at its timeout of an hour: a minute, for a loaded two-core
// machine running the race detector.
const sessionGenerous = time.Minute

// A Wait and a Close of the large exchange in simulated time end soon after
// their 50 ms context, whatever their timeout; the Wait leaves the session
// unpoisoned, and the Close quarantines it.
func TestSessionWaitAndCloseEndWithTheirContext(t *testing.T) {
	f, _, s := newSimSession(t, sessionLargeExchange)
	start(t, s)
	for _, timeout := range []time.Duration{time.Millisecond, time.Hour} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		ok, err := s.WaitContext(ctx, timeout)
		took := time.Since(start)
		cancel()
		if ok || !errors.Is(err, context.DeadlineExceeded) || took > sessionGenerous {
			t.Fatalf("WaitContext(50 ms context, %v) = %v, %v after %v; want false and the context's error soon after 50 ms", timeout, ok, err, took)
		}
	}
	wantState(t, s, StateRunning)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if out := s.CloseWithin(ctx, time.Hour); out != Quarantined {
		t.Errorf("CloseWithin(50 ms context, 1h) = %v, want quarantined", out)
	}
	if took := time.Since(start); took > sessionGenerous {
		t.Errorf("CloseWithin(50 ms context, 1h) took %v", took)
	}
	resetBoth(t, f)
}

// While one goroutine's Wait joins, State answers at once and CloseWithin
// ends that Wait (with a Busy error, not poisoning the session), then joins
// for its own short timeout and quarantines: in real time with a hung GPU,
// and in simulated time with an exchange that runs for hours. (In simulated
// time the close's 10 ms are virtual, which that exchange never reaches, so
// a 50 ms context ends the close's own join.)
func TestSessionWaitBlocksNeitherStateNorClose(t *testing.T) {
	for _, mode := range []devices.Mode{devices.RealTime, devices.Simulated} {
		t.Run(mode.String(), func(t *testing.T) {
			f, _ := newFabric(t, devices.Config{Mode: mode})
			cfg := sessionLargeExchange
			if mode == devices.RealTime {
				cfg = exchange.Default()
				setFault(t, f, fault.GPURun, "hang")
			}
			s := newSession(t, f, cfg)
			start(t, s)
			type result struct {
				ok  bool
				err error
			}
			waited := make(chan result, 1)
			go func() {
				ok, err := s.Wait(time.Hour)
				waited <- result{ok, err}
			}()
			for countEvents(f, s.ID(), ev(oracle.EvWait)) == 0 {
				time.Sleep(time.Millisecond) // until the Wait is joining
			}
			start := time.Now()
			if st := s.State(); st != StateRunning {
				t.Errorf("State() during the Wait = %v, want running", st)
			}
			if took := time.Since(start); took > sessionGenerous {
				t.Errorf("State() took %v during another goroutine's Wait", took)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			if mode == devices.Simulated {
				ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
			}
			defer cancel()
			start = time.Now()
			out := s.CloseWithin(ctx, 10*time.Millisecond)
			took := time.Since(start)
			select {
			case r := <-waited:
				if r.ok || !errors.Is(r.err, failure.Busy) || !strings.Contains(r.err.Error(), "closed during the wait") {
					t.Errorf("the interrupted Wait = %v, %v; want false and a busy error saying the session was closed", r.ok, r.err)
				}
			case <-time.After(longWait):
				t.Error("the Wait did not return after the close that interrupted it")
			}
			if out != Quarantined || took > sessionGenerous {
				t.Errorf("CloseWithin(10ms) during a Wait = %v after %v, want quarantined soon", out, took)
			}
			if q := f.Quarantines(); len(q) != 1 || !strings.Contains(q[0].Label, "did not retire") {
				t.Errorf("quarantines %+v, want one because a participant did not retire (the interrupted Wait poisons nothing)", q)
			}
			resetBoth(t, f)
		})
	}
}

// A closed session's prepared program cannot be dispatched again: its memory
// was released with the close.
func TestClosedSessionsProgramIsRefused(t *testing.T) {
	f, _ := newFabric(t, devices.Config{Mode: devices.RealTime})
	s := newSession(t, f, exchange.Default())
	start(t, s)
	waitDone(t, s, sessionGenerous)
	closeAs(t, "Close", s, Retired)
	c, err := exchangeOf(s).GPU().Dispatch()
	if c != nil || !errors.Is(err, failure.Busy) || !strings.Contains(err.Error(), "released") {
		t.Errorf("Dispatch of a closed session's GPU program = %v, %v; want a busy error about the released buffer", c, err)
	}
}

// Two Waits from two goroutines take turns; the second, whose context ends
// while the first holds its turn, returns the context's error soon, and the
// first goes on until the session retires.
func TestSessionSecondWaitEndsWithItsContext(t *testing.T) {
	f, _, s := newSimSession(t, sessionLargeExchange)
	start(t, s)
	stopFirst, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := s.WaitContext(stopFirst, time.Hour)
		first <- err
	}()
	for countEvents(f, s.ID(), ev(oracle.EvWait)) == 0 {
		time.Sleep(time.Millisecond) // until the first Wait is joining
	}
	ctx, cancelSecond := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelSecond()
	start := time.Now()
	ok, err := s.WaitContext(ctx, time.Hour)
	if took := time.Since(start); ok || !errors.Is(err, context.DeadlineExceeded) || took > sessionGenerous {
		t.Errorf("the second WaitContext = %v, %v after %v; want false and the context's error soon after 50 ms", ok, err, took)
	}
	if countEvents(f, s.ID(), ev(oracle.EvWait)) != 1 {
		t.Error("the second Wait began a join while the first was joining")
	}
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Errorf("the first Wait ended with %v, want context.Canceled", err)
	}
	wantState(t, s, StateRunning)
	ctx, cancelClose := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelClose()
	if out := s.CloseWithin(ctx, time.Hour); out != Quarantined {
		t.Errorf("CloseWithin = %v, want quarantined", out)
	}
	resetBoth(t, f)
}

// hostEvents records the host's events of one session as they are
// emitted, however many device events pass through the ring meanwhile.
type hostEvents struct {
	mu  sync.Mutex
	evs []event.Event
}

func recordHostEvents(t *testing.T, f *devices.Fabric, session uint64) *hostEvents {
	r := &hostEvents{}
	t.Cleanup(f.Events().Subscribe(func(e *event.Event) {
		if e.Actor == event.HostActor && e.Session == session {
			r.mu.Lock()
			r.evs = append(r.evs, *e)
			r.mu.Unlock()
		}
	}))
	return r
}

// list is what was recorded so far.
func (r *hostEvents) list() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

// count is how many recorded events match m.
func (r *hostEvents) count(m match) int {
	n := 0
	for _, e := range r.list() {
		if m.matches(e) {
			n++
		}
	}
	return n
}

// await waits, for as long as longWait, until an event matching m is
// recorded, and reports whether one was.
func (r *hostEvents) await(m match) bool {
	for deadline := time.Now().Add(longWait); r.count(m) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// mustAwait is await that fails the test when no such event comes.
func (r *hostEvents) mustAwait(t *testing.T, m match) {
	t.Helper()
	if !r.await(m) {
		t.Fatalf("no event %v within %v: %v", m, longWait, r.list())
	}
}

// A Close during another goroutine's Wait ends that Wait's joins (each
// join event says the session is closing) and only then takes the join
// for its own timeout: the Wait's wait.end comes before close.begin and
// the close's own wait. So whether the Wait's caller gave a context that
// can end or one that never does. (Simulated time, an exchange that runs
// for hours at virtual time 0: the close's own join is ended by its
// context once it has begun.)
func TestCloseEndsAWaitAndTakesTheJoin(t *testing.T) {
	for _, callerCanCancel := range []bool{false, true} {
		t.Run(map[bool]string{false: "background", true: "cancellable"}[callerCanCancel], func(t *testing.T) {
			f, _, s := newSimSession(t, sessionLargeExchange)
			start(t, s)
			rec := recordHostEvents(t, f, s.ID())
			waitCtx, cancelWait := context.WithCancel(context.Background())
			defer cancelWait()
			if !callerCanCancel {
				waitCtx = context.Background()
			}
			waited := make(chan error, 1)
			go func() {
				ok, err := s.WaitContext(waitCtx, time.Hour)
				if ok {
					err = errors.New("the Wait retired")
				}
				waited <- err
			}()
			rec.mustAwait(t, evA(oracle.EvWait, uint64(time.Hour)))
			closeCtx, stopClose := context.WithCancel(context.Background())
			go func() {
				if !rec.await(evA(oracle.EvWait, uint64(10*time.Millisecond))) {
					t.Error("the close's own join did not begin")
				}
				stopClose()
			}()
			out := s.CloseWithin(closeCtx, 10*time.Millisecond)
			if err := <-waited; !errors.Is(err, failure.Busy) || !strings.Contains(err.Error(), "closed during the wait") {
				t.Errorf("the Wait the close ended returned %v, want a busy error saying the session was closed", err)
			}
			if out != Quarantined {
				t.Errorf("CloseWithin = %v, want quarantined", out)
			}
			evs := rec.list()
			var kinds []string
			for _, e := range evs {
				kinds = append(kinds, string(e.Kind))
			}
			want := []string{string(oracle.EvWait), string(oracle.EvJoin), string(oracle.EvJoin), string(oracle.EvWaitEnd), string(oracle.EvCloseBegin), string(oracle.EvWait)}
			if len(kinds) < len(want) || !slices.Equal(kinds[:len(want)], want) {
				t.Fatalf("the session's host events are %v, want them to begin %v", kinds, want)
			}
			for _, e := range evs[1:3] {
				if oracle.JoinResult(e.B) != oracle.JoinCancelled || e.Detail != errClosing.Error() {
					t.Errorf("a join of the Wait the close ended: %d %q, want oracle.JoinCancelled (%d) %q", e.B, e.Detail, oracle.JoinCancelled, errClosing.Error())
				}
			}
			if evs[4].A != uint64(10*time.Millisecond) {
				t.Errorf("close.begin's timeout %v, want the close's 10ms", time.Duration(evs[4].A))
			}
			resetBoth(t, f)
		})
	}
}

// While a Close holds the join slot (joining for an hour of an exchange
// that runs for hours), a WaitContext whose context is then cancelled
// returns the context's error, before the close ends and without a join
// of its own; a Wait whose context never ends waits for the slot until
// the close ends, and then finds the session closed.
func TestWaitGivesUpOnTheJoinSlotACloseHolds(t *testing.T) {
	f, _, s := newSimSession(t, sessionLargeExchange)
	start(t, s)
	rec := recordHostEvents(t, f, s.ID())
	closeCtx, stopClose := context.WithCancel(context.Background())
	defer stopClose()
	closed := make(chan Outcome, 1)
	go func() { closed <- s.CloseWithin(closeCtx, time.Hour) }()
	rec.mustAwait(t, evA(oracle.EvWait, uint64(time.Hour))) // the close is joining

	type result struct {
		ok  bool
		err error
	}
	waitCtx, cancelWait := context.WithCancel(context.Background())
	gaveUp, background := make(chan result, 1), make(chan result, 1)
	go func() {
		ok, err := s.WaitContext(waitCtx, time.Hour)
		gaveUp <- result{ok, err}
	}()
	go func() {
		ok, err := s.Wait(time.Hour)
		background <- result{ok, err}
	}()
	time.Sleep(20 * time.Millisecond) // time to go wrong: both Waits must still wait
	select {
	case r := <-gaveUp:
		t.Fatalf("WaitContext returned %v, %v while the close held the join slot and its context was live", r.ok, r.err)
	case r := <-background:
		t.Fatalf("Wait returned %v, %v while the close held the join slot", r.ok, r.err)
	default:
	}
	cancelWait()
	select {
	case r := <-gaveUp:
		if r.ok || !errors.Is(r.err, context.Canceled) {
			t.Errorf("the cancelled WaitContext = %v, %v; want false and context.Canceled", r.ok, r.err)
		}
	case <-time.After(sessionGenerous):
		t.Fatal("the cancelled WaitContext did not return while the close held the join slot")
	}
	select {
	case out := <-closed:
		t.Fatalf("the close ended (%v) before the cancelled WaitContext returned; the test shows nothing", out)
	case r := <-background:
		t.Fatalf("Wait returned %v, %v while the close held the join slot", r.ok, r.err)
	default:
	}
	if n := rec.count(ev(oracle.EvWait)); n != 1 {
		t.Errorf("%d wait events, want the close's one: a Wait joined while the close held the slot", n)
	}
	stopClose()
	if out := <-closed; out != Quarantined {
		t.Errorf("CloseWithin = %v, want quarantined", out)
	}
	select {
	case r := <-background:
		if r.ok || !errors.Is(r.err, failure.Busy) || !strings.Contains(r.err.Error(), "is closed") {
			t.Errorf("the Wait that waited out the close = %v, %v; want false and a busy error saying the session is closed", r.ok, r.err)
		}
	case <-time.After(longWait):
		t.Fatal("the Wait did not return after the close")
	}
	resetBoth(t, f)
}
