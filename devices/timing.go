package devices

import (
	"time"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
)

// IdealTiming adds no latency: what is measured is the tool's own overhead.
func IdealTiming() program.Timing { return program.Timing{} }

// PublishedTiming uses figures from public measurements; docs/memory-model.md
// cites each one.
func PublishedTiming() program.Timing {
	return program.Timing{
		AQLDispatch:  5 * time.Microsecond,
		PM4Dispatch:  10 * time.Microsecond,
		XDNADispatch: 50 * time.Microsecond,
		HostToGPU:    1500 * time.Nanosecond,
		NPUDMALine:   2 * time.Microsecond,
		Completion:   2 * time.Microsecond,
		Stall:        100 * time.Microsecond,
	}
}

// TimingFigure returns a pointer to the figure of t named name, or an
// Invalid error that lists the figures.
func TimingFigure(t *program.Timing, name string) (*time.Duration, error) {
	if d, ok := t.Figure(name); ok {
		return d, nil
	}
	return nil, failure.Errorf(failure.Invalid, "timing", "unknown timing figure %q; figures are %v", name, program.TimingFigures)
}

// TimingProfile returns the named profile, "ideal" or "published".
func TimingProfile(name string) (program.Timing, error) {
	switch name {
	case "ideal":
		return IdealTiming(), nil
	case "published":
		return PublishedTiming(), nil
	}
	return program.Timing{}, failure.Errorf(failure.Invalid, "timing", "unknown timing profile %q; use \"ideal\" or \"published\"", name)
}

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
			return failure.Errorf(failure.Invalid, "timing", "timing figure %s is %v; give zero or more", name, *d)
		}
	}
	return nil
}
