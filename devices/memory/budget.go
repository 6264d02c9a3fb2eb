package memory

import (
	"sync"
)

// Budget limits how many bytes a fabric's buffers may hold. Allocations
// charge it and releases return it; quarantined memory stays charged and is
// counted apart until its quarantine ends.
type Budget struct {
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
func (b *Budget) State() BudgetState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stateLocked()
}

func (b *Budget) stateLocked() BudgetState {
	return BudgetState{Limit: b.limit, Charged: b.charged, Quarantined: b.quarantined}
}

// Renew empties the budget and makes its limit limit bytes.
func (b *Budget) Renew(limit int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.limit, b.charged, b.quarantined = limit, 0, 0
}

// Charge charges n bytes, unless that would exceed the limit: then it
// charges nothing and returns false with the figures that refused it.
func (b *Budget) Charge(n int64) (BudgetState, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.charged+n > b.limit {
		return b.stateLocked(), false
	}
	b.charged += n
	return BudgetState{}, true
}

// Refund returns n bytes, quarantined ones when quarantined.
func (b *Budget) Refund(n int64, quarantined bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.charged -= n
	if quarantined {
		b.quarantined -= n
	}
}

// Quarantine counts n charged bytes as held by a quarantine.
func (b *Budget) Quarantine(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.quarantined += n
}
