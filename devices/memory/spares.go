package memory

import (
	"os"
	"sync"
)

// pageBytes is the system's page size, the unit of every mapping.
var pageBytes = os.Getpagesize()

// pages is how many pages hold size bytes.
func pages(size int) int { return (size + pageBytes - 1) / pageBytes }

// Bounds of the mappings kept for reuse: each of at most sparePages pages,
// at most spareBytes in all. Larger mappings are unmapped at once.
const (
	sparePages = 16
	spareBytes = 64 << 20
)

// spares keeps small mappings that regions gave back, by page count, for
// Map to reuse: a simulated campaign makes and releases a few small buffers
// per trial, and mmap, munmap and the first touch of fresh pages cost more
// than the trial's own work and serialize parallel trials on the process's
// memory map. Only memory that was released, so that no device can reach
// it, comes here; quarantined memory is neither unmapped nor kept.
var spares = &spareList{free: map[int][][]byte{}}

type spareList struct {
	mu    sync.Mutex
	free  map[int][][]byte // whole mappings, by page count
	bytes int
}

// take returns a kept mapping of n pages, or nil.
func (s *spareList) take(n int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.free[n]
	if len(list) == 0 {
		return nil
	}
	b := list[len(list)-1]
	s.free[n] = list[:len(list)-1]
	s.bytes -= len(b)
	return b
}

// give keeps a whole mapping unless it is too large or would pass
// spareBytes; false means the caller unmaps it.
func (s *spareList) give(b []byte) bool {
	n := len(b) / pageBytes
	if n > sparePages {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bytes+len(b) > spareBytes {
		return false
	}
	s.free[n] = append(s.free[n], b)
	s.bytes += len(b)
	return true
}
