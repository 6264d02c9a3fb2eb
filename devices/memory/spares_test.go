package memory

import "testing"

// A small region given back is kept and handed out again, zeroed, to the
// next Map of the same page count; a large one is unmapped at once.
func TestSmallMappingsAreReusedZeroedAndLargeOnesUnmapped(t *testing.T) {
	small, err := Map(3 * LineBytes)
	if err != nil {
		t.Fatal(err)
	}
	addr := small.Addr(0)
	small.Store(64, 0xbeef)
	if err := small.Unmap(); err != nil {
		t.Fatal(err)
	}
	again, err := Map(2 * LineBytes) // the same single page
	if err != nil {
		t.Fatal(err)
	}
	defer again.Unmap()
	if again.Addr(0) != addr {
		t.Errorf("Map did not reuse the page given back (%#x, then %#x)", addr, again.Addr(0))
	}
	if again.Len() != 2*LineBytes || again.Load(64) != 0 {
		t.Errorf("reused region: %d bytes, word at 64 = %#x; want 128 bytes, zeroed", again.Len(), again.Load(64))
	}

	large, err := Map((sparePages + 1) * pageBytes)
	if err != nil {
		t.Fatal(err)
	}
	before := spares.held()
	if err := large.Unmap(); err != nil {
		t.Fatal(err)
	}
	if spares.held() != before {
		t.Errorf("a mapping of %d pages was kept; only up to %d are", sparePages+1, sparePages)
	}
}

// The kept mappings never pass spareBytes.
func TestSparesAreBounded(t *testing.T) {
	s := &spareList{free: map[int][][]byte{}}
	page := make([]byte, pageBytes)
	kept := 0
	for i := 0; i < spareBytes/pageBytes+10; i++ {
		if s.give(page) {
			kept++
		}
	}
	if kept != spareBytes/pageBytes || s.held() != spareBytes {
		t.Errorf("kept %d pages (%d bytes), want %d pages", kept, s.held(), spareBytes/pageBytes)
	}
	if s.take(2) != nil || s.take(1) == nil {
		t.Error("take must find only mappings of the page count asked for")
	}
}

// held is how many bytes are kept.
func (s *spareList) held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}
