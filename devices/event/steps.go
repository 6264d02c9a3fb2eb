package event

// Steps is what an invocation's program did, by its events: when it first
// observed the decision (program.EvObserve) and when it retired (EvRetire),
// with the error it retired with. devices.Completion.Steps gives it.
type Steps struct {
	Observed, Retired Stamp
	Err               error // nil for a clean retirement, or before one
}
