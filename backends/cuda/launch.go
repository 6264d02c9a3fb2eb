package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"time"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/memory"
)

// launch starts fn with one thread, its parameter list at off of the
// control region (on the thread, execution context current).
func (g *GPU) launch(fn uintptr, list int) error {
	return g.drv.call("cuLaunchKernel", fn, 1, 1, 1, 1, 1, 1, 0, g.exec.stream, g.control.Addr(list), 0)
}

// errBusy is a launch refused because a kernel still runs.
var errBusy = errors.New("a kernel still runs")

// checkIdle refuses a launch while the last kernel launched still runs
// (g.mu held, in onCaller). A kernel that reported its end in the status
// block is leaving: a launch queues behind it on the stream, for the
// microsecond it takes to return, so the driver is asked only about one
// that did not.
func (g *GPU) checkIdle() error {
	if !g.exec.launched || g.control.Load(statusDone) != 0 {
		return nil
	}
	if g.drv.status("cuStreamQuery", g.exec.stream) == cudaErrNotReady {
		return errBusy
	}
	return nil
}

// dispatchError is the error of a launch that failed in onCaller.
func (g *GPU) dispatchError(err error) error {
	if errors.Is(err, errBusy) {
		return failure.Errorf(failure.Busy, "dispatch", "a kernel still runs on %s; reset the device", g.name)
	}
	return failure.Errorf(failure.Device, "dispatch", "%w", err)
}

// streamStatus asks the driver about the execution context's stream, with
// that context current: CUDA_SUCCESS when its kernels are done, NOT_READY
// while one runs, another code when one failed (g.mu held). Without an
// execution context (a reset failed half-way) nothing runs.
func (g *GPU) streamStatus() uintptr {
	if g.exec.ctx == 0 {
		return cudaSuccess
	}
	var r uintptr
	err := g.onCaller(func() error {
		r = g.drv.status("cuStreamQuery", g.exec.stream)
		return nil
	})
	if re := (*resultError)(nil); errors.As(err, &re) {
		return re.code
	}
	return r
}

// lockedStreamStatus is streamStatus for a caller that does not hold g.mu.
func (g *GPU) lockedStreamStatus() uintptr {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.streamStatus()
}

// fabricTime converts a %globaltimer reading to the fabric's clock.
func (g *GPU) fabricTime(gt uint64) time.Duration {
	return time.Duration(int64(gt) - g.clockOffset.Load())
}

// Attach aligns %globaltimer with the fabric's clock (align), and keeps
// the clock to align them again as they drift apart.
func (g *GPU) Attach(clock func() time.Duration) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.clock = clock
	return g.align(calibrationRounds)
}

// align bounces the ping word off ping_pong_clock rounds times and sets
// the kernel clock's offset from the fabric's (alignmentOffset), g.mu held.
// The two clocks drift apart by microseconds within seconds, so a kernel's
// launch (userModule.Launch) aligns them again when realignEvery has passed.
func (g *GPU) align(rounds int) error {
	trips, err := g.pingPong(rounds, g.clock, true)
	if err != nil {
		return err
	}
	g.clockOffset.Store(alignmentOffset(trips))
	g.alignedAt = trips[len(trips)-1].end
	return nil
}

// alignmentOffset is the kernel clock minus the host's, from round trips
// whose kernel read its clock on the way: the median, over the fastest
// quarter of the trips, of the kernel's reading minus the midpoint of the
// host's two. The fastest trips are the least delayed by anything but the
// wire; the median over many of them cancels the kernel clock's coarse tick
// (%globaltimer advances in steps of up to a microsecond on some GPUs),
// which a single fastest trip would leave in every later reading.
func alignmentOffset(trips []trip) int64 {
	fast := append([]trip(nil), trips...)
	sort.Slice(fast, func(i, j int) bool { return fast[i].end-fast[i].start < fast[j].end-fast[j].start })
	fast = fast[:max(1, len(fast)/4)]
	offsets := make([]int64, len(fast))
	for i, t := range fast {
		offsets[i] = int64(t.kernelClock) - int64((t.start+t.end)/2)
	}
	slices.Sort(offsets)
	return offsets[len(offsets)/2]
}

// trip is one host ↔ kernel round trip: host times around it and the
// kernel's clock when it answered.
type trip struct {
	start, end  time.Duration
	kernelClock uint64
}

// RoundTrips runs ping_pong, the minimal kernel (one acquire poll and one
// release store per round, nothing else), for rounds round trips through
// mapped memory with the host spinning on a locked thread, and returns each
// one's duration sorted: the floor under any host ↔ kernel exchange.
func (g *GPU) RoundTrips(rounds int) ([]time.Duration, error) {
	return g.roundTrips(rounds, false)
}

// ClockedRoundTrips is RoundTrips with ping_pong_clock, which also writes
// its clock before each answer: what a kernel's timestamp adds to a round
// trip.
func (g *GPU) ClockedRoundTrips(rounds int) ([]time.Duration, error) {
	return g.roundTrips(rounds, true)
}

// EmptyLaunches launches ping_pong with no rounds, a kernel that returns at
// once, n times, each from the call to the driver until the driver reports
// the stream idle, polling it from the caller's thread as a session's
// launch does, and returns each launch's duration sorted: the floor of a
// kernel launch with its completion.
func (g *GPU) EmptyLaunches(n int) ([]time.Duration, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, failure.Errorf(failure.Busy, "cuda", "the CUDA backend is closed")
	}
	if n < 1 {
		return nil, failure.Errorf(failure.Invalid, "cuda", "launches must be at least 1, got %d", n)
	}
	out := make([]time.Duration, n)
	err := g.onCaller(func() error {
		c := g.control
		c.Store(pingArgRounds, 0)
		for i := range out {
			start := time.Now()
			if err := g.launch(g.exec.ping, ctlPingList); err != nil {
				return err
			}
			for {
				r := g.drv.status("cuStreamQuery", g.exec.stream)
				if r == cudaSuccess {
					break
				}
				if r != cudaErrNotReady {
					return result("cuStreamQuery", r)
				}
				if time.Since(start) > kernelAnswerTimeout {
					return fmt.Errorf("an empty kernel did not complete within %v", kernelAnswerTimeout)
				}
			}
			out[i] = time.Since(start)
		}
		return nil
	})
	if err != nil {
		return nil, failure.Errorf(failure.Device, "cuda", "launching an empty kernel: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

func (g *GPU) roundTrips(rounds int, withClock bool) ([]time.Duration, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	runtime.LockOSThread() // as a C host thread would: no migration mid-trip
	defer runtime.UnlockOSThread()
	epoch := time.Now()
	trips, err := g.pingPong(rounds, func() time.Duration { return time.Since(epoch) }, withClock)
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, len(trips))
	for i, t := range trips {
		out[i] = t.end - t.start
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// pingPong launches ping_pong, or ping_pong_clock when withClock, and
// bounces rounds pings off it (g.mu held).
func (g *GPU) pingPong(rounds int, clock func() time.Duration, withClock bool) ([]trip, error) {
	if g.closed {
		return nil, failure.Errorf(failure.Busy, "cuda", "the CUDA backend is closed")
	}
	if rounds < 1 || rounds >= pingStop {
		return nil, failure.Errorf(failure.Invalid, "cuda", "round trips must be from 1 to %d, got %d", pingStop-1, rounds)
	}
	c := g.control
	err := g.thread.do(func() error {
		if err := g.drv.call("cuCtxSetCurrent", g.exec.ctx); err != nil {
			return err
		}
		c.Store(ctlPing, 0)
		c.Store(ctlPong, 0)
		c.Store64(pingArgPing, uint64(g.exec.controlDevice+ctlPing))
		c.Store64(pingArgPong, uint64(g.exec.controlDevice+ctlPong))
		c.Store64(pingArgClock, uint64(g.exec.controlDevice+ctlClock))
		c.Store(pingArgRounds, uint32(rounds))
		fn := g.exec.ping
		if withClock {
			fn = g.exec.pingClock
		}
		return g.launch(fn, ctlPingList)
	})
	if err != nil {
		return nil, failure.Errorf(failure.Device, "cuda", "launching ping_pong: %w", err)
	}
	trips := make([]trip, rounds)
	for i := range trips {
		t := &trips[i]
		t.start = clock()
		c.Store(ctlPing, uint32(i+1))
		if !spinUntil(c, ctlPong, uint32(i+1), kernelAnswerTimeout) {
			c.Store(ctlPing, pingStop)
			return nil, failure.Errorf(failure.Device, "cuda", "ping_pong did not answer round trip %d within %v", i+1, kernelAnswerTimeout)
		}
		t.end = clock()
		t.kernelClock = c.Load64(ctlClock)
	}
	return trips, g.waitIdle(kernelAnswerTimeout)
}

// spinUntil spins until the word at off holds want, or timeout passes.
func spinUntil(r *memory.Region, off int, want uint32, timeout time.Duration) bool {
	start := time.Now()
	for i := 0; ; i++ {
		if r.Load(off) == want {
			return true
		}
		if i&1023 == 1023 && time.Since(start) > timeout {
			return false
		}
	}
}

// spinUntilNonZero64 spins until the 8-byte word at off is not zero, or
// timeout passes.
func spinUntilNonZero64(r *memory.Region, off int, timeout time.Duration) bool {
	start := time.Now()
	for i := 0; ; i++ {
		if r.Load64(off) != 0 {
			return true
		}
		if i&1023 == 1023 && time.Since(start) > timeout {
			return false
		}
	}
}

// waitIdle waits until the stream has finished its kernels (g.mu held).
func (g *GPU) waitIdle(timeout time.Duration) error {
	start := time.Now()
	for {
		r := g.streamStatus()
		switch {
		case r == cudaSuccess:
			return nil
		case r != cudaErrNotReady:
			return failure.Errorf(failure.Device, "cuda", "%v", result("the stream", r))
		case time.Since(start) > timeout:
			return failure.Errorf(failure.Device, "cuda", "a kernel did not finish within %v", timeout)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// Reset asks a running kernel to leave, gives it stopTimeout to do so, then
// destroys the execution context (which ends whatever still runs) and makes
// a new one. Pinned memory lives in the memory context and stays valid.
func (g *GPU) Reset() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	return g.teardown()
}

// teardown asks a running kernel to leave, gives it stopTimeout to do so,
// then destroys the execution context, which ends whatever still runs, and
// makes a new one (g.mu held). After a teardown that failed half-way (no
// execution context), it only makes the new one.
func (g *GPU) teardown() error {
	g.control.Store(ctlStop, 1)
	g.control.Store(ctlPing, pingStop)
	stopErr := g.waitIdle(stopTimeout)
	err := g.thread.do(func() error {
		if g.exec.ctx != 0 {
			if err := g.drv.call("cuCtxDestroy_v2", g.exec.ctx); err != nil {
				return fmt.Errorf("destroying the execution context: %w", err)
			}
			g.exec = execution{}
		}
		return g.startExecution()
	})
	if err != nil {
		return failure.Errorf(failure.Device, "reset", "%s could not be reset: %w (the kernel was asked to stop: %v)", g.name, err, stopErr)
	}
	return nil
}

// Close destroys the execution context and, when no pinned memory is lent
// out any more, the memory context. Otherwise lent memory stays valid, and
// the memory context and the thread that frees it stay until the process
// ends.
func (g *GPU) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	g.control.Store(ctlStop, 1)
	g.control.Store(ctlPing, pingStop)
	_ = g.waitIdle(stopTimeout)
	modules := g.modules
	g.modules = nil
	g.mu.Unlock()
	out, releaseErr := g.pinned.Release()
	err := g.thread.do(func() error {
		errs := []error{releaseErr, g.drv.call("cuCtxDestroy_v2", g.exec.ctx)}
		if out == 0 {
			errs = append(errs, g.drv.call("cuCtxDestroy_v2", g.memCtx))
		}
		return errors.Join(errs...)
	})
	if out == 0 {
		g.thread.stop()
		_ = g.scratch.Unmap()
		_ = g.image.Unmap()
	}
	for _, ms := range modules { // the driver read the images as it loaded them, and nothing loads now
		for _, m := range ms {
			_ = m.image.Unmap()
		}
	}
	return err
}
