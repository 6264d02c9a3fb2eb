package bench

import (
	"errors"
	"strings"
	"testing"

	_ "github.com/residentlua/residentlua/backends/cuda" // registers "cuda", as cmd/residentbench does
	"github.com/residentlua/residentlua/devices/failure"
)

// Without a CUDA GPU (CI) the GPU figures fail as unsupported; with one the
// quick run measures every figure beside the minimal ping-pong.
func TestRunBackendCUDA(t *testing.T) {
	figures, err := RunBackend(Options{Short: true}, "cuda")
	if err != nil {
		if !errors.Is(err, failure.Unsupported) {
			t.Fatalf("RunBackend(cuda) = %v, want an Unsupported error without a GPU", err)
		}
		return
	}
	if want := 8 + len(lifecycleSteps); len(figures) != want {
		t.Fatalf("%d figures, want %d", len(figures), want)
	}
	floors := map[string]bool{
		"GPU: minimal ping-pong round trip (the floor)":        true,
		"GPU: empty kernel, launch to observed completion":     true,
		"GPU: lifecycle floor (empty launch + one round trip)": true,
	}
	var steps, whole float64
	for _, f := range figures {
		if !(f.Value.Median > 0) || (f.Baseline == nil) != floors[f.Name] {
			t.Errorf("figure %+v: want a positive value, beside a floor unless it is one", f)
		}
		switch {
		case strings.HasPrefix(f.Name, "GPU: lifecycle step: "):
			steps += f.Value.Median
		case f.Name == "GPU: whole lifecycle, rounds 1 (open to close)":
			whole = f.Value.Median
		}
		t.Log(f.Row())
	}
	// The steps' medians add up to about the whole's (each median is of
	// its own step, so the sum is not exact).
	if whole == 0 || steps < whole/3 || steps > 3*whole {
		t.Errorf("the steps' medians add up to %.3g µs beside a whole lifecycle of %.3g µs", steps, whole)
	}
}

// RunBackend measures real hardware only, found by its registered name.
func TestRunBackendNeedsARegisteredHardwareBackend(t *testing.T) {
	if _, err := RunBackend(Options{Short: true}, "sim"); !errors.Is(err, failure.Invalid) {
		t.Errorf("RunBackend(sim) = %v, want invalid: use Run", err)
	}
	if _, err := RunBackend(Options{Short: true}, "rocm"); !errors.Is(err, failure.Invalid) || !strings.Contains(err.Error(), `unknown GPU backend "rocm"; use "sim" or "cuda"`) {
		t.Errorf("RunBackend(rocm) = %v, want the unknown-backend error", err)
	}
}
