package devices

import (
	"time"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
)

// dispatchLatency is how long a program dispatched to a queue of command c
// takes to start.
func dispatchLatency(t *program.Timing, c Command) time.Duration {
	switch c {
	case AQL:
		return t.AQLDispatch
	case PM4:
		return t.PM4Dispatch
	case XDNA:
		return t.XDNADispatch
	}
	return 0
}

// validateTiming refuses a negative figure, which would start or wake a
// program before the moment that asks for it.
func validateTiming(t *program.Timing) error {
	for _, name := range program.TimingFigures {
		if d, _ := t.Figure(name); *d < 0 {
			return failure.Errorf(failure.Invalid, "timing", "figure %s is %v; give zero or more", name, *d)
		}
	}
	return nil
}
