package bench

import (
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"
)

// RawRoundTrip measures the physical floor of a protocol in which each side
// writes its own word, as every word of the startup line and the exchange's
// slots has one writer: a word bounced between two locked OS threads
// spinning on atomics, each thread's word on a pair of cache lines of its
// own (as the GPU floor's are, docs/cuda.md), rounds times. It returns the
// mean round trip.
func RawRoundTrip(rounds int) time.Duration { return rawRoundTrip(rounds, false) }

// RawRoundTripOneLine is RawRoundTrip with both words on one cache line: a
// single line goes back and forth, where two lines each go and come back in
// RawRoundTrip. No protocol whose words each have one writer moves that
// little; the table reports it beside the floor (docs/performance.md).
func RawRoundTripOneLine(rounds int) time.Duration { return rawRoundTrip(rounds, true) }

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

func rawRoundTrip(rounds int, oneLine bool) time.Duration {
	w := new(pingPong)
	ping, pong := &w.ping, &w.pong
	if oneLine {
		pong = &w.pingMate
	}
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := uint32(1); i <= uint32(rounds); i++ {
			for ping.Load() != i {
			}
			pong.Store(i)
		}
		close(done)
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	for i := uint32(1); i <= uint32(rounds); i++ {
		ping.Store(i)
		for pong.Load() != i {
		}
	}
	elapsed := time.Since(start)
	<-done
	return elapsed / time.Duration(rounds)
}
