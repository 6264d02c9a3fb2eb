package bench

import (
	"fmt"
	"time"

	"residentlua/devices"
	"residentlua/devices/cuda"
	"residentlua/engine"
)

// RunCUDA measures the figures of a real CUDA GPU as the GPU participant,
// beside the raw round trip of the ping-pong kernel through the same kind of
// mapped memory, measured in the same run and interleaved with them. It
// fails with an Unsupported error where there is no CUDA GPU.
func RunCUDA(o Options) ([]Figure, error) {
	g, err := cuda.Open()
	if err != nil {
		return nil, err
	}
	devs := devices.DefaultDevices()
	devs[0].Accelerator = g
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Devices: devs})
	if err != nil {
		_ = g.Close()
		return nil, err
	}
	defer f.Close()
	repeats, sessions, trips := 7, 50, 20_000
	if o.Short {
		repeats, sessions, trips = 3, 10, 2_000
	}
	var raw, observe, life1, life1000, perRound []float64
	one := devices.ExchangeConfig{Rounds: 1, Credits: 1, SlotBytes: 8, GPUQueue: devices.AQL}
	long := devices.ExchangeConfig{Rounds: 1000, Credits: 1, SlotBytes: 8, GPUQueue: devices.AQL}
	for r := 0; r < repeats; r++ {
		rt, err := g.RoundTrips(trips)
		if err != nil {
			return nil, err
		}
		raw = append(raw, micros(rt[len(rt)/2]))
		var shorts []float64
		for i := 0; i < sessions; i++ {
			s, d, err := lifecycle(f, one)
			if err != nil {
				return nil, err
			}
			obs, err := kernelObservation(f, s.ID())
			if err != nil {
				return nil, err
			}
			observe, shorts = append(observe, micros(obs)), append(shorts, micros(d))
		}
		_, d, err := lifecycle(f, long)
		if err != nil {
			return nil, err
		}
		short := Summarise(shorts).Median
		life1, life1000 = append(life1, shorts...), append(life1000, micros(d))
		perRound = append(perRound, (micros(d)-short)/float64(long.Rounds-1))
	}
	rawS := Summarise(raw)
	const rawName = "raw ping-pong kernel round trip"
	return []Figure{
		{Name: "GPU: raw mapped-memory round trip", Unit: "µs", Value: rawS, Goal: "report (the floor)"},
		ratioReport("GPU: host publishes RUN → kernel observes", Summarise(observe), rawS, rawName),
		ratioReport("GPU: whole lifecycle, rounds 1", Summarise(life1), rawS, rawName),
		ratioReport("GPU: whole lifecycle, rounds 1000", Summarise(life1000), rawS, rawName),
		ratioFigure("GPU: lifecycle cost per round", "µs", Summarise(perRound), rawS, rawName, "≤ 1.2×", 1.2),
	}, nil
}

// ratioReport is a figure beside a baseline, with no goal.
func ratioReport(name string, value, baseline Sample, baselineName string) Figure {
	f := Figure{Name: name, Unit: "µs", Value: value, Goal: "report"}
	f.Baseline, f.BaselineName, f.Ratio = &baseline, baselineName, value.Median/baseline.Median
	return f
}

// kernelObservation is how long after the host's decision the kernel of
// session id saw it, by the kernel's own clock.
func kernelObservation(f *devices.Fabric, id uint64) (time.Duration, error) {
	var decided, observed time.Duration
	var seen bool
	for _, e := range sessionEvents(f, id) {
		switch e.Kind {
		case engine.EvDecide:
			decided = e.Time
		case devices.EvKernelObserve:
			observed, seen = time.Duration(e.B), true
		}
	}
	if !seen {
		return 0, fmt.Errorf("session %d has no kernel observation event", id)
	}
	return observed - decided, nil
}
