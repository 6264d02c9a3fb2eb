// Package slot is a lock that a waiter can give up on when its context
// ends: a channel of one slot that holds a token while nobody holds the
// lock. Lock takes the token, Unlock puts it back, and LockContext waits
// for the token in a select against the context's Done channel, so that
// nothing polls.
package slot

import "context"

// Slot is a lock of one slot, made by New (a nil Slot never lets anyone
// in). Like a sync.Mutex it is not tied to a goroutine: one may lock it
// and another unlock it.
type Slot chan struct{}

// New makes a Slot that is free: its one slot holds the token.
func New() Slot {
	s := make(Slot, 1)
	s <- struct{}{}
	return s
}

// Lock takes the token, waiting for as long as another holds it.
func (s Slot) Lock() { <-s }

// Unlock puts the token back, letting in one goroutine that waits for it.
// Unlocking a Slot that nobody holds blocks for ever.
func (s Slot) Unlock() { s <- struct{}{} }

// LockContext takes the token, or gives up with ctx's error when ctx ends
// first. A free Slot is taken even when ctx has already ended, as Lock
// would take it: what the holder then does decides how ctx's end shows,
// the same way every time. A ctx that never ends (Done is nil) waits as
// Lock does.
func (s Slot) LockContext(ctx context.Context) error {
	select {
	case <-s:
		return nil
	default:
	}
	select {
	case <-s:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
