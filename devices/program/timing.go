package program

import (
	"fmt"
	"time"
)

// TimingFigures names every figure of Timing, in a stable order, for
// overrides by name ("aql_dispatch", ...).
var TimingFigures = []string{"aql_dispatch", "pm4_dispatch", "xdna_dispatch", "host_to_gpu", "npu_dma_line", "completion"}

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
	}
	return nil, false
}

// String lists every figure.
func (t Timing) String() string {
	return fmt.Sprintf("aql_dispatch=%v pm4_dispatch=%v xdna_dispatch=%v host_to_gpu=%v npu_dma_line=%v completion=%v",
		t.AQLDispatch, t.PM4Dispatch, t.XDNADispatch, t.HostToGPU, t.NPUDMALine, t.Completion)
}
