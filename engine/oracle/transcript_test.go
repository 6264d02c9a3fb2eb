package oracle

import (
	"testing"

	"github.com/residentlua/residentlua/devices/event"
)

// A Transcript reports each violation with the event that broke it, and
// keeps none of them once returned.
func TestTranscriptReportsAtTheEvent(t *testing.T) {
	tr := NewTranscript(true)
	events := []event.Event{
		{Kind: EvStartup, Session: 1, B: 7},
		{Kind: EvDecide, Session: 1, A: uint64(StartupAbort)},
		{Kind: EvDecide, Session: 1, A: uint64(StartupAbort)}, // a second decision: invariant 1
		{Kind: EvWait, Session: 1, A: 10},
		{Kind: EvWaitEnd, Session: 1}, // no join: invariant 6
	}
	want := []int{0, 0, 1, 0, 6}
	for i := range events {
		got := tr.Observe(&events[i])
		switch {
		case want[i] == 0 && len(got) != 0:
			t.Errorf("event %d: %v, want none", i+1, got)
		case want[i] != 0 && (len(got) != 1 || got[0].Invariant != want[i] || got[0].Session != 1):
			t.Errorf("event %d: %v, want invariant %d", i+1, got, want[i])
		}
	}
	if tr.Open() != 1 || len(tr.o.verdicts.list) != 1 {
		t.Errorf("open %d, violations kept %d; want 1 session open and only the last event's violation", tr.Open(), len(tr.o.verdicts.list))
	}
	closeEv := event.Event{Kind: EvClose, Session: 1}
	tr.Observe(&closeEv)
	if tr.Open() != 0 {
		t.Errorf("a closed session is still open")
	}
	alloc := event.Event{Kind: event.EvAlloc, A: 3, B: 64}
	tr.Observe(&alloc)
	if err := tr.Settle(); err == nil {
		t.Error("64 bytes left allocated with nothing open settled clean")
	}
}
