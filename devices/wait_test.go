package devices

// Tests of how a completion wait relates to real time and to the end of
// simulated time, and of durations that would overflow.

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/wait"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// waitFor is c.WaitContext with a context that never ends.
func (c *Completion) waitFor(timeout time.Duration) (bool, error) {
	return c.WaitContext(context.Background(), timeout)
}

// endless dispatches, on d's AQL or XDNA family, a program that steps
// forever at one instant, emitting an event per step, and returns its
// completion: a wait on it ends only by its timeout or its context.
func endless(t *testing.T, d *Device) *Completion {
	t.Helper()
	c := AQL
	if d.Kind() == NPU {
		c = XDNA
	}
	return mmDispatch(t, mmPrepare(t, d, c, &mmProgram{step: func(env program.Env) program.Next {
		env.Emit(event.EvHostStore, 0, "")
		return program.Continue()
	}}, 1))
}

// hung dispatches on d's AQL family a program that never retires by itself.
func hung(t testing.TB, d *Device) *Completion {
	t.Helper()
	return mmDispatch(t, mmPrepare(t, d, AQL, &mmProgram{step: func(program.Env) program.Next { return program.Hang() }}, 1))
}

// generous bounds how long a wait that a context ends may take in real time
// on a loaded machine; the context itself ends after 50 ms.
const generous = 5 * time.Second

// waitFor runs c.WaitContext under a context that ends after 50 ms and
// returns what it returned and how long it took.
func waitFor(c *Completion, timeout time.Duration) (ok bool, took time.Duration, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	ok, err = c.WaitContext(ctx, timeout)
	return ok, time.Since(start), err
}

// A simulated wait whose steps all fall at one instant ends soon after its
// context does, whatever virtual time it had left: the executor checks the
// context between steps.
func TestSimulatedWaitEndsWithItsContext(t *testing.T) {
	f := mmFabric(t, Config{})
	gpu := endless(t, f.First(GPU))
	for _, timeout := range []time.Duration{time.Millisecond, time.Hour, forever} {
		ok, took, err := waitFor(gpu, timeout)
		if ok || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitContext(%v) = %v, %v; want false and the context's error", timeout, ok, err)
		}
		if took > generous {
			t.Errorf("WaitContext(%v) took %v after a 50 ms context, want it to end soon after the context", timeout, took)
		}
	}
	if now := f.Now(); now != 0 {
		t.Errorf("the clock is at %v; every step of the endless program is at 0", now)
	}
}

// A goroutine waiting for the simulated executor, which another goroutine's
// wait holds, gives up when its own context ends.
func TestSimulatedWaitForTheExecutorEndsWithItsContext(t *testing.T) {
	f := mmFabric(t, Config{})
	gpu, npu := endless(t, f.First(GPU)), endless(t, f.First(NPU))
	stopFirst, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := gpu.WaitContext(stopFirst, forever)
		first <- err
	}()
	for f.Now() == 0 && f.Events().Count() < 100 { // the first wait is stepping
		time.Sleep(time.Millisecond)
	}
	ok, took, err := waitFor(npu, time.Hour)
	if ok || !errors.Is(err, context.DeadlineExceeded) || took > generous {
		t.Errorf("second WaitContext = %v, %v after %v; want false and the context's error soon after 50 ms", ok, err, took)
	}
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Errorf("first WaitContext ended with %v, want context.Canceled", err)
	}
}

// A real-time wait ends when its context does, long before its timeout; a
// completion that came first wins over a context that ended; under every
// wait policy (a spinning host checks its context between bursts of polls).
func TestRealTimeWaitEndsWithItsContext(t *testing.T) {
	for _, w := range wait.Policies() {
		t.Run(w.String(), func(t *testing.T) { testWaitEndsWithContext(t, w) })
	}
}

func testWaitEndsWithContext(t *testing.T, w wait.Policy) {
	f := mmFabric(t, Config{Mode: RealTime, Wait: w})
	gpu := f.First(GPU)
	gdone := hung(t, gpu)
	ok, took, err := waitFor(gdone, time.Hour)
	if ok || !errors.Is(err, context.DeadlineExceeded) || took > generous {
		t.Errorf("WaitContext on a hung GPU = %v, %v after %v; want false and the context's error soon after 50 ms", ok, err, took)
	}
	gpu.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ok, err := gdone.WaitContext(ctx, time.Hour); !ok || err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("WaitContext of a reset invocation under an ended context = %v, %v; want true and the reset error", ok, err)
	}
}

// Simulated time ends at simEnd: a wait for "ever" on a program that will
// never retire stops the clock there, not at forever, so later dispatches
// and waits still have instants to use.
func TestSimulatedClockNeverReachesForever(t *testing.T) {
	f, gpu, _, b := mmShared(t, Config{}, 64)
	var seen atomic.Uint32
	c := mmDispatch(t, mmPrepare(t, gpu, AQL, mmWaitNonZero(mmView(t, b, gpu, AQL), 0, &seen), 1, b))
	if ok, err := c.waitFor(forever); ok || err != nil {
		t.Fatalf("Wait(forever) on a program nobody wakes = %v, %v; want false, nil", ok, err)
	}
	if now := f.Now(); now != simEnd {
		t.Fatalf("after Wait(forever) the clock is at %v, want the end of simulated time %v", now, simEnd)
	}
	b.storeWord(0, 7)
	if ok, err := c.waitFor(time.Second); !ok || err != nil || seen.Load() != 7 {
		t.Errorf("after the store, Wait = %v, %v (saw %d); want the program to retire at the end of time", ok, err, seen.Load())
	}
	f.Advance(forever)
	if now := f.Now(); now != simEnd {
		t.Errorf("after Advance(forever) the clock is at %v, want %v", now, simEnd)
	}
}

// A dispatch latency plus a dispatch fault's delay that overflow
// time.Duration saturate: the program does not start at once.
func TestDispatchDelaysThatOverflowSaturate(t *testing.T) {
	f, gpu, _, b := mmShared(t, Config{Timing: program.Timing{AQLDispatch: forever - time.Minute}}, 64)
	if err := f.Faults().Set(fault.GPUDispatch, "delay(1h)"); err != nil {
		t.Fatal(err)
	}
	var seen atomic.Uint32
	b.storeWord(0, 1) // the program would retire at its first step
	c := mmDispatch(t, mmPrepare(t, gpu, AQL, mmWaitNonZero(mmView(t, b, gpu, AQL), 0, &seen), 1, b))
	if ok, _ := c.waitFor(24 * time.Hour); ok {
		t.Error("a program whose dispatch latency is about 292 years retired within a day")
	}
	if starts := f.Events().Events(func(e *event.Event) bool { return e.Kind == event.EvStart }); len(starts) != 0 {
		t.Errorf("the program started at %v; its start lies past the end of time", starts[0].Time)
	}
}

// Saturating arithmetic on durations.
func TestDurationArithmeticSaturates(t *testing.T) {
	for _, tc := range []struct{ got, want time.Duration }{
		{addDurations(time.Second, time.Second), 2 * time.Second},
		{addDurations(forever-time.Second, time.Hour), forever},
		{deadline(time.Hour, forever-time.Minute), forever},
	} {
		if tc.got != tc.want {
			t.Errorf("got %v, want %v", tc.got, tc.want)
		}
	}
}

// A negative timing figure is refused when the fabric is made.
func TestNegativeTimingIsRefused(t *testing.T) {
	_, err := NewFabric(Config{Mode: Simulated, Timing: program.Timing{NPUDMALine: -time.Microsecond}})
	mmKind(t, "NewFabric with a negative figure", err, failure.Invalid)
	if want := "invalid: timing: figure npu_dma_line is -1µs; give zero or more"; err.Error() != want {
		t.Errorf("error %q does not say %q", err, want)
	}
}
