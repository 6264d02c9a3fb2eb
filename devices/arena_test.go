package devices

import (
	"os"
	"testing"

	"github.com/residentlua/residentlua/devices/event"

	"github.com/residentlua/residentlua/devices/memory"
)

// Buffers of a fabric are carved from its arena: ten thousand small buffers
// add no page-sized mapping each and at most one arena chunk.
func TestSmallBuffersCostNoMappingOfTheirOwn(t *testing.T) {
	f := mmFabric(t, Config{})
	p := mmProfile(t, f, memory.FineGrained)
	pages, _ := mmSharedMappings(t, os.Getpagesize())
	chunks, _ := mmSharedMappings(t, memory.ChunkBytes)
	var bufs []*Buffer
	for range 10000 {
		bufs = append(bufs, mmAlloc(t, p, 64))
	}
	if n, _ := mmSharedMappings(t, os.Getpagesize()); n != pages {
		t.Errorf("10000 buffers of 64 bytes added %d page-sized mappings, want none", n-pages)
	}
	if n, _ := mmSharedMappings(t, memory.ChunkBytes); n > chunks+1 {
		t.Errorf("10000 buffers of 64 bytes added %d chunks of %d bytes, want at most one", n-chunks, memory.ChunkBytes)
	}
	for _, b := range bufs {
		if err := b.Release(); err != nil {
			t.Fatal(err)
		}
	}
	mmCharged(t, f, 0, 0)
}

// A quarantined buffer's memory is never carved again while its quarantine
// lasts: buffers made and released around it never disturb it, and it goes
// back to the arena only when the quarantine ends.
func TestQuarantinedMemoryIsNeverReused(t *testing.T) {
	f, gpu, npu, q := mmShared(t, Config{}, 64)
	q.storeWord(60, 0xfeed)
	f.Quarantine(5, "test", []*Device{gpu, npu}, []*Buffer{q})
	p := mmProfile(t, f, memory.FineGrained)
	for range 2000 {
		b := mmAlloc(t, p, 64)
		b.Zero()
		if err := b.Release(); err != nil {
			t.Fatal(err)
		}
	}
	mmHost(t, "the quarantined buffer after 2000 others came and went", q, 60, 0xfeed)
	gpu.Reset()
	npu.Reset()
	if evs := mmEvents(f, event.EvRelease, q.ID()); len(evs) != 1 {
		t.Fatalf("release events of the quarantined buffer after both resets: %+v, want one", evs)
	}
	mmCharged(t, f, 0, 0)
}

// A real-time fabric's devices are threads on other cores, so its arena
// zeroes what it carves again without keeping the lines in the host's
// caches; a simulated fabric's devices run on the host's thread, so its
// arena keeps them there. A renewal to the other mode changes the arena.
func TestRealTimeFabricsCarveFromAnEvictingArena(t *testing.T) {
	f := mmFabric(t, Config{Mode: Simulated})
	for _, mode := range []Mode{Simulated, RealTime, RealTime, Simulated} {
		if err := f.Renew(Config{Mode: mode}); err != nil {
			t.Fatal(err)
		}
		if got, want := f.arena.Evicts(), mode == RealTime; got != want {
			t.Errorf("fabric renewed in %v: arena evicts %v, want %v", mode, got, want)
		}
	}
}
