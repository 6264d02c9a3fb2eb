package devices

import (
	"testing"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/program"
)

// A caller's EventBuffer becomes the ring's storage when it is large
// enough, and the ring still keeps the last EventCapacity events; a smaller
// one is left alone.
func TestEventBufferIsTheRingsStorage(t *testing.T) {
	buf := make([]event.Event, 3, 4)
	f, err := NewFabric(Config{Mode: Simulated, Seed: 1, EventCapacity: 4, EventBuffer: buf})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := uint64(1); i <= 6; i++ {
		f.Events().Emit(event.HostActor, 7, event.EvHostStore, i, 0, "")
	}
	kept := f.Events().Events(nil)
	if len(kept) != 4 || kept[0].A != 3 || kept[3].A != 6 {
		t.Fatalf("kept %v, want the last 4 events (A=3..6)", kept)
	}
	if buf[:4][0].A != 5 || buf[:4][3].A != 4 {
		t.Error("the ring does not live in the given buffer")
	}

	small := make([]event.Event, 0, 2)
	g, err := NewFabric(Config{Mode: Simulated, Seed: 1, EventCapacity: 4, EventBuffer: small})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	g.Events().Emit(event.HostActor, 7, event.EvHostStore, 1, 0, "")
	if small[:1][0].A != 0 {
		t.Error("a buffer smaller than the capacity was used")
	}
}

func TestEventKindsAreDefinedOnceWithTheirCategory(t *testing.T) {
	// Each kind carries the category it was defined with; a kind defined
	// twice is a programming error caught when the program starts.
	for kind, want := range map[program.EventKind]program.EventCategory{
		event.EvAlloc: program.CategoryMemory, event.EvHostStore: program.CategoryHost, event.EvDispatch: program.CategoryDevice,
		event.EvFault: program.CategoryFault, event.EvQuarantineEnd: program.CategoryMemory,
	} {
		if got := kind.Category(); got != want {
			t.Errorf("%s: category %s, want %s", kind, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("defining alloc twice did not panic")
		}
	}()
	program.DefineEvent("alloc", program.CategoryDevice)
}
