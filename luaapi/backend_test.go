package luaapi

import (
	"strings"
	"testing"
	"time"

	"residentlua/devices"
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
	f.Events().Emit(gpu.Actor(), session, devices.EvKernelObserve, 1, uint64(3*time.Microsecond), "")
	f.Events().Emit(gpu.Actor(), session, devices.EvKernelRetire, 1, uint64(40*time.Microsecond), "")
	var st SessionStats
	r.fill(session, gpu.Actor(), npu.Actor(), &st)
	if st.GPU.KernelObserved == nil || *st.GPU.KernelObserved != 3e-6 || st.GPU.KernelRetired == nil || *st.GPU.KernelRetired != 40e-6 {
		t.Errorf("GPU stats %+v, want the kernel observed at 3µs and retired at 40µs", st.GPU)
	}
	if st.NPU.KernelObserved != nil || st.NPU.KernelRetired != nil {
		t.Errorf("NPU stats %+v carry kernel times", st.NPU)
	}
}
