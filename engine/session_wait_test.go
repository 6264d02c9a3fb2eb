package engine

// Tests of a session's waits against real time: contexts end them soon,
// whatever the exchange's size, and a Wait in one goroutine blocks neither
// State nor Close in another. Real-time deadlines here are generous; what is
// asserted is the order of things and their outcome.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/devices/fault"
)

// sessionLargeExchange runs every step at virtual time 0 with ideal timing
// and takes hours of real time to finish.
var sessionLargeExchange = exchangeConfig(1000000, 64, 1<<20, devices.AQL)

// sessionGenerous bounds, in real time, what must end soon after 50 ms.
const sessionGenerous = 5 * time.Second

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
			for countEvents(f, s.ID(), ev(EvWait)) == 0 {
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
				if r.ok || !errors.Is(r.err, devices.KindBusy) || !strings.Contains(r.err.Error(), "closed during the wait") {
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
	if c != nil || !errors.Is(err, devices.KindBusy) || !strings.Contains(err.Error(), "released") {
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
	for countEvents(f, s.ID(), ev(EvWait)) == 0 {
		time.Sleep(time.Millisecond) // until the first Wait is joining
	}
	ctx, cancelSecond := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelSecond()
	start := time.Now()
	ok, err := s.WaitContext(ctx, time.Hour)
	if took := time.Since(start); ok || !errors.Is(err, context.DeadlineExceeded) || took > sessionGenerous {
		t.Errorf("the second WaitContext = %v, %v after %v; want false and the context's error soon after 50 ms", ok, err, took)
	}
	if countEvents(f, s.ID(), ev(EvWait)) != 1 {
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
