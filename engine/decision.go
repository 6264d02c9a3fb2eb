package engine

import (
	"strconv"

	"github.com/residentlua/residentlua/devices/program"
)

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
