// Package memory is the project's one place for raw memory: regions of
// mappings made with mmap (anonymous, shared) whose 32-bit words are read and
// written with atomics. Everything a device can reach lives in a Region;
// nothing outside this package converts pointers or touches the mapping
// directly. Small regions are carved from an Arena's larger mappings; the
// package counts the mappings it holds and refuses, with an error, to make
// more than the system's limit allows (see mapLimit). Kind names the ways
// memory is shared by devices (fine-grained, coarse-grained, device-local,
// pinned), which a fabric's allocation profiles offer.
//
// Offsets are byte offsets, 4-byte aligned and inside the region; a bad offset
// is a programming error and panics. A Region must not be used after Unmap:
// callers (the devices package) unmap only what no device can still reach.
package memory

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// LineBytes is the size of a cache line and the alignment of every region.
const LineBytes = 64

// Region is a zeroed, line-aligned block of mapped memory: a mapping of its
// own, a block carved from an Arena's chunk, or foreign memory.
type Region struct {
	bytes []byte
	home  *chunk // the chunk a carved region came from, or a foreign region's lender; nil for a mapping of its own
}

// Map maps size bytes (rounded up to whole lines) of zeroed shared anonymous
// memory as a mapping of its own.
func Map(size int) (*Region, error) {
	if size <= 0 {
		return nil, fmt.Errorf("memory: cannot map %d bytes; size must be positive", size)
	}
	size = RoundUp(size)
	b, err := mmap(size)
	if err != nil {
		return nil, err
	}
	return &Region{bytes: b[:size]}, nil
}

// pageBytes is the system's page size, the unit of every mapping.
var pageBytes = os.Getpagesize()

// mappings counts the mappings the package holds: its own regions, and the
// chunks of arenas and of the pool.
var mappings atomic.Int64

// mapLimit is how many mappings the package may hold: half of the system's
// vm.max_map_count, leaving the rest to the Go runtime and everything else
// in the process, and at most 65,536 (a chunk or a quarantined region each;
// more is a leak, not a workload). Past the system's limit mmap fails for
// the runtime too, and the process dies; this package refuses first, with
// an error.
var mapLimit = func() int64 {
	const linuxDefault = 65530
	n := int64(linuxDefault)
	if b, err := os.ReadFile("/proc/sys/vm/max_map_count"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 {
			n = v
		}
	}
	return min(n/2, 1<<16)
}()

// mmap maps whole pages covering size bytes, counted against mapLimit.
func mmap(size int) ([]byte, error) {
	if n := mappings.Add(1); n > mapLimit {
		mappings.Add(-1)
		return nil, fmt.Errorf("memory: the process already holds %d memory mappings, half of the system's limit (vm.max_map_count); close sessions, reset devices to end quarantines, or raise vm.max_map_count", n-1)
	}
	length := (size + pageBytes - 1) / pageBytes * pageBytes
	// MmapPtr, not Mmap: Mmap records every mapping in a table under a
	// process-wide lock, which campaign trials on every core would share.
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(length), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		mappings.Add(-1)
		return nil, fmt.Errorf("memory: mmap of %d bytes failed: %w; close sessions, reset devices to end quarantines, or lower the memory budget", size, err)
	}
	return unsafe.Slice((*byte)(p), length), nil
}

// munmap gives back a whole mapping that mmap made: b's capacity is its
// length.
func munmap(b []byte) error {
	err := unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(cap(b)))
	if err == nil {
		mappings.Add(-1)
	}
	return err
}

// RoundUp rounds n up to a whole number of lines.
func RoundUp(n int) int {
	return (n + LineBytes - 1) &^ (LineBytes - 1)
}

// Len is the region's size in bytes.
func (r *Region) Len() int { return len(r.bytes) }

func (r *Region) word(off int) *uint32 {
	if off < 0 || off > len(r.bytes)-4 || off%4 != 0 {
		panic(misplacedWord{off, 4, len(r.bytes)})
	}
	// Every region starts on a line and off is 4-aligned, so the word is
	// aligned; it lies in the region, as the test above made sure.
	return (*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(r.bytes)), off))
}

// misplacedWord is what a load or store panics with for a word outside
// the region or not aligned to its size: a caller's bug. It is a value
// that makes its message only when printed, so that word and word64,
// which every load and store calls, stay small enough to be inlined.
type misplacedWord struct{ off, size, regionBytes int }

func (m misplacedWord) Error() string {
	return fmt.Sprintf("memory: %d-byte word offset %d outside region of %d bytes or not %d-aligned", m.size, m.off, m.regionBytes, m.size)
}

// Load reads the word at off with acquire (sequentially consistent) ordering.
func (r *Region) Load(off int) uint32 { return atomic.LoadUint32(r.word(off)) }

// Store writes the word at off with release (sequentially consistent) ordering.
func (r *Region) Store(off int, v uint32) { atomic.StoreUint32(r.word(off), v) }

// StorePlain writes the word at off with a plain store, which has no
// ordering of its own: another thread may read the word only after it has
// loaded a later Store of this thread (the flag that publishes the data),
// which orders it; reading it otherwise is a data race. A kernel writes its
// data so before the release store of its flag, and it saves the fence
// that every Store is on amd64 (docs/memory-model.md, rule 8).
func (r *Region) StorePlain(off int, v uint32) { *r.word(off) = v }

// WritePlain stores words from off on with plain stores, one after
// another, as StorePlain does each.
func (r *Region) WritePlain(off int, words []uint32) {
	if len(words) == 0 {
		return
	}
	r.word(off + 4*(len(words)-1)) // the last word is in the region
	copy(unsafe.Slice(r.word(off), len(words)), words)
}

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

// Unmap gives the memory back: to the system for a region of its own, to
// its arena for a carved one (which may carve it again, zeroed), to the
// allocator that lent a foreign one. The region must not be used again.
func (r *Region) Unmap() error {
	if r.bytes == nil {
		return fmt.Errorf("memory: region already unmapped")
	}
	var err error
	switch {
	case r.home == nil:
		err = munmap(r.bytes[:cap(r.bytes)])
	case r.home.lent != nil:
		err = r.home.lent()
	default:
		r.home.arena.give(r)
	}
	r.bytes, r.home = nil, nil // a region kept in its owner's storage (AllocIn) keeps no chunk mapped
	return err
}

// Foreign wraps size bytes at addr that another allocator owns, such as
// pinned host memory from a GPU driver: addr must be line-aligned, the
// memory must stay valid until free is called, and Unmap calls free instead
// of munmap. Foreign zeroes the memory.
func Foreign(addr uintptr, size int, free func() error) (*Region, error) {
	if addr == 0 || addr%LineBytes != 0 || size <= 0 || size%LineBytes != 0 {
		return nil, fmt.Errorf("memory: foreign memory at %#x of %d bytes is not line-aligned whole lines", addr, size)
	}
	// addr is memory outside the Go heap that the caller vouches for; going
	// through a pointer to it keeps vet's uintptr check quiet on purpose.
	b := unsafe.Slice(*(**byte)(unsafe.Pointer(&addr)), size)
	clear(b)
	return &Region{bytes: b, home: &chunk{lent: free}}, nil
}

// Addr is the address of byte off of the region, for handing memory that is
// not Go's to a driver (never a Go pointer). off may equal Len.
func (r *Region) Addr(off int) uintptr {
	if off < 0 || off > len(r.bytes) {
		panic(fmt.Sprintf("memory: offset %d outside region of %d bytes", off, len(r.bytes)))
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(r.bytes))) + uintptr(off)
}

// Load64 reads the 8-byte-aligned word at off atomically.
func (r *Region) Load64(off int) uint64 { return atomic.LoadUint64(r.word64(off)) }

// Store64 writes the 8-byte-aligned word at off atomically.
func (r *Region) Store64(off int, v uint64) { atomic.StoreUint64(r.word64(off), v) }

func (r *Region) word64(off int) *uint64 {
	if off < 0 || off > len(r.bytes)-8 || off%8 != 0 {
		panic(misplacedWord{off, 8, len(r.bytes)})
	}
	return (*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(r.bytes)), off))
}

// Write copies b into the region at off, for data a driver reads (a
// program image, a C string). Nothing else may access those bytes meanwhile.
func (r *Region) Write(off int, b []byte) {
	if off < 0 || off+len(b) > len(r.bytes) {
		panic(fmt.Sprintf("memory: %d bytes at %d outside region of %d bytes", len(b), off, len(r.bytes)))
	}
	copy(r.bytes[off:], b)
}

// Read copies n bytes at off out of the region.
func (r *Region) Read(off, n int) []byte {
	if off < 0 || n < 0 || off+n > len(r.bytes) {
		panic(fmt.Sprintf("memory: %d bytes at %d outside region of %d bytes", n, off, len(r.bytes)))
	}
	return append([]byte(nil), r.bytes[off:off+n]...)
}
