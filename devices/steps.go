package devices

import "github.com/residentlua/residentlua/devices/event"

// Steps is what an invocation's program did, by its events: when it first
// observed the decision (program.EvObserve) and when it retired (event.EvRetire),
// with the error it retired with.
type Steps struct {
	Observed, Retired event.Stamp
	Err               error // nil for a clean retirement, or before one
}
