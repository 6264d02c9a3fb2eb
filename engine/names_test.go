package engine

import (
	"testing"

	"github.com/residentlua/residentlua/engine/oracle"
)

// Every value of the engine's small types has a name, and one out of range
// is named by its number instead of panicking.
func TestNamesOfValues(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{StateUndecided.String(), "undecided"},
		{StateQuarantined.String(), "quarantined"},
		{State(0).String(), "state(0)"},
		{State(200).String(), "state(200)"},
		{oracle.ParticipantGPU.String(), "GPU"},
		{oracle.ParticipantNPU.String(), "NPU"},
		{oracle.Participant(7).String(), "participant(7)"},
		{oracle.JoinRetired.String(), "retired"},
		{oracle.JoinTimeout.String(), "timed out"},
		{oracle.JoinError.String(), "failed"},
		{oracle.JoinAbsent.String(), "absent"},
		{oracle.JoinCancelled.String(), "cancelled"},
		{oracle.JoinResult(9).String(), "join(9)"},
		{oracle.Invariant(0), ""},
		{oracle.Invariant(17), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if oracle.Invariant(1) == "" || oracle.Invariant(16) == "" {
		t.Error("invariants 1 and 16 should have texts")
	}
}
