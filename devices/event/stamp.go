package event

import (
	"sync/atomic"
	"time"
)

// Stamp is when a step happened, by the fabric's clock (the time of the
// event that says so); Set is false for a step that has not happened.
type Stamp struct {
	At  time.Duration
	Set bool
}

// StampCell keeps the first time marked into it, for a step that one
// goroutine records (a device's, as its program runs) and any may read.
// The zero value is unset.
type StampCell struct {
	v atomic.Int64 // the time plus one; 0 while unset
}

// Mark records at, unless a time was marked before.
func (c *StampCell) Mark(at time.Duration) {
	if c.v.Load() == 0 {
		c.v.Store(int64(at) + 1)
	}
}

// Load returns the time marked, if any.
func (c *StampCell) Load() Stamp {
	v := c.v.Load()
	if v == 0 {
		return Stamp{}
	}
	return Stamp{At: time.Duration(v - 1), Set: true}
}
