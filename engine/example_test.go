package engine_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/programs/exchange"
)

// A whole resident session in simulated time: admit both participants,
// publish RUN, join both under one deadline, check the exchange, and close.
func ExampleSession() {
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	gpu, npu := f.First(devices.GPU), f.First(devices.NPU)

	s, err := engine.Open(gpu, npu, exchange.Programs(exchange.Config{
		Rounds: 100, Credits: 4, SlotBytes: 256, GPUQueue: devices.AQL,
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("state:", s.State())

	fmt.Println("submit gpu:", s.SubmitGPU())
	fmt.Println("submit gpu again:", s.SubmitGPU())
	fmt.Println("start too early:", s.Start())
	fmt.Println("submit npu:", s.SubmitNPU())
	fmt.Println("start:", s.Start())
	fmt.Println("state:", s.State())

	ok, err := s.Wait(time.Second)
	fmt.Println("wait:", ok, err)
	fmt.Println("state:", s.State())
	if v, ok := exchange.Of(s.NPU()).Verification(); ok {
		fmt.Printf("verified %d of %d generations: ok=%v\n", v.Verified, v.Rounds, v.OK)
	}

	fmt.Println("close:", s.Close())
	fmt.Println("state:", s.State())
	fmt.Println("bytes charged:", f.Budget().State().Charged)
	// Output:
	// state: undecided
	// submit gpu: <nil>
	// submit gpu again: busy: submit_gpu: GPU participant already submitted
	// start too early: busy: start: both resident participants must be accepted before RUN
	// submit npu: <nil>
	// start: <nil>
	// state: running
	// wait: true <nil>
	// state: retired
	// verified 100 of 100 generations: ok=true
	// close: retired
	// state: closed
	// bytes charged: 0
}

// A GPU program that never retires: Close cannot join it, so it quarantines
// the session, keeping its memory mapped and charged and both devices
// occupied, until both devices are reset.
func ExampleSession_quarantine() {
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	gpu, npu := f.First(devices.GPU), f.First(devices.NPU)
	if err := f.Faults().Set(fault.GPURun, "hang"); err != nil {
		fmt.Println(err)
		return
	}

	s, err := engine.Open(gpu, npu, exchange.Programs(exchange.Default()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, step := range []func() error{s.SubmitGPU, s.SubmitNPU, s.Start} {
		if err := step(); err != nil {
			fmt.Println(err)
			return
		}
	}

	fmt.Println("close:", s.Close()) // joins for engine.DefaultCloseTimeout of virtual time
	fmt.Println("state:", s.State())
	for _, q := range f.Quarantines() {
		fmt.Printf("quarantine of session %d: %d bytes, waiting for %v (%s)\n", q.Owner, q.Bytes, q.Waiting, q.Label)
	}
	st := f.Budget().State()
	fmt.Printf("charged %d bytes, %d quarantined\n", st.Charged, st.Quarantined)
	fmt.Println("occupied:", gpu.Occupied(), npu.Occupied())

	gpu.Reset()
	fmt.Println("after resetting gpu0:", len(f.Quarantines()), "quarantine waiting for", f.Quarantines()[0].Waiting)
	npu.Reset()
	st = f.Budget().State()
	fmt.Println("after resetting npu0:", len(f.Quarantines()), "quarantines")
	fmt.Printf("charged %d bytes, %d quarantined\n", st.Charged, st.Quarantined)
	fmt.Println("occupied:", gpu.Occupied(), npu.Occupied())
	// Output:
	// close: quarantined
	// state: quarantined
	// quarantine of session 1: 384 bytes, waiting for [gpu0 npu0] (session 1: a participant did not retire within 10s)
	// charged 384 bytes, 384 quarantined
	// occupied: true true
	// after resetting gpu0: 1 quarantine waiting for [npu0]
	// after resetting npu0: 0 quarantines
	// charged 0 bytes, 0 quarantined
	// occupied: false false
}

// One owner runs short fabrics one after another in one fabric, renewing
// it for each: a session kept from before the renewal is refused, and
// never acts on the session the renewed fabric opens in its place.
func ExampleSession_renewedFabric() {
	cfg := devices.Config{Mode: devices.Simulated, Seed: 1}
	f, err := devices.NewFabric(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	old, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(exchange.Default()))
	if err != nil {
		fmt.Println(err)
		return
	}

	if err := f.Renew(cfg); err != nil { // closes the fabric and makes it again
		fmt.Println(err)
		return
	}
	s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(exchange.Default()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("same id:", s.ID() == old.ID())
	err = old.SubmitGPU()
	fmt.Println("stale:", errors.Is(err, failure.Stale))
	fmt.Println(err)
	fmt.Println("new session:", s.State())
	// Output:
	// same id: true
	// stale: true
	// stale: submit_gpu: session 1 was opened before its fabric was renewed; open a new one
	// new session: undecided
}
