package luaapi

import (
	"fmt"
	"strings"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine/oracle"
)

// maxGaveUp is how many deadlines of waits that gave up a session keeps
// for its report: the first ones, and a count of the rest.
const maxGaveUp = 4

// hangWatch is what the module keeps of a session to tell, in real time, a
// suspected hang: the deadlines of its waits that gave up, and whether a
// fault was armed while it was open. In simulated time the oracle reports
// the same session as a violation of invariant 15 (a fault-free session
// retires); in real time no deadline is exact, so it is a suspicion,
// reported with the deadlines that were given.
type hangWatch struct {
	gaveUp  []time.Duration // the first deadlines of waits that returned false
	more    int             // waits that gave up beyond those
	faulted bool            // a fault was armed on the fabric while the session was open
	hang    string          // the suspicion, once reported
}

// gaveUpAfter records a wait of d that returned false.
func (h *hangWatch) gaveUpAfter(d time.Duration) {
	if len(h.gaveUp) < maxGaveUp {
		h.gaveUp = append(h.gaveUp, d)
		return
	}
	h.more++
}

// noteFaults marks the session faulted when a fault is armed on f.
func (h *hangWatch) noteFaults(f *devices.Fabric) {
	if !h.faulted && len(f.Faults().Settings()) > 0 {
		h.faulted = true
	}
}

// markFaulted marks every open session of fs faulted: a fault was armed
// on its fabric.
func (m *Module) markFaulted(fs *fabricState) {
	for _, s := range m.tracked {
		if s.fab == fs && s.eng != nil {
			s.watch.faulted = true
		}
	}
}

// quarantinedAfter is called when a close of d quarantined s: in real
// time, a session decided and given up on by a wait, with no fault armed
// while it was open, is reported on standard error (and in its stats) as
// a suspected hang, with the deadlines that were given.
func (m *Module) quarantinedAfter(s *session, d time.Duration) {
	h := &s.watch
	if s.eng == nil || s.fab == nil || s.fab.f.Mode() != devices.RealTime || h.hang != "" {
		return
	}
	h.noteFaults(s.fab.f)
	decision := s.eng.Decision()
	if h.faulted || len(h.gaveUp) == 0 || decision == oracle.StartupWait {
		return
	}
	waits := make([]string, len(h.gaveUp))
	for i, w := range h.gaveUp {
		waits[i] = w.String()
	}
	given := "a wait given " + waits[0]
	if len(waits) > 1 || h.more > 0 {
		given = "waits given " + strings.Join(waits, ", ")
		if h.more > 0 {
			given += fmt.Sprintf(" and %d more", h.more)
		}
	}
	h.hang = fmt.Sprintf("suspected hang: the host decided %s, %s gave up, and a close given %v quarantined the session (%s), with no fault armed: a program that never retires after the decision (one that polls for ever, or waits on a word no release store raises); run it in simulated time, where the oracle reports it as a violation of invariant 15, or give longer deadlines if the programs are only slow",
		decisionName(decision), given, d, s.quarantineReason())
	fmt.Fprintf(m.stderr, "resident: session %d: %s\n", s.id, h.hang)
}

// decisionName is RUN or ABORT.
func decisionName(d oracle.Decision) string {
	if d == oracle.StartupAbort {
		return "ABORT"
	}
	return "RUN"
}
