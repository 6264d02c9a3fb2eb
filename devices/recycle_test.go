package devices

import (
	"testing"
	"time"
)

// simRun makes a simulated fabric with seed, allocates and releases a
// buffer, lets time pass, and returns the fabric with its event digest
// (events, times, budget figures and ids all feed it).
func simRun(t *testing.T, seed uint64) (*Fabric, uint64) {
	t.Helper()
	f, err := NewFabric(Config{Mode: Simulated, Seed: seed, Budget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := f.AllocationProfiles(f.Devices(), true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := profiles[0].Allocate(256, nil, f.NewOwnerID())
	if err != nil {
		t.Fatal(err)
	}
	b.HostStore(0, 7)
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	f.Advance(time.Millisecond)
	return f, f.Events().Digest()
}

// A recycled fabric's memory makes the next fabric, which starts as a new
// one does: same seed, same events. The parts go through a sync.Pool, which
// may drop what it is given (the race detector makes it drop some on
// purpose), so the reuse is checked over a few tries.
func TestRecycledFabricStartsAfresh(t *testing.T) {
	fresh, want := simRun(t, 42)
	fresh.Close()
	reused := false
	for try := 0; try < 20 && !reused; try++ {
		used, _ := simRun(t, 7)
		parts := used.parts
		used.Recycle()
		if used.parts != nil {
			t.Fatal("a fabric that holds nothing was not recycled")
		}
		again, got := simRun(t, 42)
		reused = again.parts == parts
		again.Close()
		if got != want {
			t.Fatalf("after recycling the events' digest is %#x; a new fabric's is %#x", got, want)
		}
	}
	if !reused {
		t.Error("in 20 tries the next fabric never reused the recycled one's memory")
	}
}

// A fabric that still holds memory (a buffer never released) is only
// closed: its memory could still be reached.
func TestFabricHoldingMemoryIsNotRecycled(t *testing.T) {
	f, err := NewFabric(Config{Mode: Simulated, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := f.AllocationProfiles(f.Devices(), true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := profiles[0].Allocate(64, nil, f.NewOwnerID()); err != nil {
		t.Fatal(err)
	}
	parts := f.parts
	f.Recycle()
	if g, err := NewFabric(Config{Mode: Simulated, Seed: 3}); err != nil || g.parts == parts {
		t.Errorf("NewFabric after recycling a fabric that holds a buffer = %v; reused its memory: %v", err, g != nil && g.parts == parts)
	}
}
