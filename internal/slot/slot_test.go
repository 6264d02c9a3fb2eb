package slot

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// generous bounds, in real time, what must happen soon; what the tests
// assert is the order of things and their outcome.
const generous = 10 * time.Second

// A free slot is taken even under a context that has ended, and then a
// second LockContext under that context gives up with its error at once.
func TestFreeSlotIsTakenWhateverTheContext(t *testing.T) {
	s := New()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.LockContext(ctx); err != nil {
		t.Fatalf("LockContext of a free slot under an ended context = %v, want it taken", err)
	}
	if err := s.LockContext(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("LockContext of a held slot under an ended context = %v, want context.Canceled", err)
	}
	s.Unlock()
	if err := s.LockContext(context.Background()); err != nil {
		t.Fatalf("LockContext after Unlock = %v, want the slot", err)
	}
}

// A LockContext waiting for a slot that another goroutine holds gives up
// when its context is cancelled, while the holder still holds it; a
// LockContext under a context that never ends waits until the holder
// unlocks, and then gets the slot.
func TestWaiterGivesUpOrGetsTheSlot(t *testing.T) {
	s := New()
	s.Lock()
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- s.LockContext(ctx) }()
	got := make(chan error, 1)
	go func() { got <- s.LockContext(context.Background()) }()
	select {
	case err := <-gaveUp:
		t.Fatalf("LockContext returned %v while the slot was held and its context live", err)
	case err := <-got:
		t.Fatalf("LockContext returned %v while the slot was held", err)
	case <-time.After(10 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-gaveUp:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled LockContext = %v, want context.Canceled", err)
		}
	case <-time.After(generous):
		t.Fatal("the cancelled LockContext did not give up")
	}
	select {
	case err := <-got:
		t.Fatalf("LockContext under a live context returned %v before the holder unlocked", err)
	default:
	}
	s.Unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("LockContext after the holder unlocked = %v, want the slot", err)
		}
	case <-time.After(generous):
		t.Fatal("LockContext did not get the slot the holder unlocked")
	}
}

// Goroutines that take turns through the slot never overlap: with the race
// detector on, an unguarded counter would be reported, and the count is
// exact.
func TestSlotExcludes(t *testing.T) {
	s := New()
	const goroutines, each = 8, 200
	count, inside := 0, 0
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if g%2 == 0 {
					s.Lock()
				} else if err := s.LockContext(context.Background()); err != nil {
					t.Error(err)
					return
				}
				inside++
				if inside != 1 {
					t.Errorf("%d goroutines inside the slot at once", inside)
				}
				count++
				inside--
				s.Unlock()
			}
		}()
	}
	wg.Wait()
	if count != goroutines*each {
		t.Errorf("count %d, want %d", count, goroutines*each)
	}
}
