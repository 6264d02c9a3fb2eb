package oracle

import (
	"fmt"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
)

// budgetChecker checks invariant 8, the budget equals live plus
// quarantined allocations and is zero when all is closed. Its accounting
// comes from events alone: alloc and release (of the fabric's budget, not
// a private one), quarantine and quarantine.end. What it compares that
// with is a reading of the budget: the oracle's fabric's, taken when an
// alloc, a quarantine, its end or a close is checked (the budget is charged
// and its event emitted in one step, so no other event comes between), or
// the one a transcript states. No reading, no comparison.
type budgetChecker struct {
	v           *verdicts
	reading     func() memory.BudgetState // nil: none to compare with
	live        int64                     // bytes of live buffers charged to the fabric's budget
	quarantined int64
}

func (c *budgetChecker) observe(e *event.Event, open bool) {
	switch e.Kind {
	case event.EvAlloc:
		if e.Detail != event.PrivateBudget {
			c.live += int64(e.B)
		}
	case event.EvRelease:
		if e.Detail != event.PrivateBudget {
			c.live -= int64(e.B)
		}
		return
	case event.EvQuarantine:
		c.quarantined += int64(e.A)
	case event.EvQuarantineEnd:
		c.quarantined -= int64(e.A)
	case EvClose:
	default:
		return
	}
	c.compare(e.Session)
}

// compare reports a reading of the budget that differs from the accounts.
func (c *budgetChecker) compare(session uint64) {
	if c.reading == nil {
		return
	}
	if st := c.reading(); st.Charged != c.live || st.Quarantined != c.quarantined {
		c.v.violate(8, session, fmt.Sprintf("the budget charges %d bytes (%d quarantined) but live allocations are %d bytes (%d quarantined)", st.Charged, st.Quarantined, c.live, c.quarantined))
	}
}

// settled checks the end of invariant 8, with no session open: once no
// quarantine is left, nothing may be charged.
// The accounts are checked first, then the reading, if any.
func (c *budgetChecker) settled() error {
	charged, quarantined := c.live, c.quarantined
	if charged == 0 && quarantined == 0 && c.reading != nil {
		st := c.reading()
		charged, quarantined = st.Charged, st.Quarantined
	}
	if quarantined == 0 && charged != 0 {
		return c.v.violate(8, 0, fmt.Sprintf("everything is closed but %d bytes are still charged", charged))
	}
	return nil
}

func (c *budgetChecker) reset() { c.live, c.quarantined = 0, 0 }

func (c *budgetChecker) hash(h *program.StateHash) {
	h.Add(uint64(c.live))
	h.Add(uint64(c.quarantined))
}
