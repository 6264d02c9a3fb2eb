// Package memory is the project's one place for raw memory: regions mapped
// with mmap (anonymous, shared) whose 32-bit words are read and written with
// atomics. Everything a device can reach lives in a Region; nothing outside
// this package converts pointers or touches the mapping directly.
//
// Offsets are byte offsets, 4-byte aligned and inside the region; a bad offset
// is a programming error and panics. A Region must not be used after Unmap:
// callers (the devices package) unmap only what no device can still reach.
package memory

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// LineBytes is the size of a cache line and the alignment of every region.
const LineBytes = 64

// Region is a zeroed, line-aligned block of mapped memory.
type Region struct {
	bytes []byte
}

// Map maps size bytes (rounded up to whole lines) of zeroed shared anonymous
// memory.
func Map(size int) (*Region, error) {
	if size <= 0 {
		return nil, fmt.Errorf("memory: cannot map %d bytes; size must be positive", size)
	}
	size = RoundUp(size)
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("memory: mmap of %d bytes failed: %w", size, err)
	}
	return &Region{bytes: b}, nil
}

// RoundUp rounds n up to a whole number of lines.
func RoundUp(n int) int {
	return (n + LineBytes - 1) &^ (LineBytes - 1)
}

// Len is the region's size in bytes.
func (r *Region) Len() int { return len(r.bytes) }

func (r *Region) word(off int) *uint32 {
	if off < 0 || off+4 > len(r.bytes) || off%4 != 0 {
		panic(fmt.Sprintf("memory: word offset %d outside region of %d bytes or not 4-aligned", off, len(r.bytes)))
	}
	// The mapping is page-aligned and off is 4-aligned, so the word is aligned.
	return (*uint32)(unsafe.Pointer(&r.bytes[off]))
}

// Load reads the word at off with acquire (sequentially consistent) ordering.
func (r *Region) Load(off int) uint32 { return atomic.LoadUint32(r.word(off)) }

// Store writes the word at off with release (sequentially consistent) ordering.
func (r *Region) Store(off int, v uint32) { atomic.StoreUint32(r.word(off), v) }

// Xor flips bits of the word at off atomically.
func (r *Region) Xor(off int, mask uint32) {
	w := r.word(off)
	for {
		old := atomic.LoadUint32(w)
		if atomic.CompareAndSwapUint32(w, old, old^mask) {
			return
		}
	}
}

// Unmap returns the memory to the system. The region must not be used again.
func (r *Region) Unmap() error {
	if r.bytes == nil {
		return fmt.Errorf("memory: region already unmapped")
	}
	err := unix.Munmap(r.bytes)
	r.bytes = nil
	return err
}
