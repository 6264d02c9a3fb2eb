package seeds

import "testing"

// TestChosenSeedsPrintWhole checks that chosen and derived seeds are from 1
// to below 10^14, which Lua 5.1's print shows whole, and that a run's first
// fabric has the run's own seed.
func TestChosenSeedsPrintWhole(t *testing.T) {
	for range 1000 {
		if s := Choose(); s < 1 || s >= chosenLimit {
			t.Fatalf("Choose() = %d, want 1 to %d", s, uint64(chosenLimit-1))
		}
	}
	if got := Derive(Max, 1); got != Max {
		t.Errorf("Derive(Max, 1) = %d, want the run's seed", got)
	}
	seen := map[uint64]bool{}
	for k := uint64(2); k < 1000; k++ {
		s := Derive(7, k)
		if s < 1 || s >= chosenLimit || seen[s] {
			t.Fatalf("Derive(7, %d) = %d: out of 1..10^14-1, or given before", k, s)
		}
		if s != Derive(7, k) {
			t.Fatalf("Derive(7, %d) differs from one call to the next", k)
		}
		seen[s] = true
	}
}
