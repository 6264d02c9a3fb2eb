package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interrupter turns Ctrl-C (SIGINT) into the cancellation of the chunk that
// is running: the chunk, and any wait inside it, stops with an error. With
// no chunk running, Ctrl-C is ignored while the REPL is up (it only reaches
// us in the moment between a chunk and the next prompt) and otherwise ends
// the process as usual, so that a second Ctrl-C still kills a run that is
// closing its sessions.
type interrupter struct {
	mu          sync.Mutex
	cancel      context.CancelFunc // the running chunk's; nil between chunks
	interrupted bool               // the running chunk was cancelled by Ctrl-C
	inREPL      bool
}

// newInterrupter starts listening for SIGINT.
func newInterrupter() *interrupter {
	in := &interrupter{}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	go func() {
		for range sig {
			in.hit()
		}
	}()
	return in
}

// hit handles one SIGINT.
func (in *interrupter) hit() {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.cancel != nil:
		in.cancel()
		in.cancel = nil
		in.interrupted = true
	case in.inREPL:
	default:
		signal.Reset(os.Interrupt)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}
}

// arm gives the chunk about to run a context that Ctrl-C cancels.
func (in *interrupter) arm() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	in.mu.Lock()
	in.cancel, in.interrupted = cancel, false
	in.mu.Unlock()
	return ctx
}

// disarm ends the chunk's watch and says whether Ctrl-C cancelled it.
func (in *interrupter) disarm() (interrupted bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cancel != nil {
		in.cancel()
		in.cancel = nil
	}
	return in.interrupted
}

// repl says whether the REPL is up.
func (in *interrupter) repl(up bool) {
	in.mu.Lock()
	in.inREPL = up
	in.mu.Unlock()
}
