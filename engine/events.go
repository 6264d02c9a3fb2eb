package engine

import "github.com/residentlua/residentlua/devices"

// Protocol event kinds, emitted by the host on the fabric's stream beside the
// device kinds of package devices.
const (
	EvStartup      devices.EventKind = "startup"       // A: publications prepared, B: the line's buffer
	EvSubmit       devices.EventKind = "submit"        // A: participant (0 GPU, 1 NPU), B: 0 accepted, 1 rejected
	EvSubmitReturn devices.EventKind = "submit.return" // A: participant, B: 0 ok, 1 error
	EvDecide       devices.EventKind = "decide"        // A: decision (1 RUN, 2 ABORT), recorded before publishing
	EvPublished    devices.EventKind = "published"     // A: decision, B: 0 ok, 1 failed
	EvPoison       devices.EventKind = "poison"        // Detail: why
	EvWait         devices.EventKind = "wait"          // A: timeout in ns
	EvJoin         devices.EventKind = "join"          // A: participant, B: JoinRetired, JoinTimeout, JoinError, JoinAbsent or JoinCancelled
	EvWaitEnd      devices.EventKind = "wait.end"      // A: 1 when both retired
	EvVerify       devices.EventKind = "verify"        // A: 1 ok, B: generations verified; Detail: problem
	EvCloseBegin   devices.EventKind = "close.begin"   // A: the join's timeout in ns
	EvClose        devices.EventKind = "close"         // A: 0 retired, 1 quarantined
)

// Results of one join, the B of an EvJoin event.
const (
	JoinRetired uint64 = iota
	JoinTimeout
	JoinError
	JoinAbsent    // the participant was never accepted: nothing to join
	JoinCancelled // the wait's context ended the join: no failure of the participant
)

// joinFailure is the result of a join that returned err: JoinCancelled when
// the wait's context ended it, JoinError when the participant failed.
func joinFailure(err error) uint64 {
	if isContextError(err) {
		return JoinCancelled
	}
	return JoinError
}

// Participants, the A of submit and join events.
const (
	ParticipantGPU uint64 = 0
	ParticipantNPU uint64 = 1
)
