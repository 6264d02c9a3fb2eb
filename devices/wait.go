package devices

import (
	"fmt"
	"runtime"

	"github.com/residentlua/residentlua/devices/failure"
)

// WaitPolicy says how the waits of a real-time fabric pass: a device
// program waiting for memory to change, an idle device waiting for work,
// and the host waiting for a completion. A simulated fabric ignores it:
// its devices never wait on the wall clock.
type WaitPolicy uint8

// Wait policies. The zero value is WaitHybrid.
const (
	// WaitHybrid polls, and blocks once a wait lasts longer than a budget
	// (500 µs): fast while a session runs, cheap when it does not. Where
	// GOMAXPROCS is below the devices plus the host, it yields the
	// processor between short bursts of polls, and the host blocks after
	// 20 µs, so that it is fair on a machine with fewer cores than
	// waiters.
	WaitHybrid WaitPolicy = iota
	// WaitSpin runs each device on its own locked OS thread that polls
	// without yielding or blocking while it has a program, as a resident
	// GPU kernel does, and the host polls its completions the same way: the
	// lowest latency, at the cost of a core per device and one for the
	// waiting host. NewFabric refuses it when GOMAXPROCS is below that count.
	WaitSpin
	// WaitBlock parks every waiter at once, without polling: the least
	// processor time, at the cost of a thread wake-up (microseconds) on
	// every hand-off.
	WaitBlock
)

// WaitPolicies lists the policies, the default first.
func WaitPolicies() []WaitPolicy { return []WaitPolicy{WaitHybrid, WaitSpin, WaitBlock} }

// String is "hybrid", "spin" or "block".
func (w WaitPolicy) String() string {
	switch w {
	case WaitHybrid:
		return "hybrid"
	case WaitSpin:
		return "spin"
	case WaitBlock:
		return "block"
	}
	return fmt.Sprintf("wait(%d)", uint8(w))
}

// ParseWaitPolicy reads "spin", "hybrid" or "block".
func ParseWaitPolicy(name string) (WaitPolicy, error) {
	for _, w := range WaitPolicies() {
		if name == w.String() {
			return w, nil
		}
	}
	return 0, failure.Errorf(failure.Invalid, "fabric", "unknown wait policy %q; use \"spin\", \"hybrid\" or \"block\"", name)
}

// usableCores is how many goroutines can run at once: GOMAXPROCS, which
// defaults to the CPUs the process may use (its affinity and its cgroup's
// quota). A GOMAXPROCS set above them is taken at its word.
func usableCores() int { return runtime.GOMAXPROCS(0) }

// checkWait validates the wait policy of a fabric of n devices in mode.
// Spinning in real time needs a core for each device and one for the
// waiting host: with fewer, spinning threads take turns on a core and every
// hand-off waits for the scheduler's time slice (milliseconds).
func checkWait(w WaitPolicy, mode Mode, n int) error {
	if w > WaitBlock {
		return failure.Errorf(failure.Invalid, "fabric", "unknown wait policy %d; use WaitSpin, WaitHybrid or WaitBlock", uint8(w))
	}
	if w != WaitSpin || mode != RealTime {
		return nil
	}
	if need, have := n+1, usableCores(); have < need {
		return failure.Errorf(failure.Invalid, "fabric", "the spin wait policy needs a core for each of its %d spinning participants (%d devices and the waiting host), and %d are usable (GOMAXPROCS, of %d CPUs); use the hybrid policy, or run with more cores", need, n, have, runtime.NumCPU())
	}
	return nil
}

// Wait is the fabric's wait policy (Config.Wait); a simulated fabric keeps
// it but ignores it.
func (f *Fabric) Wait() WaitPolicy { return f.wait }

// CheckWait is the error NewFabric gives a real-time fabric of n devices
// waiting under w on this machine, or nil when it can: a caller choosing a
// policy (spin where the cores allow it) asks before making the fabric.
func CheckWait(w WaitPolicy, n int) error { return checkWait(w, RealTime, n) }
