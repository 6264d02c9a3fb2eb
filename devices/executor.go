package devices

import "time"

// executor runs device programs: simExecutor in virtual time,
// realTimeExecutor on one goroutine per device.
type executor interface {
	// now is the fabric's clock.
	now() time.Duration
	// launch starts an accepted invocation at inv.startAt (fabric.mu held).
	launch(inv *invocation)
	// changed says memory a program may wait on was written.
	changed()
	// wait waits up to timeout for c; true when it completed.
	wait(c *Completion, timeout time.Duration) bool
	// stop ends inv at once with a reset error (fabric.mu held); when it
	// returns, the program will never run again.
	stop(inv *invocation)
	// advance lets d of the clock pass.
	advance(d time.Duration)
	// close ends the executor's threads.
	close()
}

// errReset is the error of an invocation stopped by a device reset.
func errReset(inv *invocation) error {
	return Errorf(KindDevice, "reset", "%s was reset while invocation %d was running", inv.dev.name, inv.id)
}

// forever is a timeout that never expires.
const forever = time.Duration(1<<63 - 1)

// deadline adds a timeout to a time without overflowing.
func deadline(now, timeout time.Duration) time.Duration {
	if timeout >= forever-now {
		return forever
	}
	return now + timeout
}
