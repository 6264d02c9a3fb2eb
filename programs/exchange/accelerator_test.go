package exchange_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
	"github.com/residentlua/residentlua/programs/kernel"
)

// fakeGPU is an Accelerator and a kernel.Launcher whose "kernel" is a
// goroutine following programs/exchange/exchange_gpu.cu over plain mapped
// memory, so that the fabric's side of a real-hardware backend (pinned
// profile, loading and launch at dispatch, status watching, doorbell,
// reset and teardown) is tested without a GPU.
type fakeGPU struct {
	launchErr error // returned by Launch when set
	loadErr   error // returned by Load when set
	mu        sync.Mutex
	resetErr  error // returned by Reset when set
	resets    atomic.Int32
	loads     atomic.Int32
	closed    atomic.Bool
	stop      atomic.Bool
	kernels   sync.WaitGroup
}

func (g *fakeGPU) Describe() string                     { return "fake: test GPU" }
func (g *fakeGPU) Attach(func() time.Duration) error    { return nil }
func (g *fakeGPU) Map(size int) (*memory.Region, error) { return memory.Map(size) }
func (g *fakeGPU) Close() error                         { g.closed.Store(true); g.Reset(); return nil }

// Reset stops the kernels, unless it is set to fail: then, like hardware
// whose teardown failed, it leaves them running.
func (g *fakeGPU) Reset() error {
	g.resets.Add(1)
	g.mu.Lock()
	err := g.resetErr
	g.mu.Unlock()
	if err != nil {
		return err
	}
	g.stop.Store(true)
	g.kernels.Wait()
	g.stop.Store(false)
	return nil
}

func (g *fakeGPU) setResetErr(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.resetErr = err
}

// Load checks that it is given the exchange's kernel, as the backend would
// find its entry in the PTX.
func (g *fakeGPU) Load(ptx []byte, entry string) (kernel.Module, error) {
	g.loads.Add(1)
	if g.loadErr != nil {
		return nil, g.loadErr
	}
	if entry != "exchange_gpu" || !strings.Contains(string(ptx), ".entry "+entry+"(") {
		return nil, fmt.Errorf("the PTX has no kernel entry %q", entry)
	}
	return &fakeModule{g: g}, nil
}

type fakeModule struct{ g *fakeGPU }

type fakeKernel struct {
	observed, done atomic.Uint32
	checks         atomic.Int32
}

func (k *fakeKernel) Status() kernel.Status {
	return kernel.Status{Observed: k.observed.Load(), Done: kernel.Done(k.done.Load())}
}
func (k *fakeKernel) Check() (bool, error) { k.checks.Add(1); return false, nil }

func (m *fakeModule) Launch(b kernel.Block) (kernel.Running, error) {
	g := m.g
	if g.launchErr != nil {
		return nil, g.launchErr
	}
	if len(b.Buffers) != 1 || len(b.Values) != 3 || !b.AwaitStart {
		return nil, fmt.Errorf("the exchange's block has %d buffers, %d values, AwaitStart %v; want the payload, rounds, credits and slot bytes, awaiting the start", len(b.Buffers), len(b.Values), b.AwaitStart)
	}
	k := &fakeKernel{}
	g.kernels.Add(1)
	go func() {
		defer g.kernels.Done()
		k.done.Store(uint32(g.run(b, k)))
	}()
	return k, nil
}

// run is the kernel: poll the startup word, then produce every generation,
// its slots laid out as exchange_gpu.cu lays them out.
func (g *fakeGPU) run(b kernel.Block, k *fakeKernel) kernel.Done {
	wait := func(ready func() bool) bool {
		for !ready() {
			if g.stop.Load() {
				return false
			}
			runtime.Gosched()
		}
		return true
	}
	if b.Mode == kernel.ModeHang {
		wait(func() bool { return false })
		return kernel.DoneStopped
	}
	var seen uint32
	if !wait(func() bool {
		seen = b.Startup.Load(0)
		return seen == program.StartupRun || (seen == program.StartupAbort && b.Mode != kernel.ModeIgnoreAbort)
	}) {
		return kernel.DoneStopped
	}
	k.observed.Store(seen)
	if b.Mode == kernel.ModeCrash {
		return kernel.DoneCrashed
	}
	if seen == program.StartupAbort {
		return kernel.DoneOK
	}
	payload := b.Buffers[0]
	rounds, credits, slotBytes := int(b.Values[0]), int(b.Values[1]), int(b.Values[2])
	credit := (8 + slotBytes + 127) / 128 * 128
	stride := credit + 128
	for gen := 1; gen <= rounds; gen++ {
		base := (gen - 1) % credits * stride
		need := uint32(gen - credits)
		if gen > credits && !wait(func() bool { return payload.Load(base+credit) >= need }) {
			return kernel.DoneStopped
		}
		for i := 0; i < slotBytes/4; i++ {
			payload.Store(base+8+4*i, exchange.Pattern(b.Owner, gen, i))
		}
		payload.Store(base, uint32(gen))
	}
	return kernel.DoneOK
}

func fakeFabric(t *testing.T, g *fakeGPU) *devices.Fabric {
	t.Helper()
	devs := devices.DefaultDevices()
	devs[0].Accelerator = g
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	o := oracle.New(f)
	t.Cleanup(func() {
		o.Stop()
		f.Close()
		for _, v := range o.Violations() {
			t.Errorf("oracle: %v", v)
		}
	})
	return f
}

func fakeSession(t *testing.T, f *devices.Fabric, cfg exchange.Config) *engine.Session {
	t.Helper()
	s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fakeStarted submits both programs and publishes RUN.
func fakeStarted(t *testing.T, s *engine.Session) {
	t.Helper()
	for _, step := range []func() error{s.SubmitGPU, s.SubmitNPU, s.Start} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
}

// The session runs with the GPU half on the accelerator: memory comes from
// the pinned profile (GPU coherent, NPU not), the kernel's observation and
// retirement become events, and the exchange verifies.
func TestAcceleratedGPURunsTheExchange(t *testing.T) {
	f := fakeFabric(t, &fakeGPU{})
	gpu, npu := f.First(devices.GPU), f.First(devices.NPU)
	var line *devices.Buffer // the startup line, as Open hands it to the programs
	prepare := exchange.Programs(exchange.Config{Rounds: 50, Credits: 2, SlotBytes: 64, GPUQueue: devices.AQL})
	s, err := engine.Open(gpu, npu, func(l *devices.Buffer, g, n *devices.Device, owner uint64) (*devices.Prepared, *devices.Prepared, error) {
		line = l
		return prepare(l, g, n, owner)
	})
	if err != nil {
		t.Fatal(err)
	}
	aql, _ := gpu.Family(devices.AQL)
	xdna, _ := npu.Family(devices.XDNA)
	gc, nc := line.Profile().Coherent(gpu, aql), line.Profile().Coherent(npu, xdna)
	if line.Profile().Kind() != memory.Pinned || !gc || nc {
		t.Errorf("startup line from %s, GPU coherent %v, NPU coherent %v; want pinned, true, false", line.Profile().Kind(), gc, nc)
	}
	fakeStarted(t, s)
	if ok, err := s.Wait(time.Minute); !ok || err != nil {
		t.Fatalf("Wait = %v, %v", ok, err)
	}
	if v, _ := exchange.Of(s.NPU()).Verification(); !v.OK {
		t.Fatalf("verification: %s", v.Problem)
	}
	var clock [2]event.Stamp // the kernel's observation and retirement, by its events
	for i, kind := range []program.EventKind{program.EvObserve, kernel.EvObserve, kernel.EvRetire} {
		events := f.Events().Events(func(e *event.Event) bool { return e.Session == s.ID() && e.Kind == kind && e.Actor == gpu.Actor() })
		if len(events) != 1 {
			t.Errorf("%d %s events from the GPU, want 1", len(events), kind)
			continue
		}
		if i > 0 {
			clock[i-1] = event.Stamp{At: time.Duration(events[0].B), Set: true}
		}
	}
	if observed, retired := s.GPU().Program().(kernel.Clocked).KernelTimes(); observed != clock[0] || retired != clock[1] {
		t.Errorf("the kernel's times %v and %v, want those of its events, %v and %v", observed, retired, clock[0], clock[1])
	}
	if out := s.Close(); out != engine.Retired {
		t.Errorf("Close = %v", out)
	}
}

// A launch the hardware refuses is a rejected dispatch.
func TestAFailedLaunchRejectsTheDispatch(t *testing.T) {
	f := fakeFabric(t, &fakeGPU{launchErr: errors.New("out of streams")})
	s := fakeSession(t, f, exchange.Default())
	err := s.SubmitGPU()
	if !errors.Is(err, failure.Device) || !strings.Contains(err.Error(), "could not launch the kernel: out of streams") {
		t.Fatalf("SubmitGPU = %v, want the launch failure as a device error", err)
	}
	if out := s.Close(); out != engine.Retired {
		t.Errorf("Close = %v", out)
	}
}

// A hung kernel is quarantined; resetting the GPU tears the hardware down,
// and once both devices are reset the memory is released. While teardown
// fails, the GPU stays held and the memory stays quarantined.
func TestResetTearsTheAcceleratorDownAndKeepsMemoryWhileTeardownFails(t *testing.T) {
	g := &fakeGPU{}
	f := fakeFabric(t, g)
	gpu, npu := f.First(devices.GPU), f.First(devices.NPU)
	if err := f.Faults().Set(fault.GPURun, "hang"); err != nil {
		t.Fatal(err)
	}
	s := fakeSession(t, f, exchange.Default())
	fakeStarted(t, s)
	if out := s.CloseWithin(context.Background(), 50*time.Millisecond); out != engine.Quarantined {
		t.Fatalf("Close = %v, want quarantined", out)
	}
	npu.Reset()
	g.setResetErr(errors.New("context destroy failed"))
	gpu.Reset()
	failed := f.Events().Events(func(e *event.Event) bool { return e.Kind == event.EvReset && e.B == 1 })
	if len(failed) != 1 || failed[0].Detail != "context destroy failed" {
		t.Fatalf("reset events with a failed teardown: %v, want one saying why", failed)
	}
	if !gpu.Occupied() || len(f.Quarantines()) != 1 {
		t.Fatalf("after a failed teardown: GPU occupied %v, quarantines %d; want held and kept", gpu.Occupied(), len(f.Quarantines()))
	}
	if n := len(f.Events().Events(func(e *event.Event) bool { return e.Kind == event.EvRetire && e.Actor == gpu.Actor() })); n != 0 {
		t.Fatalf("the GPU's invocation retired %d times after a failed teardown; it must stay, with its reach", n)
	}
	g.setResetErr(nil)
	gpu.Reset()
	if gpu.Occupied() || len(f.Quarantines()) != 0 || g.resets.Load() != 2 {
		t.Fatalf("after a good teardown: GPU occupied %v, quarantines %d, resets %d; want free, none, 2", gpu.Occupied(), len(f.Quarantines()), g.resets.Load())
	}
}

func TestAnAcceleratorNeedsARealTimeGPU(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  devices.Config
		want string
	}{
		{"simulated", devices.Config{Mode: devices.Simulated, Devices: []devices.DeviceConfig{{Kind: devices.GPU, Families: []devices.Command{devices.AQL}, Accelerator: &fakeGPU{}}}},
			"gpu0 is real hardware (fake: test GPU), which runs in real time; use the realtime mode"},
		{"on an NPU", devices.Config{Devices: []devices.DeviceConfig{{Kind: devices.NPU, Families: []devices.Command{devices.XDNA}, Accelerator: &fakeGPU{}}}},
			"device npu0 is an npu; only a GPU can have an accelerator"},
	} {
		if _, err := devices.NewFabric(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewFabric = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// An accelerator that cannot launch the exchange's kernel (it is no
// kernel.Launcher) cannot run the exchange: preparing it is refused, and
// nothing stays charged.
func TestAnAcceleratorThatCannotLaunchIsRefused(t *testing.T) {
	devs := devices.DefaultDevices()
	devs[0].Accelerator = struct{ backend.Accelerator }{&fakeGPU{}} // hides Load
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(exchange.Default()))
	if want := "unsupported: startup: gpu0 (fake: test GPU) cannot launch the exchange kernel"; !errors.Is(err, failure.Unsupported) || err.Error() != want {
		t.Errorf("NewExchangeSession = %v, want %q", err, want)
	}
	if st := f.Budget().State(); st.Charged != 0 {
		t.Errorf("%d bytes stay charged after the refusal", st.Charged)
	}
}

func TestClosingTheFabricClosesTheAccelerator(t *testing.T) {
	g := &fakeGPU{}
	f := fakeFabric(t, g)
	f.Close()
	if !g.closed.Load() {
		t.Error("the accelerator was not closed with its fabric")
	}
}

// Each session asks its GPU's launcher for the exchange's kernel, which the
// launcher keeps compiled (backends/cuda does: a JIT compile once a GPU);
// the exchange keeps nothing of its own, so no closed GPU stays reachable
// from it. A kernel that does not load refuses the session before anything
// is dispatched.
func TestEachSessionAsksTheLauncherForTheKernel(t *testing.T) {
	g := &fakeGPU{}
	f := fakeFabric(t, g)
	for i := 0; i < 3; i++ {
		s := fakeSession(t, f, exchange.Default())
		fakeStarted(t, s)
		if ok, err := s.Wait(time.Minute); !ok || err != nil {
			t.Fatalf("session %d: Wait = %v, %v", i, ok, err)
		}
		if out := s.Close(); out != engine.Retired {
			t.Fatalf("session %d: Close = %v", i, out)
		}
	}
	if n := g.loads.Load(); n != 3 {
		t.Errorf("the launcher was asked for the kernel %d times for 3 sessions, want once a session", n)
	}
	bad := fakeFabric(t, &fakeGPU{loadErr: errors.New("the PTX does not load")})
	_, err := engine.Open(bad.First(devices.GPU), bad.First(devices.NPU), exchange.Programs(exchange.Default()))
	if want := "gpu0 (fake: test GPU) could not load the exchange kernel: the PTX does not load"; !errors.Is(err, failure.Device) || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("Open with a kernel that does not load = %v, want %q", err, want)
	}
	if st := bad.Budget().State(); st.Charged != 0 {
		t.Errorf("%d bytes stay charged after the refusal", st.Charged)
	}
}
