package bench

import (
	"runtime"
	"sync/atomic"
	"time"
)

// RawRoundTrip measures the physical floor: a word bounced between two
// locked OS threads spinning on atomics, rounds times. It returns the mean
// round trip.
func RawRoundTrip(rounds int) time.Duration {
	var ping, pong atomic.Uint32
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
