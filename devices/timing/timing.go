// Package timing names the fabric's timing profiles: the sets of latencies
// (a program.Timing) that dispatch, memory operations and completions
// take in modelled time. "ideal" adds none; "published" uses figures from
// public measurements. A command or a script picks one by name and
// overrides figures of it by theirs (program.TimingFigures), then gives it
// to a fabric (devices.Config.Timing).
package timing

import (
	"time"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
)

// Ideal adds no latency: what is measured is the tool's own overhead.
func Ideal() program.Timing { return program.Timing{} }

// Published uses figures from public measurements; docs/memory-model.md
// cites each one.
func Published() program.Timing {
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

// Profile returns the named profile, "ideal" or "published", or an
// Invalid error.
func Profile(name string) (program.Timing, error) {
	switch name {
	case "ideal":
		return Ideal(), nil
	case "published":
		return Published(), nil
	}
	return program.Timing{}, failure.Errorf(failure.Invalid, "timing", "unknown timing profile %q; use \"ideal\" or \"published\"", name)
}

// Figure returns a pointer to the figure of t named name, or an Invalid
// error that lists the figures.
func Figure(t *program.Timing, name string) (*time.Duration, error) {
	if d, ok := t.Figure(name); ok {
		return d, nil
	}
	return nil, failure.Errorf(failure.Invalid, "timing", "unknown timing figure %q; figures are %v", name, program.TimingFigures)
}
