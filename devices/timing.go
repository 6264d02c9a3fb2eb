package devices

import (
	"fmt"
	"time"
)

// Timing holds the latencies the model adds. Every figure can be set on its own.
type Timing struct {
	AQLDispatch  time.Duration // AQL packet written → kernel starts
	PM4Dispatch  time.Duration // PM4 submission → kernel starts
	XDNADispatch time.Duration // XDNA command → NPU program starts
	HostToGPU    time.Duration // a host store becomes visible to a polling GPU
	NPUDMALine   time.Duration // the NPU moves one 64-byte line by DMA
	Completion   time.Duration // a retirement is noticed by the host
}

// IdealTiming adds no latency: what is measured is the tool's own overhead.
func IdealTiming() Timing { return Timing{} }

// PublishedTiming uses figures from public measurements; docs/memory-model.md
// cites each one.
func PublishedTiming() Timing {
	return Timing{
		AQLDispatch:  5 * time.Microsecond,
		PM4Dispatch:  10 * time.Microsecond,
		XDNADispatch: 50 * time.Microsecond,
		HostToGPU:    1500 * time.Nanosecond,
		NPUDMALine:   2 * time.Microsecond,
		Completion:   2 * time.Microsecond,
	}
}

// TimingFigures names every figure of Timing, in a stable order, for
// overrides by name ("aql_dispatch", ...).
var TimingFigures = []string{"aql_dispatch", "pm4_dispatch", "xdna_dispatch", "host_to_gpu", "npu_dma_line", "completion"}

// Figure returns a pointer to the named figure, or an Invalid error.
func (t *Timing) Figure(name string) (*time.Duration, error) {
	switch name {
	case "aql_dispatch":
		return &t.AQLDispatch, nil
	case "pm4_dispatch":
		return &t.PM4Dispatch, nil
	case "xdna_dispatch":
		return &t.XDNADispatch, nil
	case "host_to_gpu":
		return &t.HostToGPU, nil
	case "npu_dma_line":
		return &t.NPUDMALine, nil
	case "completion":
		return &t.Completion, nil
	}
	return nil, Errorf(KindInvalid, "timing", "unknown timing figure %q; figures are %v", name, TimingFigures)
}

// TimingProfile returns the named profile, "ideal" or "published".
func TimingProfile(name string) (Timing, error) {
	switch name {
	case "ideal":
		return IdealTiming(), nil
	case "published":
		return PublishedTiming(), nil
	}
	return Timing{}, Errorf(KindInvalid, "timing", "unknown timing profile %q; use \"ideal\" or \"published\"", name)
}

func (t Timing) dispatch(c Command) time.Duration {
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

// String lists every figure.
func (t Timing) String() string {
	return fmt.Sprintf("aql_dispatch=%v pm4_dispatch=%v xdna_dispatch=%v host_to_gpu=%v npu_dma_line=%v completion=%v",
		t.AQLDispatch, t.PM4Dispatch, t.XDNADispatch, t.HostToGPU, t.NPUDMALine, t.Completion)
}

// validate refuses a negative figure, which would start or wake a program
// before the moment that asks for it.
func (t *Timing) validate() error {
	for _, name := range TimingFigures {
		if d, _ := t.Figure(name); *d < 0 {
			return Errorf(KindInvalid, "timing", "timing figure %s is %v; give zero or more", name, *d)
		}
	}
	return nil
}
