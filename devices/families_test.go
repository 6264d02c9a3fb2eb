package devices

import (
	"slices"
	"testing"
)

// Reach yields the buffers the program was prepared with, in their order.
func TestReachYieldsThePreparedBuffers(t *testing.T) {
	f, err := NewFabric(Config{Mode: Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	profiles, err := f.AllocationProfiles(f.Devices(), true)
	if err != nil {
		t.Fatal(err)
	}
	var bufs []*Buffer
	for range 2 {
		b, err := profiles[0].Allocate(64, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, b)
	}
	gpu := f.First(GPU)
	p, err := gpu.Prepare(slices.Collect(gpu.Families())[0], &starterProgram{}, 1, bufs...)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Collect(p.Reach()); !slices.Equal(got, bufs) {
		t.Errorf("Reach yields %v, the program was prepared with %v", got, bufs)
	}
}

// Quarantining answers what Quarantines lists, owner by owner.
func TestQuarantiningAgreesWithQuarantines(t *testing.T) {
	f, err := NewFabric(Config{Mode: Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Quarantining(5) {
		t.Fatal("a new fabric reports a quarantine")
	}
	f.Quarantine(5, "test", []*Device{f.First(GPU)}, nil)
	if !f.Quarantining(5) || f.Quarantining(6) || len(f.Quarantines()) != 1 || f.Quarantines()[0].Owner != 5 {
		t.Errorf("after quarantining owner 5: Quarantining(5)=%v, Quarantining(6)=%v, Quarantines=%+v", f.Quarantining(5), f.Quarantining(6), f.Quarantines())
	}
	f.First(GPU).Reset() // ends the quarantine that held it
	if f.Quarantining(5) {
		t.Errorf("the quarantine is still reported after its device was reset: %+v", f.Quarantines())
	}
}
