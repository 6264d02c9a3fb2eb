package devices

import (
	"slices"
	"testing"
)

// Families yields what QueueFamilies lists, in the same order.
func TestFamiliesYieldsTheQueueFamilies(t *testing.T) {
	f, err := NewFabric(Config{Mode: Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, d := range f.Devices() {
		if got, want := slices.Collect(d.Families()), d.QueueFamilies(); !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s: Families yields %v, QueueFamilies lists %v", d.Name(), got, want)
		}
	}
}
