package memory

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"unsafe"
)

// Sizes of an arena's mappings and of what it carves from them.
const (
	// ChunkBytes is the size of the mappings an arena carves regions from.
	ChunkBytes = 1 << 20
	// MaxCarved is the largest region an arena carves; a larger one gets a
	// mapping of its own.
	MaxCarved = ChunkBytes / 4
	// classes is the number of block sizes, LineBytes << c for c in [0, classes).
	classes = 13
)

// Arena carves line-aligned regions out of a few large mappings, so that
// many small buffers cost no mapping each. Each region is a block of a size
// class (a power of two of lines) and is zeroed when it is carved; a region
// given back (Unmap) is carved again only for its class. A chunk whose
// regions were all given back returns to a pool of empty chunks, which the
// next arena to need a chunk takes it from. A region never given back
// (quarantined memory) keeps its chunk mapped, and its bytes are never carved
// again.
// An Arena is safe for concurrent use.
// The zero Arena is empty and ready to use; it maps nothing until its first
// Alloc.
//
// An arena made by NewArenaOf carves foreign memory instead, such as pinned
// host memory a GPU driver allocates, where each allocation costs far more
// than a trial's work: its chunks are regions its source lends, an empty
// chunk stays with the arena for its next Alloc instead of going to the
// pool, and Release gives the empty ones back to the source.
type Arena struct {
	mu     sync.Mutex
	newest *chunk // the chunks, newest first, linked by older
	// source lends the chunks of an arena made by NewArenaOf (nil: mmap).
	source func(size int) (*Region, error)
	spare  []*chunk // a source arena's empty chunks
	out    int      // a source arena's regions not given back
	// evicts says to zero carved blocks without keeping their lines in
	// the carving core's caches (NewEvictingArena).
	evicts bool
}

// chunk is one mapping of ChunkBytes, or (lent set) the lender of a foreign
// region, or (backing set) a foreign region of ChunkBytes a source arena
// carves.
type chunk struct {
	arena        *Arena          // the arena the chunk belongs to while it is not in the pool
	older, newer *chunk          // the arena's other chunks
	lent         func() error    // gives a foreign region back to its lender
	backing      *Region         // the source's region a source arena's chunk carves
	unmap        runtime.Cleanup // unmaps bytes once the chunk is unreachable
	bytes        []byte
	used         int              // bytes carved so far, from the start
	dirty        int              // bytes [0, dirty) may be non-zero
	live         int              // regions carved and not given back
	free         [classes][]int32 // offsets of given-back blocks, by class
}

// NewArena makes an empty arena.
func NewArena() *Arena { return &Arena{} }

// NewEvictingArena makes an empty arena for memory that threads on other
// cores write first, as a real-time fabric's devices do. It zeroes the
// blocks it carves again with stores that leave no copy of their lines in
// the carving core's caches (non-temporal stores, on amd64): the first
// store of a device into each line then takes it from memory, instead of
// waiting for the carving core to give up the copy that zeroing left there.
// An exchange's NPU writes a new result line every four rounds, each of
// which the host had just zeroed (docs/performance.md).
//
// It zeroes what it carves from a fresh mapping too, and every mapping of
// its own, although their bytes are zero already: the zeroing thread takes
// the page faults of their first writes. Otherwise a device would take one
// at the first store into each page, in the middle of its rounds, each
// costing many rounds' time (docs/performance.md, "Why the code is shaped as
// it is").
func NewEvictingArena() *Arena { return &Arena{evicts: true} }

// Evicts reports whether the arena was made by NewEvictingArena.
func (a *Arena) Evicts() bool { return a.evicts }

// zero zeroes b, a carved block's bytes that may be non-zero: whole lines
// from a line boundary.
func (a *Arena) zero(b []byte) {
	if a.evicts {
		zeroEvicting(b)
		return
	}
	clear(b)
}

// NewArenaOf makes an empty arena that carves regions lent by source, which
// it asks for ChunkBytes at a time, and for a region of its own when one is
// over MaxCarved. source must return zeroed, line-aligned memory (Foreign
// does both) that stays valid until the region is unmapped.
func NewArenaOf(source func(size int) (*Region, error)) *Arena {
	return &Arena{source: source}
}

// Alloc returns size bytes (rounded up to whole lines) of zeroed memory:
// carved from one of the arena's chunks, or a mapping of its own when size
// is over MaxCarved.
func (a *Arena) Alloc(size int) (*Region, error) {
	r := new(Region)
	if err := a.AllocIn(r, size); err != nil {
		return nil, err
	}
	return r, nil
}

// AllocIn is Alloc into r, a Region the caller keeps in storage of its own
// (the devices package keeps a buffer's region with the buffer). r must not
// hold memory that was not given back.
func (a *Arena) AllocIn(r *Region, size int) error {
	if size <= 0 {
		return fmt.Errorf("memory: cannot allocate %d bytes; size must be positive", size)
	}
	size = RoundUp(size)
	if size > MaxCarved {
		return a.allocOwn(r, size)
	}
	c := class(size)
	a.mu.Lock()
	defer a.mu.Unlock()
	for ch := a.newest; ch != nil; ch = ch.older {
		if ch.carve(c, size, r) {
			a.out++
			return nil
		}
	}
	ch, err := a.takeChunk()
	if err != nil {
		return err
	}
	ch.arena, ch.older = a, a.newest
	if a.newest != nil {
		a.newest.newer = ch
	}
	a.newest = ch
	ch.carve(c, size, r) // an empty chunk has room for MaxCarved
	a.out++
	return nil
}

// allocOwn makes r a region of size bytes of its own: a mapping, or for a
// source arena the source's, counted among the arena's regions until it
// is unmapped.
func (a *Arena) allocOwn(r *Region, size int) error {
	if a.source == nil {
		own, err := Map(size)
		if err != nil {
			return err
		}
		if a.evicts {
			a.zero(own.bytes) // its first writes fault here (NewEvictingArena)
		}
		*r = *own
		return nil
	}
	own, err := a.source(size)
	if err != nil {
		return err
	}
	if own.home == nil || own.home.lent == nil {
		return fmt.Errorf("memory: an arena's source must lend foreign regions (Foreign)")
	}
	free := own.home.lent
	own.home.lent = func() error {
		a.mu.Lock()
		a.out--
		a.mu.Unlock()
		return free()
	}
	a.mu.Lock()
	a.out++
	a.mu.Unlock()
	*r = *own
	return nil
}

// takeChunk is an empty chunk for the arena (a.mu held): from the pool, or
// for a source arena one of its spare chunks or a new one of its source.
func (a *Arena) takeChunk() (*chunk, error) {
	if a.source == nil {
		return pool.take()
	}
	if n := len(a.spare); n > 0 {
		ch := a.spare[n-1]
		a.spare = a.spare[:n-1]
		return ch, nil
	}
	backing, err := a.source(ChunkBytes)
	if err != nil {
		return nil, err
	}
	if backing.Len() != ChunkBytes || backing.home == nil || backing.home.lent == nil {
		return nil, fmt.Errorf("memory: an arena's source must lend foreign regions (Foreign) of the size asked for")
	}
	return &chunk{bytes: backing.bytes, backing: backing}, nil
}

// Empty reports whether the arena holds no chunk: every region it carved
// was given back.
func (a *Arena) Empty() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.newest == nil
}

// Release gives a source arena's empty chunks back to its source and
// returns how many regions are still out (not unmapped): a chunk holding
// one stays, with its memory valid. It does nothing for an arena of
// mappings, whose empty chunks are already in the pool.
func (a *Arena) Release() (out int, err error) {
	a.mu.Lock()
	spare := a.spare
	a.spare, out = nil, a.out
	a.mu.Unlock()
	var errs []error
	for _, ch := range spare {
		errs = append(errs, ch.backing.Unmap())
	}
	return out, errors.Join(errs...)
}

// class is the size class of size bytes (whole lines, at most MaxCarved).
func class(size int) int {
	return bits.Len(uint((size - 1) / LineBytes))
}

// carve takes a block of class c from the chunk, zeroes its first size
// bytes, and makes r of them; false when the chunk has no room.
func (ch *chunk) carve(c, size int, r *Region) bool {
	var off int
	if list := ch.free[c]; len(list) > 0 {
		off = int(list[len(list)-1])
		ch.free[c] = list[:len(list)-1]
	} else {
		block := LineBytes << c
		if ch.used+block > len(ch.bytes) {
			return false
		}
		off = ch.used
		ch.used += block
	}
	end := min(off+size, ch.dirty) // the bytes after dirty are zero
	if ch.arena.evicts {
		end = off + size // and maybe not written yet (NewEvictingArena)
	}
	if off < end {
		ch.arena.zero(ch.bytes[off:end])
	}
	ch.live++
	*r = Region{bytes: ch.bytes[off : off+size : off+size], home: ch}
	return true
}

// offset is where in the chunk r begins.
func (ch *chunk) offset(r *Region) int {
	return int(r.Addr(0) - uintptr(unsafe.Pointer(unsafe.SliceData(ch.bytes))))
}

// give takes back a region carved from one of the arena's chunks. A chunk
// left with no region returns to the pool.
func (a *Arena) give(r *Region) {
	ch, off, c := r.home, r.home.offset(r), class(len(r.bytes))
	a.mu.Lock()
	defer a.mu.Unlock()
	ch.dirty = max(ch.dirty, off+len(r.bytes))
	ch.free[c] = append(ch.free[c], int32(off))
	ch.live--
	a.out--
	if ch.live > 0 {
		return
	}
	if ch.newer != nil {
		ch.newer.older = ch.older
	} else {
		a.newest = ch.older
	}
	if ch.older != nil {
		ch.older.newer = ch.newer
	}
	if ch.backing != nil {
		ch.reset()
		a.spare = append(a.spare, ch)
		return
	}
	pool.give(ch)
}

// pool keeps empty chunks for the next arena: a simulated campaign makes a
// fabric (an arena) per trial, and a fresh mapping and the first touch of
// its pages cost more than the trial's own work. It is a sync.Pool, per
// processor and without a process-wide lock, so that trials on every core
// take and give chunks without waiting for each other. A chunk the pool
// drops (it drops what it holds across two garbage collections) is
// unmapped by its cleanup, as is a chunk of an arena that became garbage
// with regions never given back.
var pool = &chunkPool{}

type chunkPool struct{ chunks sync.Pool }

// take returns an empty chunk, kept or newly mapped.
func (p *chunkPool) take() (*chunk, error) {
	if ch, ok := p.chunks.Get().(*chunk); ok {
		return ch, nil
	}
	b, err := mmap(ChunkBytes)
	if err != nil {
		return nil, err
	}
	ch := &chunk{bytes: b}
	ch.unmap = runtime.AddCleanup(ch, func(b []byte) { _ = munmap(b) }, b)
	return ch, nil
}

// give keeps an empty chunk for the next arena.
func (p *chunkPool) give(ch *chunk) {
	ch.reset()
	ch.arena = nil
	p.chunks.Put(ch)
}

// reset makes an empty chunk carve from its start again; the bytes it
// carved before stay dirty, to be zeroed as they are carved again.
func (ch *chunk) reset() {
	ch.older, ch.newer, ch.used, ch.live = nil, nil, 0, 0
	for c := range ch.free {
		ch.free[c] = ch.free[c][:0]
	}
}
