package exchange_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/programs/exchange"
)

// testBackend opens the accelerator it holds, or fails with err.
type testBackend struct {
	accel backend.Accelerator
	err   error
	opens int
}

func (b *testBackend) Open() (backend.Accelerator, error) {
	b.opens++
	if b.err != nil {
		return nil, b.err
	}
	return b.accel, nil
}

// The registry is global, as database/sql's is: each name is registered once
// for the whole test binary.
var (
	fakeBackend   = &testBackend{}
	brokenBackend = &testBackend{err: failure.Errorf(failure.Unsupported, "test", "no test GPU is present")}
)

func init() {
	backend.Register("test-fake", fakeBackend)
	backend.Register("test-broken", brokenBackend)
}

func TestBackendsListsSimFirstThenTheRegisteredOnes(t *testing.T) {
	got := backend.Names()
	if len(got) < 3 || got[0] != "sim" || !slices.IsSorted(got[1:]) || !slices.Contains(got, "test-fake") || !slices.Contains(got, "test-broken") {
		t.Errorf("backend.Names() = %q, want sim then the registered names in order", got)
	}
	for _, name := range []string{"", "sim", "test-fake"} {
		if err := backend.Check(name); err != nil {
			t.Errorf("backend.Check(%q) = %v", name, err)
		}
	}
	err := backend.Check("rocm")
	if !errors.Is(err, failure.Invalid) || !strings.HasSuffix(err.Error(), `unknown GPU backend "rocm"; use "sim", "test-broken" or "test-fake"`) {
		t.Errorf("backend.Check(rocm) = %v, want the names listed", err)
	}
}

func TestRegisterRefusesMistakes(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    backend.Backend
		want string
	}{
		{"", fakeBackend, `needs a name other than "" and "sim", got ""`},
		{"sim", fakeBackend, `got "sim"`},
		{"test-nil", nil, "nil backend"},
		{"test-fake", fakeBackend, `called twice for "test-fake"`},
	} {
		func() {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, tc.want) {
					t.Errorf("backend.Register(%q) panicked with %q, want %q", tc.name, msg, tc.want)
				}
			}()
			backend.Register(tc.name, tc.b)
		}()
	}
}

// The backend's hardware becomes the first GPU wherever it is in the list,
// and the fabric runs in real time.
func TestNewFabricWithPutsTheBackendOnTheFirstGPU(t *testing.T) {
	g := &fakeGPU{}
	fakeBackend.accel = g
	devs := []devices.DeviceConfig{
		{Name: "npu0", Kind: devices.NPU, Families: []devices.Command{devices.XDNA}},
		{Name: "gpu0", Kind: devices.GPU, Families: []devices.Command{devices.AQL}},
	}
	f, err := devices.NewFabricWith(devices.Config{Devices: devs}, "test-fake")
	if err != nil {
		t.Fatal(err)
	}
	if f.Mode() != devices.RealTime || f.First(devices.GPU).Accelerator() != g || f.First(devices.NPU).Accelerator() != nil {
		t.Errorf("mode %v, GPU accelerator %v: want real time and the backend's GPU", f.Mode(), f.First(devices.GPU).Accelerator())
	}
	if devs[1].Accelerator != nil {
		t.Error("NewFabricWith changed the caller's device list")
	}
	f.Close()
	if !g.closed.Load() {
		t.Error("closing the fabric left the backend's GPU open")
	}
}

func TestNewFabricWithRefusesWhatHardwareCannotDo(t *testing.T) {
	fakeBackend.accel = &fakeGPU{}
	before := fakeBackend.opens
	npuOnly := []devices.DeviceConfig{{Kind: devices.NPU, Families: []devices.Command{devices.XDNA}}}
	for _, tc := range []struct {
		cfg  devices.Config
		want string
	}{
		{devices.Config{Mode: devices.Simulated}, `invalid: fabric: the test-fake backend is a real GPU, which runs in real time; use mode "realtime"`},
		{devices.Config{NoFineGrained: true}, "invalid: fabric: fine_grained = false (NoFineGrained) does not apply to the test-fake backend, whose memory is always pinned; leave it out"},
		{devices.Config{Devices: npuOnly}, "invalid: fabric: the test-fake backend needs a GPU in the fabric"},
	} {
		if _, err := devices.NewFabricWith(tc.cfg, "test-fake"); err == nil || err.Error() != tc.want {
			t.Errorf("NewFabricWith(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if fakeBackend.opens != before {
		t.Errorf("the backend was opened %d times for configurations it cannot serve", fakeBackend.opens-before)
	}
	if _, err := devices.NewFabricWith(devices.Config{}, "test-broken"); !errors.Is(err, failure.Unsupported) || !strings.Contains(err.Error(), "no test GPU is present") {
		t.Errorf("NewFabricWith on missing hardware = %v, want the backend's own error", err)
	}
}

// A fabric the backend's hardware cannot join (here: two devices with one
// name) closes the hardware it opened.
func TestNewFabricWithClosesTheHardwareOnFailure(t *testing.T) {
	g := &fakeGPU{}
	fakeBackend.accel = g
	devs := []devices.DeviceConfig{{Name: "x", Kind: devices.GPU}, {Name: "x", Kind: devices.NPU}}
	if _, err := devices.NewFabricWith(devices.Config{Devices: devs}, "test-fake"); err == nil {
		t.Fatal("two devices named x were accepted")
	}
	if !g.closed.Load() {
		t.Error("the backend's GPU was left open")
	}
}

func TestNewFabricWithSimIsNewFabric(t *testing.T) {
	for _, name := range []string{"", "sim"} {
		f, err := devices.NewFabricWith(devices.Config{Mode: devices.Simulated, Seed: 3}, name)
		if err != nil {
			t.Fatal(err)
		}
		if f.Mode() != devices.Simulated || f.First(devices.GPU).Accelerator() != nil {
			t.Errorf("NewFabricWith(%q): mode %v, accelerator %v; want the simulated GPU", name, f.Mode(), f.First(devices.GPU).Accelerator())
		}
		f.Close()
	}
}

// refusingGPU is a fakeGPU that cannot corrupt payloads.
type refusingGPU struct{ fakeGPU }

func (*refusingGPU) UnsupportedFault(site fault.Site) string {
	if site == exchange.PayloadCorrupt {
		return "the kernel writes the slots itself"
	}
	return ""
}

// The fabric answers for its hardware which fault sites can fire: every one
// on simulated devices and on an accelerator without FaultSupport; the others
// refused with the accelerator's reason.
func TestCheckFaultAsksTheAccelerator(t *testing.T) {
	sim, err := devices.NewFabric(devices.Config{Mode: devices.Simulated})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	plain := fakeFabric(t, &fakeGPU{})
	for _, site := range fault.Sites() {
		if err := sim.CheckFault(site); err != nil {
			t.Errorf("simulated fabric: CheckFault(%s) = %v", site, err)
		}
		if err := plain.CheckFault(site); err != nil {
			t.Errorf("accelerator without FaultSupport: CheckFault(%s) = %v", site, err)
		}
	}
	devs := devices.DefaultDevices()
	devs[0].Accelerator = &refusingGPU{}
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := "invalid: fault: payload.corrupt does not apply to a real GPU (fake: test GPU): the kernel writes the slots itself"
	if err := f.CheckFault(exchange.PayloadCorrupt); err == nil || err.Error() != want {
		t.Errorf("CheckFault(payload.corrupt) = %v, want %q", err, want)
	}
	if err := f.CheckFault(fault.GPURun); err != nil {
		t.Errorf("CheckFault(gpu.run) = %v", err)
	}
}
