package cuda

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
)

// Without the driver library, Open fails with an Unsupported error that
// names the library and says what to install.
func TestOpenWithoutTheDriverSaysWhichLibraryIsMissing(t *testing.T) {
	_, err := open("libcuda-not-installed.so.1")
	if !errors.Is(err, devices.ErrUnsupported) {
		t.Fatalf("open = %v, want an Unsupported error", err)
	}
	for _, want := range []string{"libcuda-not-installed.so.1 was not found", "install"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// On a machine without a CUDA GPU (CI), Open fails with an Unsupported
// error naming what was missing; on one with a GPU it describes it.
func TestOpenSaysWhatWasMissingOrDescribesTheGPU(t *testing.T) {
	g, err := Open()
	if err != nil {
		if !errors.Is(err, devices.ErrUnsupported) {
			t.Fatalf("Open = %v, want an Unsupported error", err)
		}
		if !strings.Contains(err.Error(), "libcuda.so.1") && !strings.Contains(err.Error(), "no CUDA GPU") {
			t.Errorf("error %q names neither the driver library nor a missing GPU", err)
		}
		return
	}
	defer g.Close()
	if d := g.Describe(); !strings.HasPrefix(d, "cuda: ") || !strings.Contains(d, "(sm_") {
		t.Errorf("Describe = %q, want \"cuda: NAME (sm_XY)\"", d)
	}
}

func TestCStringStopsAtTheFirstNUL(t *testing.T) {
	for in, want := range map[string]string{"H200\x00junk": "H200", "": "", "no nul": "no nul"} {
		if got := cString([]byte(in)); got != want {
			t.Errorf("cString(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDriverErrorsNameTheResult(t *testing.T) {
	for code, want := range map[uintptr]string{
		100:   "cuInit failed: CUDA_ERROR_NO_DEVICE (100)",
		12345: "cuInit failed: CUresult (12345)",
	} {
		if got := result("cuInit", code).Error(); got != want {
			t.Errorf("result(%d) = %q, want %q", code, got, want)
		}
	}
	if result("cuInit", 0) != nil {
		t.Error("CUDA_SUCCESS is an error")
	}
}

// The embedded PTX holds both kernels the backend launches, for the oldest
// target Open accepts (sm_75), which the driver compiles for any newer GPU.
func TestEmbeddedPTXHasBothKernels(t *testing.T) {
	ptx := string(kernelsPTX)
	for _, want := range []string{".target sm_75", ".entry resident_exchange(", ".entry ping_pong(", "ld.acquire.sys.global.u32", "st.release.sys.global.u32", "%globaltimer"} {
		if !strings.Contains(ptx, want) {
			t.Errorf("kernels.ptx lacks %q; regenerate it from kernels.cu with the command in that file", want)
		}
	}
}

// The kernel's clock and the host's drift apart: aligning twice, a second
// apart, shows by how much, which is why Launch aligns them again every
// realignEvery.
func TestClockDriftBetweenAlignments(t *testing.T) {
	g, err := Open()
	if err != nil {
		t.Skipf("skipped: this test needs a CUDA GPU: %v", err)
	}
	defer g.Close()
	epoch := time.Now()
	if err := g.Attach(func() time.Duration { return time.Since(epoch) }); err != nil {
		t.Fatal(err)
	}
	first := g.clockOffset.Load()
	time.Sleep(time.Second)
	g.mu.Lock()
	err = g.align(calibrationRounds)
	g.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	drift := time.Duration(g.clockOffset.Load() - first)
	t.Logf("the kernel's clock drifted %v against the host's in one second", drift)
	if drift > time.Millisecond || drift < -time.Millisecond {
		t.Errorf("drift of %v in a second: the alignment is wrong", drift)
	}
}
