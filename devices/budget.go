package devices

import (
	"sync"
)

// MemoryBudget limits how many bytes the fabric's buffers may hold.
// Allocations charge it and releases return it; quarantined memory stays
// charged and is counted apart until its quarantine ends.
type MemoryBudget struct {
	mu          sync.Mutex
	limit       int64
	charged     int64
	quarantined int64
}

// BudgetState is a snapshot of a budget.
type BudgetState struct {
	Limit       int64 // bytes allowed
	Charged     int64 // bytes held, quarantined included
	Quarantined int64 // bytes held by quarantines
}

// State returns the budget's figures.
func (b *MemoryBudget) State() BudgetState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BudgetState{Limit: b.limit, Charged: b.charged, Quarantined: b.quarantined}
}

// renew empties the budget and makes its limit limit bytes.
func (b *MemoryBudget) renew(limit int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.limit, b.charged, b.quarantined = limit, 0, 0
}

func (b *MemoryBudget) charge(n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.charged+n > b.limit {
		return Errorf(KindBudget, "alloc", "allocating %d bytes would exceed the memory budget (%d of %d bytes charged, %d quarantined); close sessions, reset devices to release quarantines, or raise the budget",
			n, b.charged, b.limit, b.quarantined)
	}
	b.charged += n
	return nil
}

func (b *MemoryBudget) refund(n int64, quarantined bool) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.charged -= n
	if quarantined {
		b.quarantined -= n
	}
	return b.charged
}

func (b *MemoryBudget) quarantine(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.quarantined += n
}
