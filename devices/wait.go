package devices

import (
	"runtime"

	"github.com/residentlua/residentlua/devices/wait"
)

// usableCores is how many goroutines can run at once: GOMAXPROCS, as
// wait.Check counts them.
func usableCores() int { return runtime.GOMAXPROCS(0) }

// checkWait validates the wait policy of a fabric of n devices in mode. A
// simulated fabric's devices never wait on the wall clock, so there only
// the policy itself is checked.
func checkWait(w wait.Policy, mode Mode, n int) error {
	if mode != RealTime {
		n = 0
	}
	return wait.Check(w, n)
}

// Wait is the fabric's wait policy (Config.Wait); a simulated fabric keeps
// it but ignores it.
func (f *Fabric) Wait() wait.Policy { return f.wait }
