package luaapi

import (
	"errors"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/programs/exchange"
	"github.com/residentlua/residentlua/programs/kernel"
)

// The tests register fake hardware backends, as backends/cuda registers
// "cuda" when a program imports it: luaapi itself links none.
func init() {
	backend.Register("fake", fakeBackend{})
	backend.Register("fake-absent", fakeBackend{absent: true})
}

// fakeBackend opens a stubGPU, or fails as a backend whose hardware is
// missing does.
type fakeBackend struct{ absent bool }

func (b fakeBackend) Open() (backend.Accelerator, error) {
	if b.absent {
		return nil, failure.Errorf(failure.Unsupported, "fake", "no fake GPU is present")
	}
	return stubGPU{}, nil
}

// A script asks for a registered hardware backend by name: the fabric runs
// in real time and names the hardware. Where the hardware is missing, the
// backend's unsupported error reaches the script, which goes on with the
// fabric it had.
func TestFabricWithARegisteredBackend(t *testing.T) {
	h := sim(t)
	h.run(`r = resident.fabric{mode = "realtime", gpu = {backend = "fake"}}`)
	if mode, gpu := h.str("r.mode"), h.str("r.gpu"); mode != "realtime" || gpu != "stub: test GPU" {
		t.Errorf("fabric mode %q, gpu %q; want realtime and the backend's GPU", mode, gpu)
	}
	h.run(`ok, r = pcall(resident.fabric, {mode = "realtime", gpu = {backend = "fake-absent"}})`)
	if got := h.str("tostring(r)"); h.eval("ok").String() != "false" || got != "unsupported: fake: no fake GPU is present" {
		t.Errorf("fabric on absent hardware: %s, want the backend's unsupported error", got)
	}
	if got := h.str("resident.fabric().gpu"); got != "stub: test GPU" {
		t.Errorf("after the failure the fabric's GPU is %q, want the one it had", got)
	}
}

// A kernel's own clock readings (kernel.Clocked) reach its participant's
// stats; the other participant's stats have none.
func TestStatsCarryTheKernelsOwnClock(t *testing.T) {
	var line timeline
	line.kernels[0] = kernelTimes{
		observed: event.Stamp{At: 3 * time.Microsecond, Set: true},
		retired:  event.Stamp{At: 40 * time.Microsecond, Set: true},
	}
	var st SessionStats
	line.fill(&st)
	if st.GPU.KernelObserved == nil || *st.GPU.KernelObserved != 3e-6 || st.GPU.KernelRetired == nil || *st.GPU.KernelRetired != 40e-6 {
		t.Errorf("GPU stats %+v, want the kernel observed at 3µs and retired at 40µs", st.GPU)
	}
	if st.NPU.KernelObserved != nil || st.NPU.KernelRetired != nil {
		t.Errorf("NPU stats %+v carry kernel times", st.NPU)
	}
}

// stubGPU is an accelerator that is never asked to run anything. Like a
// real GPU, it refuses payload.corrupt.
type stubGPU struct{}

func (stubGPU) UnsupportedFault(site fault.Site) string {
	if site == exchange.PayloadCorrupt {
		return "the kernel writes the slots itself; see docs/faults.md"
	}
	return ""
}
func (stubGPU) Describe() string                           { return "stub: test GPU" }
func (stubGPU) Attach(func() time.Duration) error          { return nil }
func (stubGPU) Map(size int) (*memory.Region, error)       { return memory.Map(size) }
func (stubGPU) Load([]byte, string) (kernel.Module, error) { return nil, errors.New("stub") }
func (stubGPU) Reset() error                               { return nil }
func (stubGPU) Close() error                               { return nil }

// On a real GPU the kernel writes the slots, so payload.corrupt cannot fire:
// the fabric refuses it with the accelerator's reason (backend.FaultSupport),
// and the fabric names the GPU.
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
	want := "invalid: fault: payload.corrupt does not apply to a real GPU (stub: test GPU): the kernel writes the slots itself; see docs/faults.md"
	if got := h.fails(`resident.fault("payload.corrupt", "flip")`); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	h.run(`resident.fault("payload.corrupt", "off"); resident.fault("gpu.run", "hang")`)
}

// A session of a new fabric with the id of one of the fabric it replaced
// has only its own steps recorded.
func TestNextFabricsSessionsStartWithNoSteps(t *testing.T) {
	h := newHarness(t, Options{Config: simConfig(), Globals: true})
	h.run(`local s = startup{}; s:submit_gpu(); s:submit_npu(); s:start(); s:wait(1); first = s:stats().id; s:close()
	resident.fabric{mode = "sim", seed = 7}
	second = startup{}; second:submit_gpu()`)
	if first, second := h.str("first"), h.str("second:stats().id"); first != second {
		t.Fatalf("the second fabric's first session has id %s, the first's %s: the test needs them equal", second, first)
	}
	for _, step := range []string{"decided", "npu.accepted", "gpu.observed", "gpu.retired", "npu.retired"} {
		if got := h.str("tostring(second:stats()." + step + ")"); got != "nil" {
			t.Errorf("a new session's %s is %s, want nil: the old fabric's timeline leaked", step, got)
		}
	}
}
