package devices

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/memory"

	"github.com/residentlua/residentlua/devices/program"
)

// simRun allocates and releases a buffer on f, stores into it, lets time
// pass, and returns the fabric's event digest (events, times, budget
// figures and ids all feed it).
func simRun(t *testing.T, f *Fabric) uint64 {
	t.Helper()
	b := mmAlloc(t, mmProfile(t, f, memory.FineGrained), 256)
	if err := b.storeWord(0, 7); err != nil {
		t.Fatal(err)
	}
	c := mmDispatch(t, mmPrepare(t, f.First(GPU), AQL, &mmProgram{step: func(program.Env) program.Next { return program.Retire(nil) }}, 1, b))
	if ok, err := c.waitFor(time.Millisecond); !ok || err != nil {
		t.Fatalf("the program did not retire: %v, %v", ok, err)
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	f.Advance(time.Millisecond)
	return f.Events().Digest()
}

// A renewed fabric starts as a new one made from the same config does:
// same seed, same events, same digest; and renewing it again with another
// seed gives that seed's.
func TestRenewedFabricStartsAfresh(t *testing.T) {
	fresh := func(seed uint64) uint64 {
		f, err := NewFabric(Config{Mode: Simulated, Seed: seed, Budget: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return simRun(t, f)
	}
	want42, want7 := fresh(42), fresh(7)
	f, err := NewFabric(Config{Mode: Simulated, Seed: 7, Budget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := simRun(t, f); got != want7 {
		t.Fatalf("a new fabric's digest is %#x, another's of the same seed %#x", got, want7)
	}
	for i, seed := range []uint64{42, 7, 42} {
		if err := f.Renew(Config{Mode: Simulated, Seed: seed, Budget: 1 << 20}); err != nil {
			t.Fatal(err)
		}
		if g := f.generation.Load(); g != uint64(i+1) {
			t.Errorf("after %d renewals the generation is %d", i+1, g)
		}
		if n := f.Events().Count(); n != 0 || f.Now() != 0 {
			t.Errorf("the renewed fabric starts with %d events at %v, want none at 0", n, f.Now())
		}
		want := map[uint64]uint64{42: want42, 7: want7}[seed]
		if got := simRun(t, f); got != want {
			t.Errorf("renewal %d (seed %d): digest %#x, a new fabric's is %#x", i+1, seed, got, want)
		}
	}
}

// Every handle made before a renewal, its buffers, profiles, prepared
// programs, views, publications and completions, is refused with a
// failure.Stale error, and acts on nothing: not on the buffer the renewed
// fabric makes with the same id, not on its events, budget or devices.
func TestStaleHandlesAreRefused(t *testing.T) {
	f, err := NewFabric(Config{Mode: Simulated, Seed: 5, Budget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gpu, npu := f.First(GPU), f.First(NPU)
	profile := mmProfile(t, f, memory.FineGrained)
	old := mmAlloc(t, profile, 64) // never released: its memory stays its own
	if err := old.storeWord(0, 11); err != nil {
		t.Fatal(err)
	}
	pub, err := old.PrepareHostRelease(npu, mmFamily(t, npu, XDNA), 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	hang := &mmProgram{step: func(env program.Env) program.Next { return program.Sleep(time.Hour) }}
	running := mmDispatch(t, mmPrepare(t, gpu, AQL, hang, 1, old))
	prepared := mmPrepare(t, npu, XDNA, &mmProgram{step: func(program.Env) program.Next { return program.Retire(nil) }}, 1, old)

	if err := f.Renew(Config{Mode: Simulated, Seed: 5, Budget: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	fresh := mmAlloc(t, mmProfile(t, f, memory.FineGrained), 64)
	if fresh.ID() != old.ID() {
		t.Fatalf("the renewed fabric's first buffer is %d, the stale one %d: the test needs the ids to meet", fresh.ID(), old.ID())
	}
	events, budget := f.Events().Count(), f.Budget().State()

	_, viewErr := old.View(gpu, mmFamily(t, gpu, AQL))
	_, pubErr := old.PrepareHostRelease(npu, mmFamily(t, npu, XDNA), 0, 64)
	_, allocErr := profile.Allocate(64, nil, 0)
	_, prepErr := gpu.Prepare(mmFamily(t, gpu, AQL), hang, 1, fresh, old)
	_, dispatchErr := prepared.Dispatch()
	_, waitErr := running.WaitContext(context.Background(), time.Millisecond)
	for what, err := range map[string]error{
		"Zero":                   old.Zero(),
		"Release":                old.Release(),
		"View":                   viewErr,
		"PrepareHostRelease":     pubErr,
		"Publish":                publishErr(old.Publish(event.Event{}, 0, 99, nil)),
		"Publish of stale pubs":  publishErr(fresh.Publish(event.Event{}, 0, 99, []*Publication{pub})),
		"Profile.Allocate":       allocErr,
		"Prepare reaching it":    prepErr,
		"Dispatch":               dispatchErr,
		"Completion.WaitContext": waitErr,
		"Quarantine":             f.Quarantine(1, "stale", []*Device{gpu}, []*Buffer{old}),
	} {
		mmKind(t, what, err, failure.Stale)
		if !strings.Contains(err.Error(), "renewed") {
			t.Errorf("%s: %q does not say the fabric was renewed", what, err)
		}
	}
	if got := fresh.HostLoad(0); got != 0 {
		t.Errorf("the renewed fabric's buffer %d holds %d: a stale handle wrote it", fresh.ID(), got)
	}
	if got := old.HostLoad(0); got != 11 {
		t.Errorf("the stale buffer holds %d, want its own 11: the renewed fabric carved its memory again", got)
	}
	if n := f.Events().Count(); n != events {
		t.Errorf("stale handles added %d events to the renewed fabric", n-events)
	}
	if st := f.Budget().State(); st != budget {
		t.Errorf("stale handles changed the renewed budget from %+v to %+v", budget, st)
	}
	if qs := f.Quarantines(); len(qs) != 0 {
		t.Errorf("a stale quarantine holds the renewed fabric: %+v", qs)
	}
	if c := mmDispatch(t, mmPrepare(t, gpu, AQL, &mmProgram{step: func(program.Env) program.Next { return program.Retire(nil) }}, 2, fresh)); c == nil {
		t.Error("the renewed GPU refused a new program: the stale one still occupies it")
	}
}

// Renew keeps the fabric's devices: another set of devices is refused,
// saying why, and the fabric is left as it was, its handles still current.
func TestRenewRefusesOtherDevices(t *testing.T) {
	f, err := NewFabric(Config{Mode: Simulated, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := mmAlloc(t, mmProfile(t, f, memory.FineGrained), 64)
	for _, cfg := range []Config{
		{Mode: Simulated, Devices: []DeviceConfig{{Kind: GPU, Families: []Command{AQL}}}},
		{Mode: Simulated, Devices: []DeviceConfig{{Name: "other", Kind: GPU, Families: []Command{PM4, AQL}}, {Kind: NPU, Families: []Command{XDNA}}}},
		{Mode: Simulated, Budget: -1},
	} {
		err := f.Renew(cfg)
		mmKind(t, "Renew", err, failure.Invalid)
	}
	if g := f.generation.Load(); g != 0 {
		t.Errorf("a refused Renew moved the generation to %d", g)
	}
	if err := b.storeWord(0, 1); err != nil {
		t.Errorf("after a refused Renew the fabric's buffer is refused: %v", err)
	}
}

// A real-time fabric renews too: its device threads stop with the old
// generation and the renewed fabric runs programs on new ones.
func TestRenewedRealTimeFabricRuns(t *testing.T) {
	f, err := NewFabric(Config{Mode: RealTime, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for round := range 3 {
		b := mmAlloc(t, mmProfile(t, f, memory.FineGrained), 64)
		c := mmDispatch(t, mmPrepare(t, f.First(GPU), AQL, &mmProgram{step: func(program.Env) program.Next { return program.Retire(nil) }}, 1, b))
		if ok, err := c.waitFor(mmSoon); !ok || err != nil {
			t.Fatalf("round %d: the program did not retire: %v, %v", round, ok, err)
		}
		if err := b.Release(); err != nil {
			t.Fatal(err)
		}
		if err := f.Renew(Config{Mode: RealTime, Seed: 3}); err != nil {
			t.Fatal(err)
		}
	}
}
