package cuda

import "runtime"

// thread is the one locked OS thread that owns the CUDA contexts: every
// driver call runs on it, so a context is only ever current there.
type thread struct {
	calls chan func()
	done  chan struct{}
}

func startThread() *thread {
	t := &thread{calls: make(chan func()), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		defer close(t.done)
		for f := range t.calls {
			f()
		}
	}()
	return t
}

// do runs f on the thread and returns its error.
func (t *thread) do(f func() error) error {
	errc := make(chan error, 1)
	t.calls <- func() { errc <- f() }
	return <-errc
}

// stop ends the thread once the calls sent so far have run.
func (t *thread) stop() {
	close(t.calls)
	<-t.done
}
