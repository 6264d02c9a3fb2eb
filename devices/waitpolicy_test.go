package devices

import (
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/wait"
)

// withCores sets GOMAXPROCS to n until the test ends, so that NewFabric
// sees n usable cores. No test of this package runs in parallel with it.
func withCores(t testing.TB, n int) {
	t.Helper()
	saved := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(saved) })
}

// spinnable lets a fabric of cfg spin on a machine with fewer cores than
// its participants (this one has two): the test then checks correctness,
// not speed, as spinning threads take turns on the cores.
func spinnable(t testing.TB, cfg Config) {
	t.Helper()
	n := len(cfg.Devices)
	if cfg.Devices == nil {
		n = len(DefaultDevices())
	}
	withCores(t, max(usableCores(), n+1))
}

// Spin needs a core for every device and one for the host; otherwise
// NewFabric says how many it needs, how many there are, and what to use.
// Other policies, and spin in simulated time, need none.
func TestSpinNeedsACorePerParticipant(t *testing.T) {
	withCores(t, 2)
	_, err := NewFabric(Config{Mode: RealTime, Wait: wait.Spin})
	var de *failure.Error
	if !errors.As(err, &de) || de.Kind != failure.Invalid {
		t.Fatalf("spin with 2 devices on 2 cores: %v; want an invalid error", err)
	}
	for _, want := range []string{"3 spinning participants", "2 devices and the waiting host", "2 are usable", "hybrid"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	one := []DeviceConfig{{Name: "gpu0", Kind: GPU, Families: []Command{AQL}}}
	for _, cfg := range []Config{
		{Mode: RealTime, Wait: wait.Spin, Devices: one},
		{Mode: RealTime, Wait: wait.Hybrid},
		{Mode: RealTime, Wait: wait.Block},
		{Mode: Simulated, Wait: wait.Spin},
	} {
		f, err := NewFabric(cfg)
		if err != nil {
			t.Errorf("%s with %d devices on 2 cores: %v; want a fabric", mmName(cfg), len(cfg.Devices), err)
			continue
		}
		if f.Wait() != cfg.Wait {
			t.Errorf("the fabric's policy is %v, want %v", f.Wait(), cfg.Wait)
		}
		f.Close()
	}
	if _, err := NewFabric(Config{Mode: RealTime, Wait: wait.Policy(9)}); !errors.As(err, &de) || de.Kind != failure.Invalid {
		t.Errorf("an unknown policy: %v; want an invalid error", err)
	}
}

// How each policy paces a poll: block never polls, spin with no budget
// polls on and on, hybrid with none stops at its second clock read: after
// two bursts and a yield where it yields, after twice pollsPerClock polls
// otherwise.
func TestBackoffByPolicy(t *testing.T) {
	block := backoff{policy: wait.Block, budget: time.Hour}
	if block.next() {
		t.Error("block polled; want it to block at once")
	}
	spin := backoff{policy: wait.Spin, budget: forever}
	for i := 0; i < 100*pollsPerYield; i++ {
		if !spin.next() {
			t.Fatalf("spin stopped polling after %d polls; want it to poll while the wait lasts", i)
		}
	}
	for _, tc := range []struct {
		yields bool
		want   int
	}{{true, 2 * pollsPerYield}, {false, 2 * pollsPerClock}} {
		hybrid := backoff{policy: wait.Hybrid, yields: tc.yields}
		polls := 1
		for hybrid.next() {
			polls++
		}
		if polls != tc.want {
			t.Errorf("hybrid (yields %v) with no budget made %d polls, want %d", tc.yields, polls, tc.want)
		}
	}
}

// Closing a spinning fabric ends its threads: a program spinning on a word
// no one writes is reset, and an idle device's thread ends too (Close
// waits for every device goroutine).
func TestSpinFabricCloseEndsItsThreads(t *testing.T) {
	cfg := Config{Mode: RealTime, Wait: wait.Spin}
	spinnable(t, cfg)
	f, err := NewFabric(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gpu := f.First(GPU)
	b := mmAlloc(t, mmProfile(t, f, memory.FineGrained), 64)
	var seen atomic.Uint32
	c := mmDispatch(t, mmPrepare(t, gpu, AQL, mmWaitNonZero(mmView(t, b, gpu, AQL), 0, &seen), 1, b))
	f.Close()
	done, err := c.IsComplete()
	var de *failure.Error
	if !done || !errors.As(err, &de) || de.Op != "reset" {
		t.Errorf("after Close the spinning program is done=%v with %v; want it reset", done, err)
	}
	if seen.Load() != 0 {
		t.Errorf("the program saw %d in a word no one wrote", seen.Load())
	}
}
