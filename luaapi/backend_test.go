package luaapi

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/devices/memory"
)

// A script asks for the real GPU. Without the driver or a GPU (CI) that is
// an unsupported error saying which was missing, and the script goes on
// with the fabric it had; with one, the fabric runs in real time and names
// the GPU.
func TestFabricWithTheCUDABackend(t *testing.T) {
	h := sim(t)
	h.run(`ok, r = pcall(resident.fabric, {gpu = {backend = "cuda"}})`)
	if h.eval("ok").String() == "false" {
		msg := h.str("r")
		if !strings.HasPrefix(msg, "unsupported: ") || (!strings.Contains(msg, "libcuda.so.1") && !strings.Contains(msg, "no CUDA GPU")) {
			t.Fatalf("error %q: want unsupported, naming the driver library or the missing GPU", msg)
		}
		if got := h.str("resident.fabric().gpu"); got != "sim" {
			t.Errorf("after the failure the fabric's GPU is %q, want the simulated one kept", got)
		}
		return
	}
	if mode, gpu := h.str("r.mode"), h.str("r.gpu"); mode != "realtime" || !strings.HasPrefix(gpu, "cuda: ") {
		t.Errorf("fabric mode %q, gpu %q; want realtime and the CUDA GPU", mode, gpu)
	}
}

func TestAnUnknownBackendOptionIsInvalid(t *testing.T) {
	if _, err := newFabric(simConfig(), "rocm"); err == nil || !strings.Contains(err.Error(), `unknown GPU backend "rocm"; use "sim" or "cuda"`) {
		t.Errorf("newFabric(rocm) = %v, want the unknown-backend error", err)
	}
}

// The kernel's own clock readings, which a real GPU's events carry, reach
// the GPU's stats; a simulated GPU's stats have none.
func TestStatsCarryTheKernelsOwnClock(t *testing.T) {
	f, err := devices.NewFabric(simConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := newRecorder(f)
	defer r.stop()
	gpu, npu := f.First(devices.GPU), f.First(devices.NPU)
	const session = 9
	f.Events().Emit(gpu.Actor(), session, exchange.EvKernelObserve, 1, uint64(3*time.Microsecond), "")
	f.Events().Emit(gpu.Actor(), session, exchange.EvKernelRetire, 1, uint64(40*time.Microsecond), "")
	var st SessionStats
	line := r.timeline(session)
	line.fill(gpu.Actor(), npu.Actor(), &st)
	if st.GPU.KernelObserved == nil || *st.GPU.KernelObserved != 3e-6 || st.GPU.KernelRetired == nil || *st.GPU.KernelRetired != 40e-6 {
		t.Errorf("GPU stats %+v, want the kernel observed at 3µs and retired at 40µs", st.GPU)
	}
	if st.NPU.KernelObserved != nil || st.NPU.KernelRetired != nil {
		t.Errorf("NPU stats %+v carry kernel times", st.NPU)
	}
}

// stubGPU is an accelerator that is never asked to run anything.
type stubGPU struct{}

func (stubGPU) Describe() string                                      { return "stub: test GPU" }
func (stubGPU) Attach(func() time.Duration) error                     { return nil }
func (stubGPU) Map(size int) (*memory.Region, error)                  { return memory.Map(size) }
func (stubGPU) Launch(exchange.KernelLaunch) (exchange.Kernel, error) { return nil, errors.New("stub") }
func (stubGPU) Reset() error                                          { return nil }
func (stubGPU) Close() error                                          { return nil }

// On a real GPU the kernel writes the slots, so payload.corrupt cannot fire:
// setting it is refused with the reason, and the fabric names the GPU.
func TestPayloadCorruptIsRefusedOnARealGPU(t *testing.T) {
	devs := devices.DefaultDevices()
	devs[0].Accelerator = stubGPU{}
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := newHarness(t, Options{Fabric: f, Globals: true})
	if got := h.str("resident.fabric().gpu"); got != "stub: test GPU" {
		t.Errorf("fabric gpu %q, want the accelerator's description", got)
	}
	want := "invalid: payload.corrupt does not apply to a real GPU (stub: test GPU): the kernel writes the slots itself; see docs/faults.md"
	if got := h.fails(`resident.fault("payload.corrupt", "flip")`); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	h.run(`resident.fault("payload.corrupt", "off"); resident.fault("gpu.run", "hang")`)
}
