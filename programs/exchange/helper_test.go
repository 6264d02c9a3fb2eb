package exchange

import (
	"slices"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/program"
)

// dispatchedExchange prepares an exchange of cfg between the fabric's first
// GPU and NPU, dispatches both halves, and returns the startup line, the
// exchange, both completions and the NPU's release of the line, so that a
// test publishes RUN with runExchange.
func dispatchedExchange(t testing.TB, f *devices.Fabric, cfg Config) (line *devices.Buffer, x *Exchange, gpu, npu *devices.Completion, release *devices.Publication) {
	t.Helper()
	g, n := f.First(devices.GPU), f.First(devices.NPU)
	profiles, err := f.AllocationProfiles([]*devices.Device{g, n}, true)
	if err != nil {
		t.Fatal(err)
	}
	if line, err = profiles[0].Allocate(64, nil, 1); err != nil {
		t.Fatal(err)
	}
	if x, err = Prepare(line, g, n, cfg, 1); err != nil {
		t.Fatal(err)
	}
	if gpu, err = x.GPU().Dispatch(); err != nil {
		t.Fatal(err)
	}
	if npu, err = x.NPU().Dispatch(); err != nil {
		t.Fatal(err)
	}
	if release, err = line.PrepareHostRelease(n, slices.Collect(n.Families())[0], 0, 64); err != nil {
		t.Fatal(err)
	}
	return line, x, gpu, npu, release
}

// runExchange stores RUN in the line and releases it to the NPU.
func runExchange(t testing.TB, line *devices.Buffer, release *devices.Publication) {
	t.Helper()
	if _, err := line.Publish(event.Event{}, 0, program.StartupRun, []*devices.Publication{release}); err != nil {
		t.Fatal(err)
	}
}
