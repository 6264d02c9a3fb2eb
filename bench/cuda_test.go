package bench

import (
	"errors"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
	_ "github.com/residentlua/residentlua/devices/cuda" // registers "cuda", as cmd/residentbench does
)

// Without a CUDA GPU (CI) the GPU figures fail as unsupported; with one the
// quick run measures every figure beside the minimal ping-pong.
func TestRunBackendCUDA(t *testing.T) {
	figures, err := RunBackend(Options{Short: true}, "cuda")
	if err != nil {
		if !errors.Is(err, devices.ErrUnsupported) {
			t.Fatalf("RunBackend(cuda) = %v, want an Unsupported error without a GPU", err)
		}
		return
	}
	if len(figures) != 6 {
		t.Fatalf("%d figures, want 6", len(figures))
	}
	for _, f := range figures {
		if !(f.Value.Median > 0) || (f.Baseline == nil) != (f.Name == "GPU: minimal ping-pong round trip (the floor)") {
			t.Errorf("figure %+v: want a positive value beside the raw round trip", f)
		}
		t.Log(f.Row())
	}
}

// RunBackend measures real hardware only, found by its registered name.
func TestRunBackendNeedsARegisteredHardwareBackend(t *testing.T) {
	if _, err := RunBackend(Options{Short: true}, "sim"); !errors.Is(err, devices.ErrInvalid) {
		t.Errorf("RunBackend(sim) = %v, want invalid: use Run", err)
	}
	if _, err := RunBackend(Options{Short: true}, "rocm"); !errors.Is(err, devices.ErrInvalid) || !strings.Contains(err.Error(), `unknown GPU backend "rocm"; use "sim" or "cuda"`) {
		t.Errorf("RunBackend(rocm) = %v, want the unknown-backend error", err)
	}
}
