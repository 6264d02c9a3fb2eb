package devices

import (
	"context"
	"time"

	"github.com/residentlua/residentlua/devices/failure"
)

// executor runs device programs: simExecutor in virtual time,
// realTimeExecutor on one goroutine per device.
type executor interface {
	// now is the fabric's clock.
	now() time.Duration
	// launch starts an accepted invocation at inv.startAt (fabric.mu held).
	launch(inv *invocation)
	// changed says memory a program may wait on was written.
	changed()
	// wait waits up to timeout for c, or until ctx is done; true when c
	// completed, ctx's error when ctx ended the wait first.
	wait(ctx context.Context, c *Completion, timeout time.Duration) (bool, error)
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
	return failure.Errorf(failure.Device, "reset", "%s was reset while invocation %d was running", inv.dev.name, inv.id)
}

// forever is a timeout that never expires, and a wake time that never comes.
const forever = time.Duration(1<<63 - 1)

// simEnd is where simulated time ends, about 292 years in: a simulated wait
// whose deadline lies later ends there instead, so the clock never reaches
// forever, which means "never" to every timer. It is an hour short of
// forever so that latencies started at the end (a dispatch's, a
// completion's) still fall on instants before "never".
const simEnd = forever - time.Hour

// deadline adds a timeout to a time without overflowing.
func deadline(now, timeout time.Duration) time.Duration {
	if timeout >= forever-now {
		return forever
	}
	return now + timeout
}

// addDurations adds two non-negative durations, saturating at forever
// instead of wrapping into the past.
func addDurations(a, b time.Duration) time.Duration {
	if b > forever-a {
		return forever
	}
	return a + b
}
