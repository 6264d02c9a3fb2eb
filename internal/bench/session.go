package bench

import (
	"fmt"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// lifecycle runs one whole session (submit both, start, wait, close) and
// returns it closed, with the fabric time it took from the first submit to
// the end of the wait.
func lifecycle(f *devices.Fabric, cfg exchange.Config) (*engine.Session, time.Duration, error) {
	s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(cfg))
	if err != nil {
		return nil, 0, err
	}
	defer s.Close()
	t0 := f.Now()
	if err := s.SubmitGPU(); err != nil {
		return nil, 0, err
	}
	if err := s.SubmitNPU(); err != nil {
		return nil, 0, err
	}
	if err := s.Start(); err != nil {
		return nil, 0, err
	}
	ok, err := s.Wait(30 * time.Second)
	elapsed := f.Now() - t0
	if err != nil || !ok {
		return nil, 0, fmt.Errorf("session %d did not retire: ok=%v err=%v", s.ID(), ok, err)
	}
	if problem, _ := s.Checked(); problem != nil {
		return nil, 0, fmt.Errorf("session %d did not verify: %v", s.ID(), problem)
	}
	return s, elapsed, nil
}

// lifecycleSteps name the steps of a whole session that steppedLifecycle
// times, in order.
var lifecycleSteps = [...]string{"open", "submit GPU", "submit NPU", "start", "wait", "close"}

// steppedLifecycle runs one whole session as a researcher does, from
// opening it (its startup line and its programs' buffers) to closing it,
// and returns it closed with the wall-clock time of each step
// (lifecycleSteps).
func steppedLifecycle(f *devices.Fabric, cfg exchange.Config) (*engine.Session, [len(lifecycleSteps)]time.Duration, error) {
	var took [len(lifecycleSteps)]time.Duration
	start := time.Now()
	lap := func(step int) {
		now := time.Now()
		took[step], start = now.Sub(start), now
	}
	s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(cfg))
	if err != nil {
		return nil, took, err
	}
	lap(0)
	for i, step := range []func() error{s.SubmitGPU, s.SubmitNPU, s.Start} {
		if err := step(); err != nil {
			s.Close()
			return nil, took, err
		}
		lap(1 + i)
	}
	ok, err := s.Wait(30 * time.Second)
	lap(4)
	if err != nil || !ok {
		s.Close()
		return nil, took, fmt.Errorf("session %d did not retire: ok=%v err=%v", s.ID(), ok, err)
	}
	if st := s.Close(); st != engine.Retired {
		return nil, took, fmt.Errorf("session %d closed %s, want retired", s.ID(), st)
	}
	lap(5)
	if problem, _ := s.Checked(); problem != nil {
		return nil, took, fmt.Errorf("session %d did not verify: %v", s.ID(), problem)
	}
	return s, took, nil
}

// sessionEvents returns the events of one session still in the stream.
func sessionEvents(f *devices.Fabric, id uint64) []event.Event {
	return f.Events().Events(func(e *event.Event) bool { return e.Session == id })
}

// PublicationLatency runs one real-time session and returns the time from
// the host's RUN decision to the last device observing it. The decision,
// the store of RUN and the release to each queue family are one host step,
// whose events share the time it began (devices.Buffer.Publish); the NPU
// can observe RUN only once its family's release is made.
func PublicationLatency(f *devices.Fabric) (time.Duration, error) {
	latency, _, err := publication(f)
	return latency, err
}

// publication runs one real-time session and returns its publication
// latency (PublicationLatency) and how long after the decision the later
// of its two devices began its program: negative when both were waiting
// for the decision when it came, positive when the latency includes a
// device's start (a thread woken by the dispatch, say).
func publication(f *devices.Fabric) (latency, lateStart time.Duration, err error) {
	s, _, err := lifecycle(f, exchange.Default())
	if err != nil {
		return 0, 0, err
	}
	var decided, observed, started time.Duration
	for _, e := range sessionEvents(f, s.ID()) {
		switch e.Kind {
		case oracle.EvDecide:
			decided = e.Time
		case program.EvObserve:
			observed = max(observed, e.Time)
		case event.EvStart:
			started = max(started, e.Time)
		}
	}
	return observed - decided, started - decided, nil
}

// ExchangeRoundTrip runs an exchange of rounds generations with one credit
// and 8-byte slots and returns the time per generation (GPU → NPU → GPU).
func ExchangeRoundTrip(f *devices.Fabric, rounds int) (time.Duration, error) {
	s, _, err := lifecycle(f, exchange.Config{Rounds: rounds, Credits: 1, SlotBytes: 8, GPUQueue: devices.AQL})
	if err != nil {
		return 0, err
	}
	// Only the two events it times are copied out of the stream: a copy of
	// the exchange's thousands would make garbage that a collection, with
	// its pauses and write barriers, cleans up during the next exchange.
	var first, last time.Duration
	for _, e := range f.Events().Events(func(e *event.Event) bool {
		return e.Session == s.ID() && (e.Kind == exchange.EvPayloadWrite && e.B == 1 || e.Kind == exchange.EvPayloadRead && e.B == uint64(rounds))
	}) {
		if e.Kind == exchange.EvPayloadWrite {
			first = e.Time
		} else {
			last = e.Time
		}
	}
	return (last - first) / time.Duration(rounds-1), nil
}

// ModelOverhead runs the same lifecycle in real time and in simulated time,
// both with timing, and returns both durations: the simulated one is the
// minimum the timing profile models.
func ModelOverhead(realtime, sim *devices.Fabric, rounds int) (real, modeled time.Duration, err error) {
	cfg := exchange.Config{Rounds: rounds, Credits: 1, SlotBytes: 64, GPUQueue: devices.AQL}
	if _, real, err = lifecycle(realtime, cfg); err != nil {
		return 0, 0, err
	}
	_, modeled, err = lifecycle(sim, cfg)
	return real, modeled, err
}

// SessionsPerSecond runs whole rounds-1 lifecycles for about d and returns
// how many per second completed.
func SessionsPerSecond(f *devices.Fabric, d time.Duration) (float64, error) {
	start := time.Now()
	n := 0
	for time.Since(start) < d {
		if _, _, err := lifecycle(f, exchange.Default()); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
