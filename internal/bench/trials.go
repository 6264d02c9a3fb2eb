package bench

import "runtime"

// Workers is one worker per core the Go scheduler may use.
func Workers() int { return runtime.GOMAXPROCS(0) }

// OnOneCore runs fn with GOMAXPROCS 1 and restores it after: the baseline
// of a speed-up and the rate of "one core" are one core's, whereas a lone
// worker under a larger GOMAXPROCS is not (its garbage collection's mark
// workers and the scheduler's idle processors run beside it on other
// cores), while each of many workers pays for its own on its core.
func OnOneCore(fn func() (float64, error)) (float64, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	return fn()
}
