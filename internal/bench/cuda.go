package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/devices/wait"
	"github.com/residentlua/residentlua/programs/exchange"
	"github.com/residentlua/residentlua/programs/kernel"
)

// RunBackend measures the figures of a real GPU, the named backend's (see
// backend.Register), as the GPU participant, beside the raw round
// trip of the backend's own ping-pong kernel through the same kind of
// mapped memory, measured in the same run and interleaved with them. It
// fails with an Unsupported error where the hardware is missing or the
// backend has no raw round trip to measure (RoundTripper). The simulated
// NPU and the host wait under o.Wait's one policy; without one, they spin
// as the resident kernel does where the machine has a core for each
// (wait.Spin), and wait hybrid where it has not.
func RunBackend(o Options, gpuBackend string) ([]Figure, error) {
	if gpuBackend == "" || gpuBackend == backend.Sim {
		return nil, failure.Errorf(failure.Invalid, "bench", "RunBackend measures a real GPU; use Run for the simulated one")
	}
	policy := wait.Hybrid
	switch len(o.Wait) {
	case 0: // the NPU and the host poll as the kernel does, where the cores allow it
		if wait.Check(wait.Spin, 2) == nil {
			policy = wait.Spin
		}
	case 1:
		policy = o.Wait[0]
	default:
		return nil, failure.Errorf(failure.Invalid, "bench", "a real GPU's figures are measured under one wait policy at a time, got %d", len(o.Wait))
	}
	f, err := devices.NewFabricWith(devices.Config{Mode: devices.RealTime, Wait: policy}, gpuBackend)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g, ok := f.First(devices.GPU).Accelerator().(RoundTripper)
	if !ok {
		return nil, failure.Errorf(failure.Unsupported, "bench", "the %s backend has no raw round trip (RoundTrips) to measure its figures against", gpuBackend)
	}
	repeats, sessions, longs, trips, launches := 7, 50, 5, 20_000, 200
	if o.Short {
		repeats, sessions, longs, trips, launches = 3, 10, 2, 2_000, 20
	}
	var raw, clocked, empty, floor, observe, life1, life1000, perRound []float64
	var steps [len(lifecycleSteps)][]float64
	one := exchange.Config{Rounds: 1, Credits: 1, SlotBytes: 8, GPUQueue: devices.AQL}
	long := exchange.Config{Rounds: 1000, Credits: 1, SlotBytes: 8, GPUQueue: devices.AQL}
	for r := 0; r < repeats; r++ {
		rt, err := g.RoundTrips(trips)
		if err != nil {
			return nil, err
		}
		raw = append(raw, micros(rt[len(rt)/2]))
		if rt, err = g.ClockedRoundTrips(trips); err != nil {
			return nil, err
		}
		clocked = append(clocked, micros(rt[len(rt)/2]))
		el, err := g.EmptyLaunches(launches)
		if err != nil {
			return nil, err
		}
		empty = append(empty, micros(el[len(el)/2]))
		floor = append(floor, empty[r]+raw[r])
		// The one-round sessions run back to back, as a researcher's loop
		// runs them, and their kernels' clocks are read from the event
		// stream after the last: a scan of the stream between two sessions
		// would leave the devices idle longer than they poll before they
		// block (devices.spinFor), and each session would then pay two
		// thread wake-ups that the lifecycle itself does not cost.
		ids := make([]uint64, 0, sessions)
		for i := 0; i < sessions; i++ {
			s, took, err := steppedLifecycle(f, one)
			if err != nil {
				return nil, err
			}
			var whole time.Duration
			for step, d := range took {
				steps[step] = append(steps[step], micros(d))
				whole += d
			}
			ids, life1 = append(ids, s.ID()), append(life1, micros(whole))
		}
		for _, id := range ids {
			k, err := kernelTimes(f, id)
			if err != nil {
				return nil, err
			}
			observe = append(observe, micros(k.observed-k.stored))
		}
		for i := 0; i < longs; i++ {
			k, took, err := kernelLifecycle(f, long)
			if err != nil {
				return nil, err
			}
			var whole time.Duration
			for _, d := range took {
				whole += d
			}
			life1000 = append(life1000, micros(whole))
			perRound = append(perRound, micros(k.retired-k.observed)/float64(long.Rounds))
		}
	}
	rawS, floorS := Summarise(raw), Summarise(floor)
	const rawName, floorName = "minimal ping-pong round trip", "empty launch + one round trip"
	figures := []Figure{
		{Name: "GPU: minimal ping-pong round trip (the floor)", Unit: "µs", Value: rawS, Goal: "report (the floor)"},
		ratioReport("GPU: ping-pong with the kernel's clock", Summarise(clocked), rawS, rawName),
		ratioFigure("GPU: host publishes (stores) RUN → kernel observes (wait "+policy.String()+")", "µs", Summarise(observe), rawS, rawName, "≤ 0.6×", 0.6),
		ratioFigure("GPU: exchange cost per round (rounds 1000, kernel's clock, wait "+policy.String()+")", "µs", Summarise(perRound), rawS, rawName, "≤ 1.2×", 1.2),
		{Name: "GPU: empty kernel, launch to observed completion", Unit: "µs", Value: Summarise(empty), Goal: "report"},
		{Name: "GPU: lifecycle floor (empty launch + one round trip)", Unit: "µs", Value: floorS, Goal: "report (the floor)"},
		ratioFigure("GPU: whole lifecycle, rounds 1 (open to close)", "µs", Summarise(life1), floorS, floorName, "≤ 3×", 3),
	}
	for step, name := range lifecycleSteps {
		figures = append(figures, ratioReport("GPU: lifecycle step: "+name, Summarise(steps[step]), floorS, floorName))
	}
	return append(figures, ratioReport("GPU: whole lifecycle, rounds 1000 (open to close)", Summarise(life1000), rawS, rawName)), nil
}

// RoundTripper is an optional interface of a real GPU's accelerator: the
// floors under any exchange between the host and its kernels and under a
// session's lifecycle (backends/cuda has it).
type RoundTripper interface {
	// RoundTrips bounces rounds pings off a minimal kernel (one poll and
	// one answer per round) through mapped memory and returns each round
	// trip's duration, sorted.
	RoundTrips(rounds int) ([]time.Duration, error)
	// ClockedRoundTrips is RoundTrips with a kernel that also writes its
	// clock before each answer.
	ClockedRoundTrips(rounds int) ([]time.Duration, error)
	// EmptyLaunches launches a kernel that returns at once n times, each
	// until the driver reports it complete, and returns each launch's
	// duration, sorted.
	EmptyLaunches(n int) ([]time.Duration, error)
}

// ratioReport is a figure beside a baseline, with no goal.
func ratioReport(name string, value, baseline Sample, baselineName string) Figure {
	f := Figure{Name: name, Unit: "µs", Value: value, Goal: "report"}
	f.Baseline, f.BaselineName, f.Ratio = &baseline, baselineName, value.Median/baseline.Median
	return f
}

// kernelClock is what the kernel of one session reported by its own clock,
// beside the host's store of the decision into the startup line (the
// publication the kernel polls for, one host step with the decision), all
// in fabric time.
type kernelClock struct{ stored, observed, retired time.Duration }

// kernelLifecycle runs one whole lifecycle and returns its kernel's clock
// readings and how long each step took (steppedLifecycle).
func kernelLifecycle(f *devices.Fabric, cfg exchange.Config) (kernelClock, [len(lifecycleSteps)]time.Duration, error) {
	s, took, err := steppedLifecycle(f, cfg)
	if err != nil {
		return kernelClock{}, took, err
	}
	k, err := kernelTimes(f, s.ID())
	return k, took, err
}

// kernelTimes reads session id's store of the decision and its kernel's
// clock events.
func kernelTimes(f *devices.Fabric, id uint64) (kernelClock, error) {
	var k kernelClock
	var observes, retires int
	var gpu []string // the GPU's events, for the error
	for _, e := range sessionEvents(f, id) {
		if e.Actor == f.First(devices.GPU).Actor() {
			gpu = append(gpu, string(e.Kind))
		}
		switch e.Kind {
		case event.EvHostStore:
			if e.B == uint64(program.StartupRun) {
				k.stored = e.Time
			}
		case kernel.EvObserve:
			k.observed, observes = time.Duration(e.B), observes+1
		case kernel.EvRetire:
			k.retired, retires = time.Duration(e.B), retires+1
		}
	}
	if observes != 1 || retires != 1 {
		return k, fmt.Errorf("session %d has %d kernel.observe and %d kernel.retire events, want one of each; the GPU's events: %s", id, observes, retires, strings.Join(gpu, " "))
	}
	return k, nil
}
