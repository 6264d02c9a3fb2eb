package campaign

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errTrialTimeout is the cause of a trial context that ended because the
// trial ran past its time limit.
var errTrialTimeout = errors.New("the trial ran past its time limit")

// trialLimit gives a worker's trials, one at a time, a context that ends
// when the run's does or when the trial runs past its time limit. A runner
// that watches it (a Lua state stops at its next instruction or wait once
// it ends) lets neither a loop that never returns nor a Ctrl-C in the
// middle of a trial hold the run.
//
// One timer serves every trial of the worker: start arms it and stop
// disarms it, so that a trial costs no timer of its own.
type trialLimit struct {
	base     context.Context // the worker's: ends with the run
	stopBase context.CancelFunc
	timeout  time.Duration // <= 0: none
	timer    *time.Timer
	mu       sync.Mutex
	cancel   context.CancelCauseFunc // the running trial's; nil between trials
	started  time.Time
}

// newTrialLimit makes the limit of a worker of the run of ctx.
func newTrialLimit(ctx context.Context, timeout time.Duration) *trialLimit {
	l := &trialLimit{timeout: timeout}
	l.base, l.stopBase = context.WithCancel(ctx)
	if timeout > 0 {
		l.timer = time.AfterFunc(time.Hour, l.expire)
		l.timer.Stop()
	}
	return l
}

// start is the context of the trial that starts now.
func (l *trialLimit) start() context.Context {
	ctx, cancel := context.WithCancelCause(l.base)
	l.mu.Lock()
	l.cancel, l.started = cancel, time.Now()
	l.mu.Unlock()
	if l.timer != nil {
		l.timer.Reset(l.timeout)
	}
	return ctx
}

// stop ends the trial's context, which start gave.
func (l *trialLimit) stop() {
	if l.timer != nil {
		l.timer.Stop()
	}
	l.mu.Lock()
	cancel := l.cancel
	l.cancel = nil
	l.mu.Unlock()
	cancel(nil)
}

// expire ends the running trial's context when it has run past the limit
// (the timer of an earlier trial may fire late, as the next starts).
func (l *trialLimit) expire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil && time.Since(l.started) >= l.timeout {
		l.cancel(errTrialTimeout)
	}
}

// close lets the limit go.
func (l *trialLimit) close() {
	if l.timer != nil {
		l.timer.Stop()
	}
	l.stopBase()
}

// stoppedBy says why ctx, a trial's, ended: "timeout" when the trial ran
// past its limit, "interrupted" when the run was stopped, "" when it has
// not ended.
func stoppedBy(ctx context.Context) string {
	switch {
	case ctx.Err() == nil:
		return ""
	case errors.Is(context.Cause(ctx), errTrialTimeout):
		return OutcomeTimeout
	}
	return OutcomeInterrupted
}
