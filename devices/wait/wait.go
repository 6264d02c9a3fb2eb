// Package wait names how the waits of a real-time fabric pass (Policy) and
// says whether this machine can honour a policy for a fabric of so many
// devices (Check), so that a command can offer, parse and check policies
// before it makes a fabric.
package wait

import (
	"fmt"
	"runtime"

	"github.com/residentlua/residentlua/devices/failure"
)

// Policy says how the waits of a real-time fabric pass: a device program
// waiting for memory to change, an idle device waiting for work, and the
// host waiting for a completion. A simulated fabric ignores it: its
// devices never wait on the wall clock.
type Policy uint8

// Wait policies. The zero value is Hybrid.
const (
	// Hybrid polls, and blocks once a wait lasts longer than a budget
	// (500 µs): fast while a session runs, cheap when it does not. Where
	// GOMAXPROCS is below the devices plus the host, it yields the
	// processor between short bursts of polls, and the host blocks after
	// 20 µs, so that it is fair on a machine with fewer cores than
	// waiters.
	Hybrid Policy = iota
	// Spin runs each device on its own locked OS thread that polls
	// without yielding or blocking while it has a program, as a resident
	// GPU kernel does, and the host polls its completions the same way: the
	// lowest latency, at the cost of a core per device and one for the
	// waiting host. A real-time fabric refuses it when GOMAXPROCS is below
	// that count (Check).
	Spin
	// Block parks every waiter at once, without polling: the least
	// processor time, at the cost of a thread wake-up (microseconds) on
	// every hand-off.
	Block
)

// Policies lists the policies, the default first.
func Policies() []Policy { return []Policy{Hybrid, Spin, Block} }

// String is "hybrid", "spin" or "block".
func (p Policy) String() string {
	switch p {
	case Hybrid:
		return "hybrid"
	case Spin:
		return "spin"
	case Block:
		return "block"
	}
	return fmt.Sprintf("wait(%d)", uint8(p))
}

// Parse reads "spin", "hybrid" or "block".
func Parse(name string) (Policy, error) {
	for _, p := range Policies() {
		if name == p.String() {
			return p, nil
		}
	}
	return 0, failure.Errorf(failure.Invalid, "fabric", "unknown wait policy %q; use \"spin\", \"hybrid\" or \"block\"", name)
}

// Check is the error a real-time fabric of n devices waiting under p gets
// on this machine, or nil when it can: an invalid error for a value that
// is no policy, or for Spin where there are fewer usable cores than
// spinning participants. Spinning needs a core for each device and one
// for the waiting host: with fewer, spinning threads take turns on a core
// and every hand-off waits for the scheduler's time slice (milliseconds).
// Usable cores are GOMAXPROCS, which defaults to the CPUs the process may
// use (its affinity and its cgroup's quota); one set above them is taken
// at its word. A caller choosing a policy (spin where the cores allow it)
// asks before making the fabric; with n 0 only p itself is checked.
func Check(p Policy, n int) error {
	if p > Block {
		return failure.Errorf(failure.Invalid, "fabric", "unknown wait policy %d; use wait.Spin, wait.Hybrid or wait.Block", uint8(p))
	}
	if p != Spin {
		return nil
	}
	if need, have := n+1, runtime.GOMAXPROCS(0); have < need {
		return failure.Errorf(failure.Invalid, "fabric", "the spin wait policy needs a core for each of its %d spinning participants (%d devices and the waiting host), and %d are usable (GOMAXPROCS, of %d CPUs); use the hybrid policy, or run with more cores", need, n, have, runtime.NumCPU())
	}
	return nil
}
