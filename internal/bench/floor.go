package bench

import (
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"
	"golang.org/x/sys/unix"
)

// RawRoundTrip measures the physical floor of a protocol in which each side
// writes its own word, as every word of the startup line and the exchange's
// slots has one writer: a word bounced between two locked OS threads
// spinning on atomics, each thread's word on a pair of cache lines of its
// own (as the GPU floor's are, docs/cuda.md), rounds times. It returns the
// mean round trip.
func RawRoundTrip(rounds int) time.Duration {
	d, _ := rawRoundTrip(rounds, false)
	return d
}

// RawRoundTripOneLine is RawRoundTrip with both words on one cache line: a
// single line goes back and forth, where two lines each go and come back in
// RawRoundTrip. No protocol whose words each have one writer moves that
// little; the table reports it beside the floor (docs/performance.md).
func RawRoundTripOneLine(rounds int) time.Duration {
	d, _ := rawRoundTrip(rounds, true)
	return d
}

// pingPong holds the words of a round trip: ping and pong 128 bytes apart
// (the adjacent-line prefetcher fetches lines in pairs), pingMate on ping's
// line.
type pingPong struct {
	_        cpu.CacheLinePad
	ping     atomic.Uint32
	pingMate atomic.Uint32
	_        [2]cpu.CacheLinePad
	pong     atomic.Uint32
	_        cpu.CacheLinePad
}

// rawRoundTrip bounces the words between two threads made for this call.
// Each side locks its goroutine to a thread and ends without unlocking it,
// which ends the thread too, so that every call draws a new pair of threads
// for the system to place. On a virtual machine two virtual CPUs may be one
// physical core's two hardware threads, sharing its caches: a pair placed
// there bounces the words several times faster than two cores can (0.06
// against 0.36 µs on the 16-core host), and with threads kept from call to
// call, one such pair set the floor of every repeat of a run, and every
// ratio of the run came out ten times too high. With a pair per call, the
// table's median over its repeats is the floor between two cores. It
// returns the mean round trip and the two threads' ids.
func rawRoundTrip(rounds int, oneLine bool) (time.Duration, [2]int) {
	w := new(pingPong)
	ping, pong := &w.ping, &w.pong
	if oneLine {
		pong = &w.pingMate
	}
	var threads [2]int
	elapsed := make(chan time.Duration, 1)
	answered := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		threads[1] = unix.Gettid()
		defer close(answered)
		for i := uint32(1); i <= uint32(rounds); i++ {
			for ping.Load() != i {
			}
			pong.Store(i)
		}
	}()
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		threads[0] = unix.Gettid()
		start := time.Now()
		for i := uint32(1); i <= uint32(rounds); i++ {
			ping.Store(i)
			for pong.Load() != i {
			}
		}
		elapsed <- time.Since(start)
	}()
	d := <-elapsed
	<-answered
	return d / time.Duration(rounds), threads
}
