package devices

import (
	"os"
	"testing"

	"residentlua/devices/memory"
)

// Buffers of a fabric are carved from its arena: ten thousand small buffers
// add no page-sized mapping each and at most one arena chunk.
func TestSmallBuffersCostNoMappingOfTheirOwn(t *testing.T) {
	f := mmFabric(t, Config{})
	p := mmProfile(t, f, FineGrained)
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
