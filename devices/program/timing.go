package program

import (
	"fmt"
	"time"
)

// TimingFigures names every figure of Timing, in a stable order, for
// overrides by name ("aql_dispatch", ...).
var TimingFigures = []string{"aql_dispatch", "pm4_dispatch", "xdna_dispatch", "host_to_gpu", "npu_dma_line", "completion", "stall"}

// Figure returns a pointer to the figure named name (one of
// TimingFigures), and false when there is none.
func (t *Timing) Figure(name string) (*time.Duration, bool) {
	switch name {
	case "aql_dispatch":
		return &t.AQLDispatch, true
	case "pm4_dispatch":
		return &t.PM4Dispatch, true
	case "xdna_dispatch":
		return &t.XDNADispatch, true
	case "host_to_gpu":
		return &t.HostToGPU, true
	case "npu_dma_line":
		return &t.NPUDMALine, true
	case "completion":
		return &t.Completion, true
	case "stall":
		return &t.Stall, true
	}
	return nil, false
}

// String lists every figure.
func (t Timing) String() string {
	return fmt.Sprintf("aql_dispatch=%v pm4_dispatch=%v xdna_dispatch=%v host_to_gpu=%v npu_dma_line=%v completion=%v stall=%v",
		t.AQLDispatch, t.PM4Dispatch, t.XDNADispatch, t.HostToGPU, t.NPUDMALine, t.Completion, t.Stall)
}

// ChargesMemory reports whether a program's memory operations take modelled
// time under t: a load or read of a line (HostToGPU on a coherent view,
// NPUDMALine on a non-coherent one), a drain, or a stall (docs/programs.md
// gives each operation's cost). A program that goes on through several
// operations within one Step (Env.Interleaved false) returns to the
// executor after each where it does, so that each operation's time passes
// before the next.
func (t Timing) ChargesMemory() bool {
	return t.HostToGPU > 0 || t.NPUDMALine > 0 || t.Stall > 0
}
