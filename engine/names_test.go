package engine

import "testing"

// Every value of the engine's small types has a name, and one out of range
// is named by its number instead of panicking.
func TestNamesOfValues(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{StateUndecided.String(), "undecided"},
		{StateQuarantined.String(), "quarantined"},
		{State(0).String(), "state(0)"},
		{State(200).String(), "state(200)"},
		{ParticipantGPU.String(), "GPU"},
		{ParticipantNPU.String(), "NPU"},
		{Participant(7).String(), "participant(7)"},
		{JoinRetired.String(), "retired"},
		{JoinTimeout.String(), "timed out"},
		{JoinError.String(), "failed"},
		{JoinAbsent.String(), "absent"},
		{JoinCancelled.String(), "cancelled"},
		{JoinResult(9).String(), "join(9)"},
		{Invariant(0), ""},
		{Invariant(17), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if Invariant(1) == "" || Invariant(16) == "" {
		t.Error("invariants 1 and 16 should have texts")
	}
}
