package cuda_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/backends/cuda"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
	"github.com/residentlua/residentlua/programs/kernel"
)

// These tests drive the resident session with the GPU half as a real
// kernel. They need an NVIDIA GPU and skip without one; run them where one
// is (docs/cuda.md says how).

// gpuWait is a generous real-time deadline: the assertions are about order
// and outcomes, never speed.
const gpuWait = 20 * time.Second

// gpuFabric opens the GPU and makes a real-time fabric with it as gpu0 and
// the simulated NPU as npu0, with the oracle watching.
func gpuFabric(t *testing.T) (*devices.Fabric, *oracle.Oracle) {
	t.Helper()
	g, err := cuda.Open()
	if err != nil {
		t.Skipf("skipped: this test needs a CUDA GPU: %v", err)
	}
	devs := devices.DefaultDevices()
	devs[0].Accelerator = g
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Devices: devs})
	if err != nil {
		g.Close()
		t.Fatalf("NewFabric: %v", err)
	}
	o := oracle.New(f)
	t.Cleanup(func() {
		o.Stop()
		f.Close()
		for _, v := range o.Violations() {
			t.Errorf("oracle: %v", v)
		}
	})
	return f, o
}

func pair(f *devices.Fabric) (gpu, npu *devices.Device) {
	return f.First(devices.GPU), f.First(devices.NPU)
}

func session(t *testing.T, f *devices.Fabric, cfg exchange.Config) *engine.Session {
	t.Helper()
	gpu, npu := pair(f)
	s, err := engine.Open(gpu, npu, exchange.Programs(cfg))
	if err != nil {
		t.Fatalf("NewExchangeSession: %v", err)
	}
	t.Cleanup(func() {
		// A failed test may leave the session running: quarantine it and
		// free both devices, so the next test starts clean.
		if s.CloseWithin(context.Background(), 100*time.Millisecond) == engine.Quarantined {
			gpu.Reset()
			npu.Reset()
		}
	})
	return s
}

func started(t *testing.T, s *engine.Session) {
	t.Helper()
	if err := s.SubmitGPU(); err != nil {
		t.Fatalf("SubmitGPU: %v", err)
	}
	if err := s.SubmitNPU(); err != nil {
		t.Fatalf("SubmitNPU: %v", err)
	}
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
}

func events(f *devices.Fabric, id uint64, kind program.EventKind, actor event.Actor) []event.Event {
	return f.Events().Events(func(e *event.Event) bool {
		return e.Session == id && e.Kind == kind && e.Actor == actor
	})
}

func setFault(t *testing.T, f *devices.Fabric, site, term string) {
	t.Helper()
	s, err := fault.ParseSite(site)
	if err == nil {
		err = f.Faults().Set(s, term)
	}
	if err != nil {
		t.Fatalf("fault %s=%s: %v", site, term, err)
	}
}

// The whole lifecycle on the real GPU: the kernel observes RUN (and says
// when, by its own clock), the exchange verifies and the session retires.
func TestLifecycleOnTheGPU(t *testing.T) {
	f, o := gpuFabric(t)
	gpu, _ := pair(f)
	s := session(t, f, exchange.Default())
	started(t, s)
	if ok, err := s.Wait(gpuWait); !ok || err != nil {
		t.Fatalf("Wait = %v, %v; want both retired", ok, err)
	}
	if v, _ := exchange.Of(s.NPU()).Verification(); !v.OK {
		t.Fatalf("verification failed: %s", v.Problem)
	}
	obs := events(f, s.ID(), program.EvObserve, gpu.Actor())
	kobs := events(f, s.ID(), kernel.EvObserve, gpu.Actor())
	kret := events(f, s.ID(), kernel.EvRetire, gpu.Actor())
	if len(obs) != 1 || obs[0].B != uint64(program.StartupRun) || len(kobs) != 1 || len(kret) != 1 {
		t.Fatalf("GPU events: observe %v, kernel.observe %v, kernel.retire %v; want one each, RUN observed", obs, kobs, kret)
	}
	decided := f.Events().Events(func(e *event.Event) bool { return e.Session == s.ID() && e.Kind == oracle.EvDecide })
	observedAt, retiredAt := time.Duration(kobs[0].B), time.Duration(kret[0].B)
	// The kernel's clock is aligned to within a round trip, so allow a few µs.
	if observedAt < decided[0].Time-10*time.Microsecond || retiredAt < observedAt {
		t.Errorf("decided at %v, kernel observed at %v, retired at %v: want decide ≤ observe ≤ retire", decided[0].Time, observedAt, retiredAt)
	}
	t.Logf("%s: the kernel observed RUN %v after the decision", gpu.Accelerator().Describe(), observedAt-decided[0].Time)
	if out := s.Close(); out != engine.Retired {
		t.Fatalf("Close = %v, want retired", out)
	}
	if err := o.CheckSettled(); err != nil {
		t.Error(err)
	}
}

// The exchange verifies on the real GPU for every shape of the acceptance
// matrix.
func TestExchangeMatrixOnTheGPU(t *testing.T) {
	f, _ := gpuFabric(t)
	for _, rounds := range []int{1, 7, 1000} {
		for _, credits := range []int{1, 4} {
			for _, slot := range []int{8, 4096} {
				cfg := exchange.Config{Rounds: rounds, Credits: credits, SlotBytes: slot, GPUQueue: devices.AQL}
				t.Run(fmt.Sprintf("rounds=%d/credits=%d/slot=%d", rounds, credits, slot), func(t *testing.T) {
					s := session(t, f, cfg)
					started(t, s)
					if ok, err := s.Wait(gpuWait); !ok || err != nil {
						t.Fatalf("Wait = %v, %v; want both retired", ok, err)
					}
					if v, _ := exchange.Of(s.NPU()).Verification(); !v.OK || v.Verified != rounds {
						t.Fatalf("verification: %+v", v)
					}
					if out := s.Close(); out != engine.Retired {
						t.Fatalf("Close = %v, want retired", out)
					}
				})
			}
		}
	}
}

// Partial admission: the NPU's dispatch is rejected after the GPU kernel was
// launched, so ABORT is published; the kernel observes it and retires
// without touching the payload.
func TestPartialAdmissionAbortsTheKernel(t *testing.T) {
	f, o := gpuFabric(t)
	gpu, _ := pair(f)
	setFault(t, f, "npu.dispatch", "error(npu busy)")
	s := session(t, f, exchange.Config{Rounds: 3, Credits: 1, SlotBytes: 64, GPUQueue: devices.AQL})
	if err := s.SubmitGPU(); err != nil {
		t.Fatalf("SubmitGPU: %v", err)
	}
	if err := s.SubmitNPU(); err == nil {
		t.Fatal("SubmitNPU succeeded; want the injected rejection")
	}
	if d := s.Decision(); d != oracle.StartupAbort {
		t.Fatalf("decision %d, want ABORT", d)
	}
	if ok, err := s.Wait(gpuWait); !ok || err != nil {
		t.Fatalf("Wait = %v, %v; want the GPU retired", ok, err)
	}
	obs := events(f, s.ID(), program.EvObserve, gpu.Actor())
	if len(obs) != 1 || obs[0].B != uint64(program.StartupAbort) {
		t.Fatalf("GPU observed %v, want ABORT once", obs)
	}
	payload := exchange.Of(s.NPU()).Payload()
	for off := 0; off < payload.Region().Len(); off += 4 {
		if v := payload.HostLoad(off); v != 0 {
			t.Fatalf("payload word at %d is %#x after ABORT; the kernel must not touch it", off, v)
		}
	}
	if out := s.Close(); out != engine.Retired {
		t.Fatalf("Close = %v, want retired", out)
	}
	if err := o.CheckSettled(); err != nil {
		t.Error(err)
	}
}

// Abort before start: the kernel observes ABORT and retires.
func TestAbortReachesTheKernel(t *testing.T) {
	f, _ := gpuFabric(t)
	gpu, _ := pair(f)
	s := session(t, f, exchange.Default())
	if err := s.SubmitGPU(); err != nil {
		t.Fatal(err)
	}
	if err := s.SubmitNPU(); err != nil {
		t.Fatal(err)
	}
	if err := s.Abort(); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	if ok, err := s.Wait(gpuWait); !ok || err != nil {
		t.Fatalf("Wait = %v, %v; want both retired", ok, err)
	}
	if obs := events(f, s.ID(), program.EvObserve, gpu.Actor()); len(obs) != 1 || obs[0].B != uint64(program.StartupAbort) {
		t.Fatalf("GPU observed %v, want ABORT once", obs)
	}
	if out := s.Close(); out != engine.Retired {
		t.Fatalf("Close = %v, want retired", out)
	}
}

// A skipped publication: the coherent GPU kernel sees RUN, the NPU never
// does, so the wait times out, Close quarantines, and resetting both
// devices (which tears the kernel's context down) releases the memory.
func TestSkippedPublicationQuarantinesAndResetFreesTheGPU(t *testing.T) {
	f, o := gpuFabric(t)
	gpu, npu := pair(f)
	setFault(t, f, "host.publish", "skip")
	s := session(t, f, exchange.Config{Rounds: 4, Credits: 1, SlotBytes: 64, GPUQueue: devices.AQL})
	started(t, s)
	if ok, err := s.Wait(200 * time.Millisecond); ok || err != nil {
		t.Fatalf("Wait = %v, %v; want a timeout", ok, err)
	}
	if obs := events(f, s.ID(), program.EvObserve, gpu.Actor()); len(obs) != 1 || obs[0].B != uint64(program.StartupRun) {
		t.Errorf("GPU observed %v, want RUN once (it is coherent)", obs)
	}
	if obs := events(f, s.ID(), program.EvObserve, npu.Actor()); len(obs) != 0 {
		t.Errorf("the NPU observed %v without a release", obs)
	}
	quarantineThenReset(t, f, s)
	f.Faults().Clear()
	reusable(t, f)
	if err := o.CheckSettled(); err != nil {
		t.Error(err)
	}
}

// A hung kernel (gpu.run hang: it never observes the line) ends quarantined;
// reset tears the context down, frees the device and releases the memory,
// and the next session runs on the new context.
func TestHungKernelQuarantinesThenResetFreesTheGPU(t *testing.T) {
	f, o := gpuFabric(t)
	gpu, _ := pair(f)
	setFault(t, f, "gpu.run", "hang")
	s := session(t, f, exchange.Default())
	started(t, s)
	if ok, err := s.Wait(200 * time.Millisecond); ok || err != nil {
		t.Fatalf("Wait = %v, %v; want a timeout", ok, err)
	}
	if obs := events(f, s.ID(), program.EvObserve, gpu.Actor()); len(obs) != 0 {
		t.Errorf("the hung kernel observed %v", obs)
	}
	quarantineThenReset(t, f, s)
	f.Faults().Clear()
	reusable(t, f)
	if err := o.CheckSettled(); err != nil {
		t.Error(err)
	}
}

// gpu.run crash: the kernel retires with an error once it observes RUN, so
// the NPU never gets a generation; the session reports the device error,
// ends quarantined, and resets free both devices.
func TestCrashedKernelReportsADeviceError(t *testing.T) {
	f, _ := gpuFabric(t)
	setFault(t, f, "gpu.run", "crash(ecc error)")
	s := session(t, f, exchange.Default())
	started(t, s)
	if ok, err := s.Wait(200 * time.Millisecond); ok || err == nil || !strings.Contains(err.Error(), "gpu0 crashed: ecc error") {
		t.Fatalf("Wait = %v, %v; want the crash reported while the NPU still waits", ok, err)
	}
	quarantineThenReset(t, f, s)
}

// gpu.dispatch error: the kernel is never launched, the NPU is never
// dispatched, and nothing is left occupied.
func TestRejectedGPUDispatchLaunchesNothing(t *testing.T) {
	f, _ := gpuFabric(t)
	gpu, _ := pair(f)
	setFault(t, f, "gpu.dispatch", "error(no queue)")
	s := session(t, f, exchange.Default())
	if err := s.SubmitGPU(); err == nil || !strings.Contains(err.Error(), "no queue") {
		t.Fatalf("SubmitGPU = %v, want the injected rejection", err)
	}
	if n := len(events(f, s.ID(), event.EvStart, gpu.Actor())); n != 0 {
		t.Errorf("%d GPU starts after a rejected dispatch", n)
	}
	if out := s.Close(); out != engine.Retired {
		t.Fatalf("Close = %v, want retired", out)
	}
	if gpu.Occupied() {
		t.Error("the GPU is occupied after a rejected dispatch")
	}
}

func quarantineThenReset(t *testing.T, f *devices.Fabric, s *engine.Session) {
	t.Helper()
	gpu, npu := pair(f)
	if out := s.CloseWithin(t.Context(), 100*time.Millisecond); out != engine.Quarantined {
		t.Fatalf("Close = %v, want quarantined", out)
	}
	if q := f.Quarantines(); len(q) != 1 || !gpu.Occupied() {
		t.Fatalf("quarantines %+v, GPU occupied %v; want one holding the GPU", q, gpu.Occupied())
	}
	gpu.Reset()
	npu.Reset()
	if resets := f.Events().Events(func(e *event.Event) bool { return e.Kind == event.EvReset && e.B != 0 }); len(resets) != 0 {
		t.Fatalf("a reset failed: %v", resets)
	}
	if q := f.Quarantines(); len(q) != 0 || gpu.Occupied() || npu.Occupied() {
		t.Fatalf("after both resets: quarantines %+v, occupied %v/%v; want none", q, gpu.Occupied(), npu.Occupied())
	}
}

// reusable runs a clean session: the GPU works again after a reset.
func reusable(t *testing.T, f *devices.Fabric) {
	t.Helper()
	s := session(t, f, exchange.Config{Rounds: 7, Credits: 4, SlotBytes: 64, GPUQueue: devices.AQL})
	started(t, s)
	if ok, err := s.Wait(gpuWait); !ok || err != nil {
		t.Fatalf("after reset: Wait = %v, %v; want both retired", ok, err)
	}
	if v, _ := exchange.Of(s.NPU()).Verification(); !v.OK {
		t.Fatalf("after reset: verification failed: %s", v.Problem)
	}
	if out := s.Close(); out != engine.Retired {
		t.Fatalf("after reset: Close = %v, want retired", out)
	}
}

// Both raw round trips through mapped memory work: the minimal ping-pong
// and the one whose kernel writes its clock before each answer.
func TestRoundTripsThroughMappedMemory(t *testing.T) {
	g, err := cuda.Open()
	if err != nil {
		t.Skipf("skipped: this test needs a CUDA GPU: %v", err)
	}
	defer g.Close()
	for name, measure := range map[string]func(int) ([]time.Duration, error){"minimal": g.RoundTrips, "clocked": g.ClockedRoundTrips, "empty launch": g.EmptyLaunches} {
		trips, err := measure(1000)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(trips) != 1000 || trips[0] <= 0 || trips[0] > trips[len(trips)-1] {
			t.Fatalf("%s round trips: %d, first %v, last %v; want 1000 sorted positive", name, len(trips), trips[0], trips[len(trips)-1])
		}
		t.Logf("%s host ↔ kernel round trip: median %v, min %v", name, trips[len(trips)/2], trips[0])
	}
}
