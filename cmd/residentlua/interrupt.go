package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/residentlua/residentlua/internal/resultfile"
)

// interrupter turns Ctrl-C (SIGINT) and SIGTERM into the cancellation of
// what is running: a chunk (it stops with an error, and so does any wait
// inside it) or the close of the sessions still open at the end of the run
// (they are quarantined at once). SIGTERM also ends the run: once the chunk
// has stopped, the run finishes as it does at the end of a script (sessions
// closed, --trace and --stats written) and exits with status 143.
//
// With nothing cancellable running, Ctrl-C is ignored while the REPL waits
// for a line and otherwise ends the process at once, so that a Ctrl-C still
// ends a run stuck where nothing listens; SIGTERM at the REPL's prompt
// finishes the run through onIdleTerm. A first SIGTERM with nothing to
// cancel lets the run end at its next step; one more signal of either kind
// ends the process at once. Ending at once waits for the result files being
// written (resultfile.Hold) and removes the temporary files of the others, so
// that no partial file is left, then ends by the signal.
type interrupter struct {
	mu          sync.Mutex
	cancel      context.CancelFunc // the running chunk's or close's; nil between them
	interrupted bool               // the running chunk or close was cancelled by a signal
	signalled   bool               // a signal arrived
	terminated  bool               // SIGTERM arrived: the run is to end
	inREPL      bool               // the REPL is up (waiting for a line, or running one)
	onIdleTerm  func()             // ends the run when SIGTERM arrives at the prompt
}

// exitTerminated is the exit status after SIGTERM, and exitInterrupted
// the status of a run that Ctrl-C stopped (a campaign, a search, or the
// closing joins of a script's sessions), as a shell reports a process
// killed by the signal.
const (
	exitTerminated  = 128 + int(syscall.SIGTERM)
	exitInterrupted = 128 + int(syscall.SIGINT)
)

// newInterrupter starts listening for SIGINT and SIGTERM.
func newInterrupter() *interrupter {
	in := &interrupter{}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sig {
			in.hit(s)
		}
	}()
	return in
}

// hit handles one signal.
func (in *interrupter) hit(s os.Signal) {
	in.mu.Lock()
	term := s == syscall.SIGTERM
	again := in.signalled
	in.signalled = true
	if term {
		in.terminated = true
	}
	switch {
	case in.cancel != nil:
		in.cancel()
		in.cancel = nil
		in.interrupted = true
		in.mu.Unlock()
	case term && in.inREPL && in.onIdleTerm != nil:
		idle := in.onIdleTerm
		in.mu.Unlock()
		idle()
	case in.inREPL && !term, term && !again:
		in.mu.Unlock() // the REPL ignores Ctrl-C, or the run ends at its next step (terminated)
	default:
		in.mu.Unlock()
		resultfile.EndNow(s.(syscall.Signal))
	}
}

// interruptedStatus is the exit status of a run that a signal stopped:
// 143 after SIGTERM, 130 after Ctrl-C, as a shell reports a process ended
// by them.
func (in *interrupter) interruptedStatus() int {
	if in.wasTerminated() {
		return exitTerminated
	}
	return exitInterrupted
}

// arm gives what is about to run a context that a signal cancels; after
// SIGTERM it is cancelled already.
func (in *interrupter) arm() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	in.mu.Lock()
	defer in.mu.Unlock()
	in.interrupted = in.terminated
	if in.terminated {
		cancel()
		return ctx
	}
	in.cancel = cancel
	return ctx
}

// disarm ends the watch and says whether a signal cancelled what ran.
func (in *interrupter) disarm() (interrupted bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cancel != nil {
		in.cancel()
		in.cancel = nil
	}
	return in.interrupted
}

// wasTerminated reports whether SIGTERM arrived.
func (in *interrupter) wasTerminated() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.terminated
}

// repl says whether the REPL is up, and how to end the run when SIGTERM
// arrives while it waits for a line.
func (in *interrupter) repl(up bool, onIdleTerm func()) {
	in.mu.Lock()
	in.inREPL, in.onIdleTerm = up, onIdleTerm
	in.mu.Unlock()
}

// reportBrokenPipes makes a write to a closed pipe on standard output or
// standard error an error (EPIPE) rather than the end of the process by
// SIGPIPE, so that a campaign or a check whose output is cut writes its
// files and says what happened. Commands the program starts still get
// SIGPIPE: the signal is caught, not ignored.
func reportBrokenPipes() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}
