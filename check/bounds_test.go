package check_test

import (
	"slices"
	"testing"

	"github.com/residentlua/residentlua/check"
)

// TestBoundNamesCannotBeChanged changes the list BoundNames gives: the next
// call, and Bounds.Set, still know every bound.
func TestBoundNamesCannotBeChanged(t *testing.T) {
	names := check.BoundNames()
	want := slices.Clone(names)
	for i := range names {
		names[i] = "changed"
	}
	if got := check.BoundNames(); !slices.Equal(got, want) || len(got) != 5 {
		t.Errorf("BoundNames after its list was changed: %v, want %v", got, want)
	}
	var b check.Bounds
	for _, name := range want {
		if err := b.Set(name, 1); err != nil {
			t.Errorf("Set(%q, 1): %v", name, err)
		}
	}
}
