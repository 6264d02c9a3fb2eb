package engine

import "github.com/residentlua/residentlua/devices"

// Protocol event kinds, emitted by the host on the fabric's stream beside the
// device kinds of package devices.
var (
	EvStartup      = devices.DefineEvent("startup", devices.CategoryProtocol)        // A: publications prepared, B: the line's buffer
	EvSession      = devices.DefineEvent("session", devices.CategoryProtocol)        // A: the GPU's actor, B: the NPU's actor
	EvSubmit       = devices.DefineEvent("submit", devices.CategoryProtocol)         // A: participant (0 GPU, 1 NPU), B: 0 accepted, 1 rejected
	EvSubmitReturn = devices.DefineEvent("submit.return", devices.CategoryProtocol)  // A: participant, B: 0 ok, 1 error
	EvDecide       = devices.DefineEvent("decide", devices.CategoryProtocol)         // A: decision (1 RUN, 2 ABORT), recorded before publishing
	EvPublished    = devices.DefineEvent("published", devices.CategoryProtocol)      // A: decision, B: 0 ok, 1 failed
	EvPoison       = devices.DefineEvent("poison", devices.CategoryProtocol)         // Detail: why
	EvWait         = devices.DefineEvent("wait", devices.CategoryProtocol)           // A: timeout in ns
	EvUndecided    = devices.DefineEvent("wait.undecided", devices.CategoryProtocol) // a Wait refused: no decision is recorded
	EvJoin         = devices.DefineEvent("join", devices.CategoryProtocol)           // A: participant, B: JoinRetired, JoinTimeout, JoinError, JoinAbsent or JoinCancelled
	EvWaitEnd      = devices.DefineEvent("wait.end", devices.CategoryProtocol)       // A: 1 when both retired
	EvCheck        = devices.DefineEvent("check", devices.CategoryProtocol)          // A: participant whose program checked its results, B: 0 passed, 1 failed; Detail: the problem
	EvCloseBegin   = devices.DefineEvent("close.begin", devices.CategoryProtocol)    // A: the join's timeout in ns
	EvClose        = devices.DefineEvent("close", devices.CategoryProtocol)          // A: 0 retired, 1 quarantined
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
