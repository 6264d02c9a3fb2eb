package gctune

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestForBatch checks that the target is Percent and the soft memory
// limit the one given while a batch runs, that restoring puts back both,
// and that GOGC in the environment wins over the target but not the limit.
func TestForBatch(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)
	beforeLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(beforeLimit)
	restore := ForBatch(1 << 30)
	if got := debug.SetGCPercent(Percent); got != Percent {
		t.Errorf("the target during a batch is %d, want %d", got, Percent)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("the soft memory limit during a batch is %d, want %d", got, 1<<30)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("restored to %d, want 150", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("the soft memory limit restored to %d, want none", got)
	}
	ForBatch(0)()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("a batch with no limit left the soft memory limit at %d", got)
	}
	t.Setenv("GOGC", "50")
	ForBatch(0)()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC set, the target became %d, want 150 left alone", got)
	}
}
