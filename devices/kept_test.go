package devices

import "testing"

// keptThing is what the tests keep with buffers.
type keptThing struct{ n int }

func simFabric(t *testing.T) *Fabric {
	t.Helper()
	f, err := NewFabric(Config{Mode: Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// lineOf allocates a one-line buffer of f.
func lineOf(t *testing.T, f *Fabric) *Buffer {
	t.Helper()
	profiles, err := f.AllocationProfiles(f.Devices(), true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := profiles[0].Allocate(64, nil, f.NewOwnerID())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Kept hands out a new object per call in one fabric's life, and what a
// recycled fabric handed out only to a later fabric, zeroed. The parts go
// through a sync.Pool, which may drop them, so the reuse is checked over a
// few tries.
func TestKeptIsReusedOnlyAfterRecycle(t *testing.T) {
	reused := false
	for try := 0; try < 20 && !reused; try++ {
		f := simFabric(t)
		b, c := lineOf(t, f), lineOf(t, f)
		first, second, other := Kept[keptThing](b), Kept[keptThing](b), Kept[keptThing](c)
		if first == second || first == other || second == other {
			t.Fatal("Kept handed out one object twice in one fabric's life")
		}
		first.n, second.n, other.n = 1, 2, 3
		for _, buf := range []*Buffer{b, c} {
			if err := buf.Release(); err != nil {
				t.Fatal(err)
			}
		}
		f.Recycle()
		g := simFabric(t)
		again := Kept[keptThing](lineOf(t, g))
		if again.n != 0 {
			t.Fatalf("Kept returned an object holding %d, want it zeroed", again.n)
		}
		reused = again == first
		g.Close()
	}
	if !reused {
		t.Error("in 20 tries Kept never reused what a recycled fabric handed out")
	}
}

// What Kept handed out with a buffer of a fabric that could not be recycled
// (it still holds that buffer) is never handed out again.
func TestKeptOfUnrecycledFabricIsNotReused(t *testing.T) {
	f := simFabric(t)
	held := Kept[keptThing](lineOf(t, f))
	f.Recycle() // only closes: the buffer was not released
	for range 20 {
		g := simFabric(t)
		b := lineOf(t, g)
		if got := Kept[keptThing](b); got == held {
			t.Fatal("Kept handed out again what a fabric that still holds its buffer handed out")
		}
		if err := b.Release(); err != nil {
			t.Fatal(err)
		}
		g.Recycle()
	}
}
