package gctune

import (
	"runtime/debug"
	"testing"
)

// TestForBatch checks that the target is Percent while a campaign runs,
// that restoring puts back the one before, and that GOGC in the
// environment wins.
func TestForBatch(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)
	restore := ForBatch()
	if got := debug.SetGCPercent(Percent); got != Percent {
		t.Errorf("the target during a campaign is %d, want %d", got, Percent)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("restored to %d, want 150", got)
	}
	t.Setenv("GOGC", "50")
	ForBatch()()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC set, the target became %d, want 150 left alone", got)
	}
}
