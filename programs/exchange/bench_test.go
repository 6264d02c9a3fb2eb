package exchange

import (
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/timing"
)

// BenchmarkExchangeSteps runs a long exchange's device steps in simulated
// time, 20 µs of it an operation, after the event ring has filled: its
// allocations per operation (none in steady state) are a row of the
// benchmark table in docs/performance.md. An exchange that retires during
// the measurement is followed by a new one on a new fabric, made while the
// timer is stopped, so that any benchmark time measures a running exchange.
func BenchmarkExchangeSteps(b *testing.B) {
	var r *runningExchange
	defer func() { r.close() }()
	b.ReportAllocs()
	for b.Loop() {
		if r == nil || r.retired() {
			b.StopTimer()
			r.close()
			r = startExchange(b)
			b.StartTimer()
		}
		r.fabric.Advance(20 * time.Microsecond)
	}
	if r.fabric.Events().Count() == r.before {
		b.Fatal("the exchange emitted no event while it was measured")
	}
}

// BenchmarkHalvesOwnWork is the two halves' own work for a round of the
// exchange that the benchmark table's round trip runs (one credit, 8-byte
// slots, 5,000 rounds), as a real-time fabric's devices run them: both
// halves stepped by hand on one thread, so that no line moves between
// cores and no event is recorded. What a round of the table takes beyond
// its raw round trip is this work on the path between the cores, and the
// cost of the lines that do move (docs/performance.md).
func BenchmarkHalvesOwnWork(b *testing.B) {
	const rounds = 5000
	cfg := Config{Rounds: rounds, Credits: 1, SlotBytes: 8, GPUQueue: devices.AQL}
	f := fabricByHand(b, devices.RealTime)
	var elapsed time.Duration
	n := 0
	for ; n < b.N; n += rounds {
		x := preparedByHand(b, f, cfg)
		start := time.Now()
		stepHalves(b, x, &stepEnv{}, nil)
		elapsed += time.Since(start)
		if v := x.Verify(); !v.OK {
			b.Fatalf("the exchange did not verify: %s", v.Problem)
		}
		for buf := range x.GPU().Reach() {
			if err := buf.Release(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(n), "ns/round")
}

// runningExchange is a long exchange past its dispatch, on a fabric of its
// own.
type runningExchange struct {
	fabric *devices.Fabric
	gpu    *devices.Completion
	before uint64 // events when the measurement of it began
}

// startExchange makes a fabric and runs a long exchange on it into its
// rounds, with the event ring full.
func startExchange(b *testing.B) *runningExchange {
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1, Timing: timing.Published(), EventCapacity: 256})
	if err != nil {
		b.Fatal(err)
	}
	line, _, gpu, _, release := dispatchedExchange(b, f, Config{Rounds: MaxRounds, Credits: 2, SlotBytes: 64, GPUQueue: devices.AQL})
	runExchange(b, line, release)
	f.Advance(2 * time.Millisecond) // past dispatch and into the exchange; fills the ring
	return &runningExchange{fabric: f, gpu: gpu, before: f.Events().Count()}
}

// retired reports whether the exchange's GPU half has retired.
func (r *runningExchange) retired() bool {
	done, _ := r.gpu.IsComplete()
	return done
}

// close stops the exchange, if it still runs, and closes its fabric.
func (r *runningExchange) close() {
	if r == nil {
		return
	}
	r.fabric.First(devices.GPU).Reset()
	r.fabric.First(devices.NPU).Reset()
	r.fabric.Close()
}
