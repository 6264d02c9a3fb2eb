package oracle

import (
	"strconv"

	"github.com/residentlua/residentlua/devices/program"
)

// Protocol event kinds, emitted by the host (package engine's session) on
// the fabric's stream beside the device kinds of package devices;
// docs/protocol.md gives each one's A, B and Detail. They are the words the
// oracle reads, whichever implementation of the session wrote them.
const (
	EvSubmit       program.EventKind = "submit"         // A: Participant, B: 0 accepted, 1 rejected
	EvDecide       program.EventKind = "decide"         // A: decision (1 RUN, 2 ABORT), recorded before publishing
	EvPoison       program.EventKind = "poison"         // Detail: why
	EvWait         program.EventKind = "wait"           // A: timeout in ns
	EvJoin         program.EventKind = "join"           // A: Participant, B: JoinResult
	EvWaitEnd      program.EventKind = "wait.end"       // A: 1 when both retired
	EvCheck        program.EventKind = "check"          // A: Participant whose program checked its results, B: 0 passed, 1 failed; Detail: the problem
	EvStartup      program.EventKind = "startup"        // A: publications prepared, B: the line's buffer
	EvSession      program.EventKind = "session"        // A: the GPU's actor, B: the NPU's actor
	EvSubmitReturn program.EventKind = "submit.return"  // A: Participant, B: 0 ok, 1 error
	EvPublished    program.EventKind = "published"      // A: decision, B: 0 ok, 1 failed
	EvUndecided    program.EventKind = "wait.undecided" // a Wait refused: no decision is recorded
	EvCloseBegin   program.EventKind = "close.begin"    // A: the join's timeout in ns
	EvClose        program.EventKind = "close"          // A: 0 retired, 1 quarantined
)

// The kinds are registered once, in the protocol category; registering a
// name twice panics when the program starts (program.DefineEvent).
func init() {
	for _, k := range [...]program.EventKind{EvSubmit, EvDecide, EvPoison, EvWait, EvJoin, EvWaitEnd, EvCheck,
		EvStartup, EvSession, EvSubmitReturn, EvPublished, EvUndecided, EvCloseBegin, EvClose} {
		program.DefineEvent(string(k), program.CategoryProtocol)
	}
}

// Participant is one of a session's two programs, the A of submit, join
// and check events.
type Participant uint8

// The participants.
const (
	ParticipantGPU Participant = iota
	ParticipantNPU
)

// String is "GPU" or "NPU".
func (p Participant) String() string {
	switch p {
	case ParticipantGPU:
		return "GPU"
	case ParticipantNPU:
		return "NPU"
	}
	return "participant(" + strconv.Itoa(int(p)) + ")"
}

// peer is the other participant.
func (p Participant) peer() Participant { return 1 - p }

// JoinResult is how one join of a Wait ended, the B of a join event.
type JoinResult uint8

// The results of a join.
const (
	JoinRetired   JoinResult = iota // the participant retired
	JoinTimeout                     // the join's time ran out first
	JoinError                       // the participant failed
	JoinAbsent                      // the participant was never accepted: nothing to join
	JoinCancelled                   // the wait's context, or a close, ended the join: no failure of the participant
)

// String says how the join ended: "retired", "timed out", "failed",
// "absent" or "cancelled".
func (r JoinResult) String() string {
	switch r {
	case JoinRetired:
		return "retired"
	case JoinTimeout:
		return "timed out"
	case JoinError:
		return "failed"
	case JoinAbsent:
		return "absent"
	case JoinCancelled:
		return "cancelled"
	}
	return "join(" + strconv.Itoa(int(r)) + ")"
}

// Decision is a value of the startup word. The host writes it once, RUN or
// ABORT over WAIT; both programs poll it, never write it, and act only once
// it is RUN or ABORT (the values are the programs' contract, in package
// program).
type Decision uint32

// The values of the startup word.
const (
	StartupWait  Decision = Decision(program.StartupWait)  // no decision yet
	StartupRun   Decision = Decision(program.StartupRun)   // both programs were accepted: run
	StartupAbort Decision = Decision(program.StartupAbort) // retire at once, touching nothing else
)

// String is "wait", "run", "abort", or the number of another value.
func (d Decision) String() string {
	switch d {
	case StartupWait:
		return "wait"
	case StartupRun:
		return "run"
	case StartupAbort:
		return "abort"
	}
	return "decision(" + strconv.FormatUint(uint64(d), 10) + ")"
}
