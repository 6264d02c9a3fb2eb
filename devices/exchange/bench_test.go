package exchange

import (
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
)

// BenchmarkExchangeSteps runs a long exchange's device steps in simulated
// time, 20 µs of it an operation, after the event ring has filled: its
// allocations per operation (none in steady state) are a row of the
// benchmark table in docs/performance.md.
func BenchmarkExchangeSteps(b *testing.B) {
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1, Timing: devices.PublishedTiming(), EventCapacity: 256})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	line, _, gdone, _, release := dispatchedExchange(b, f, Config{Rounds: MaxRounds, Credits: 2, SlotBytes: 64, GPUQueue: devices.AQL})
	runExchange(b, line, release)
	f.Advance(2 * time.Millisecond) // past dispatch and into the exchange; fills the ring
	before := f.Events().Count()
	b.ReportAllocs()
	for b.Loop() {
		f.Advance(20 * time.Microsecond)
	}
	if done, _ := gdone.IsComplete(); f.Events().Count() == before || done {
		b.Fatalf("the exchange did not run through the measurement (events %d → %d, GPU retired %v): raise MaxRounds or shorten the step", before, f.Events().Count(), done)
	}
	f.First(devices.GPU).Reset()
	f.First(devices.NPU).Reset()
}
