package cuda

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/failure"
)

// Without the driver library, Open fails with an Unsupported error that
// names the library and says what to install.
func TestOpenWithoutTheDriverSaysWhichLibraryIsMissing(t *testing.T) {
	_, err := open("libcuda-not-installed.so.1")
	if !errors.Is(err, failure.Unsupported) {
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
		if !errors.Is(err, failure.Unsupported) {
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

// The embedded PTX holds the two kernels of the backend's own, for the
// oldest target Open accepts (sm_75), which the driver compiles for any
// newer GPU, and nothing of a program: the exchange's kernel is loaded as a
// user's is (programs/exchange).
func TestEmbeddedPTXHasTheKernels(t *testing.T) {
	ptx := string(kernelsPTX)
	for _, want := range []string{".target sm_75", ".entry ping_pong(", ".entry ping_pong_clock(", "ld.acquire.sys.global.u32", "st.release.sys.global.u32", "%globaltimer"} {
		if !strings.Contains(ptx, want) {
			t.Errorf("kernels.ptx lacks %q; regenerate it from kernels.cu with the command in that file", want)
		}
	}
	if n := strings.Count(ptx, ".entry "); n != 2 {
		t.Errorf("kernels.ptx has %d entries, want ping_pong and ping_pong_clock only", n)
	}
	if strings.Contains(ptx, "exchange") {
		t.Error("kernels.ptx holds an exchange's kernel: the backend holds no program's kernel")
	}
	cu, err := os.ReadFile("kernels.cu")
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"resident_exchange", "ExchangeArgs"} {
		if strings.Contains(string(cu), gone) {
			t.Errorf("kernels.cu mentions %q: the backend holds no program's kernel", gone)
		}
	}
}

// Every kernel takes its arguments by value, in parameter space: none loads
// anything with a plain ld.global, which on mapped host memory is a PCIe
// round trip (a kernel that read its arguments through a pointer reloaded
// them after every acquire, and its round trip cost 1.9× the floor).
func TestKernelsReadOnlyTheWordsTheyShare(t *testing.T) {
	ptx := string(kernelsPTX)
	for _, kernel := range []string{"ping_pong", "ping_pong_clock"} {
		if !strings.Contains(ptx, ".entry "+kernel+"(\n\t.param .align 8 .b8 "+kernel+"_param_0[") {
			t.Errorf("%s does not take its argument block by value", kernel)
		}
	}
	if n := strings.Count(ptx, "ld.global"); n != 0 {
		t.Errorf("kernels.ptx has %d plain global loads; the kernels should read shared words only with ld.acquire.sys", n)
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

// The kernel's clock advances: readings of consecutive round trips never
// go back, and they do not all read the same. The smallest step between
// them is logged; it is at least a round trip (2.7 µs on an H200), so it
// only bounds the clock's tick from above.
func TestKernelClockAdvances(t *testing.T) {
	g, err := Open()
	if err != nil {
		t.Skipf("skipped: this test needs a CUDA GPU: %v", err)
	}
	defer g.Close()
	epoch := time.Now()
	g.mu.Lock()
	trips, err := g.pingPong(5000, func() time.Duration { return time.Since(epoch) }, true)
	g.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	step := uint64(math.MaxUint64)
	for i := 1; i < len(trips); i++ {
		prev, cur := trips[i-1].kernelClock, trips[i].kernelClock
		if cur < prev {
			t.Fatalf("trip %d: the kernel's clock went back from %d to %d", i, prev, cur)
		}
		if cur > prev {
			step = min(step, cur-prev)
		}
	}
	if step == math.MaxUint64 {
		t.Fatal("the kernel's clock never advanced over 5000 round trips")
	}
	t.Logf("smallest step of %%globaltimer between round trips: %d ns", step)
}

// Aligning on a kernel clock that ticks once a microsecond still places
// later kernel readings right, on average, within a fraction of a tick: the
// median over many fast trips carries the tick's mean rounding, which later
// readings share, where one fastest trip would carry a rounding of its own
// into every reading until the next alignment.
func TestAlignmentOffsetCancelsTheKernelClockTick(t *testing.T) {
	const trueOffset = 5_000_000_321 // ns: kernel clock minus host clock
	const tick = 1000                // ns between %globaltimer steps
	read := func(host int64) int64 { k := host + trueOffset; return k - k%tick }
	rng := rand.New(rand.NewPCG(1, 2))
	for alignment := 0; alignment < 20; alignment++ {
		trips := make([]trip, 200)
		for i := range trips {
			start := time.Duration(alignment*1_000_000 + i*10_000 + rng.IntN(1000))
			leg := 1200 + time.Duration(rng.IntN(400)) // ns each way: the midpoint is the truth
			trips[i] = trip{start: start, end: start + 2*leg, kernelClock: uint64(read(int64(start + leg)))}
		}
		offset := alignmentOffset(trips)
		var sum int64
		const events = 1000
		for range events {
			host := int64(rng.IntN(1 << 40))
			sum += read(host) - offset - host
		}
		if mean := sum / events; mean < -tick/4 || mean > tick/4 {
			t.Errorf("alignment %d: later readings are off by %d ns on average, want within a quarter tick", alignment, mean)
		}
	}
}
