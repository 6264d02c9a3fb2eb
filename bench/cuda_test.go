package bench

import (
	"errors"
	"testing"

	"github.com/residentlua/residentlua/devices"
)

// Without a CUDA GPU (CI) the GPU figures fail as unsupported; with one the
// quick run measures every figure beside the raw round trip.
func TestRunCUDA(t *testing.T) {
	figures, err := RunCUDA(Options{Short: true})
	if err != nil {
		if !errors.Is(err, devices.ErrUnsupported) {
			t.Fatalf("RunCUDA = %v, want an Unsupported error without a GPU", err)
		}
		return
	}
	if len(figures) != 5 {
		t.Fatalf("%d figures, want 5", len(figures))
	}
	for _, f := range figures {
		if !(f.Value.Median > 0) || (f.Baseline == nil) != (f.Name == "GPU: raw mapped-memory round trip") {
			t.Errorf("figure %+v: want a positive value beside the raw round trip", f)
		}
		t.Log(f.Row())
	}
}
