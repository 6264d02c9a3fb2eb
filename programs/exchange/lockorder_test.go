package exchange_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
	"github.com/residentlua/residentlua/programs/kernel"
)

// slowGPU is a fakeGPU whose kernel's Launch and whose Reset do not return until the test
// lets them: a launch or a teardown that takes its time, as a real one can
// (seconds on CUDA).
type slowGPU struct {
	fakeGPU
	calls chan string   // the name of each slow call, as it begins
	let   chan struct{} // one value lets one slow call return
}

func newSlowGPU() *slowGPU {
	return &slowGPU{calls: make(chan string), let: make(chan struct{})}
}

func (g *slowGPU) Load(ptx []byte, entry string) (kernel.Module, error) {
	m, err := g.fakeGPU.Load(ptx, entry)
	if err != nil {
		return nil, err
	}
	return &slowModule{m, g}, nil
}

// slowModule is the exchange's kernel loaded on a slowGPU: its launch is
// slow.
type slowModule struct {
	kernel.Module
	g *slowGPU
}

func (m *slowModule) Launch(b kernel.Block) (kernel.Running, error) {
	m.g.hold("launch")
	return m.Module.Launch(b)
}

func (g *slowGPU) Reset() error {
	g.hold("reset")
	return g.fakeGPU.Reset()
}

// hold announces the call and waits to be let go (at most a while, so that
// a test that fails does not hang).
func (g *slowGPU) hold(call string) {
	select {
	case g.calls <- call:
	case <-time.After(10 * time.Second):
		return
	}
	select {
	case <-g.let:
	case <-time.After(10 * time.Second):
	}
}

// readFabric reads everything a monitor of the fabric reads.
func readFabric(f *devices.Fabric) {
	for _, d := range f.Devices() {
		d.Occupied()
	}
	f.Quarantines()
	f.Budget().State()
	f.Events().Count()
	f.Events().Events(nil)
	f.Now()
	f.Faults().Settings()
}

// readsWithin reports whether read returns within limit.
func readsWithin(limit time.Duration, read func()) bool {
	done := make(chan struct{})
	go func() {
		read()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}

// No hardware call runs under the fabric's lock: while the accelerator
// launches a kernel or tears itself down, for however long that takes,
// another goroutine reads the fabric (devices, quarantines, budget, events,
// clock) without waiting for it, and sees the GPU occupied. A third
// goroutine reads all along, for the race detector.
func TestReadersAreNotBlockedByALaunchOrAReset(t *testing.T) {
	g := newSlowGPU()
	devs := devices.DefaultDevices()
	devs[0].Accelerator = g
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	o := oracle.New(f)
	gpu := f.First(devices.GPU)

	var stop atomic.Bool
	var reader sync.WaitGroup
	reader.Add(1)
	go func() {
		defer reader.Done()
		for !stop.Load() {
			readFabric(f)
		}
	}()
	defer func() {
		stop.Store(true)
		reader.Wait()
		go func() { // Close resets the GPU once more
			for range g.calls {
				g.let <- struct{}{}
			}
		}()
		o.Stop()
		f.Close()
		close(g.calls)
		for _, v := range o.Violations() {
			t.Errorf("oracle: %v", v)
		}
	}()

	s := fakeSession(t, f, exchange.Default())
	submitted := make(chan error, 1)
	go func() { submitted <- s.SubmitGPU() }()
	during(t, g, "launch", func() {
		occupied := false
		if !readsWithin(time.Second, func() { readFabric(f); occupied = gpu.Occupied() }) {
			t.Error("reading the fabric waited for the kernel's launch")
		} else if !occupied {
			t.Error("the GPU is free while its kernel is being launched")
		}
	})
	if err := <-submitted; err != nil {
		t.Fatalf("SubmitGPU = %v", err)
	}

	reset := make(chan struct{})
	go func() { gpu.Reset(); close(reset) }()
	during(t, g, "reset", func() {
		if !readsWithin(time.Second, func() { readFabric(f) }) {
			t.Error("reading the fabric waited for the accelerator's reset")
		}
	})
	<-reset
	if gpu.Occupied() {
		t.Error("the GPU is occupied after its reset")
	}
	retired := f.Events().Events(func(e *event.Event) bool {
		return e.Kind == event.EvRetire && e.Actor == gpu.Actor() && e.B == 1
	})
	if len(retired) != 1 {
		t.Errorf("the GPU's invocation retired with an error %d times after the reset, want once", len(retired))
	}
	s.Close()
}

// during waits for the slow call named call to begin, runs check while it is
// held, and lets it return.
func during(t *testing.T, g *slowGPU, call string, check func()) {
	t.Helper()
	select {
	case got := <-g.calls:
		if got != call {
			t.Fatalf("the accelerator's %s began, want its %s", got, call)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the accelerator's %s never began", call)
	}
	check()
	select {
	case g.let <- struct{}{}:
	case <-time.After(10 * time.Second): // the call gave up waiting
	}
}

// lendingGPU lends pinned memory whose giving back (a driver call on the
// backend's thread, for real hardware) does not return until the test lets
// it.
type lendingGPU struct {
	fakeGPU
	frees chan struct{} // a value as each giving back begins
	let   chan struct{} // one value lets one giving back return
}

func (g *lendingGPU) Map(size int) (*memory.Region, error) {
	under, err := memory.Map(size)
	if err != nil {
		return nil, err
	}
	return memory.Foreign(under.Addr(0), under.Len(), func() error {
		select {
		case g.frees <- struct{}{}:
			select {
			case <-g.let:
			case <-time.After(10 * time.Second):
			}
		case <-time.After(10 * time.Second):
		}
		return under.Unmap()
	})
}

// Releasing pinned memory gives it back to the accelerator after the
// fabric's lock is let go: readers do not wait for the driver.
func TestReadersAreNotBlockedByGivingPinnedMemoryBack(t *testing.T) {
	g := &lendingGPU{frees: make(chan struct{}), let: make(chan struct{})}
	devs := devices.DefaultDevices()
	devs[0].Accelerator = g
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	profiles, err := f.AllocationProfiles([]*devices.Device{f.First(devices.GPU), f.First(devices.NPU)}, true)
	if err != nil || profiles[0].Kind() != memory.Pinned {
		t.Fatalf("profiles %v, %v; want pinned first", profiles, err)
	}
	b, err := profiles[0].Allocate(4096, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	go func() { released <- b.Release() }()
	select {
	case <-g.frees:
	case <-time.After(10 * time.Second):
		t.Fatal("the pinned memory was never given back")
	}
	charged := int64(-1)
	if !readsWithin(time.Second, func() { readFabric(f); charged = f.Budget().State().Charged }) {
		t.Error("reading the fabric waited for the accelerator to take its memory back")
	} else if charged != 0 {
		t.Errorf("%d bytes charged while the released memory goes back, want 0", charged)
	}
	g.let <- struct{}{}
	if err := <-released; err != nil {
		t.Errorf("Release = %v", err)
	}
}
