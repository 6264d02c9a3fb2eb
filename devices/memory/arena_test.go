package memory

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// drainPool unmaps every chunk the pool keeps (that this goroutine's
// processor can take), so that a test sees which chunks are mapped for it.
func drainPool(t *testing.T) {
	t.Helper()
	for {
		ch, ok := pool.chunks.Get().(*chunk)
		if !ok {
			return
		}
		ch.unmap.Stop()
		if err := munmap(ch.bytes); err != nil {
			t.Fatal(err)
		}
	}
}

func mustAlloc(t *testing.T, a *Arena, size int) *Region {
	t.Helper()
	r, err := a.Alloc(size)
	if err != nil {
		t.Fatalf("Alloc(%d): %v", size, err)
	}
	return r
}

// Many small regions share one mapping; each is line-aligned, whole lines,
// zeroed and apart from every other.
func TestArenaCarvesSmallRegionsFromOneMapping(t *testing.T) {
	drainPool(t)
	before := mappings.Load()
	a := NewArena()
	var rs []*Region
	for i := range 1000 {
		r := mustAlloc(t, a, 1+i%300)
		if r.Addr(0)%LineBytes != 0 || r.Len()%LineBytes != 0 || r.Len() < 1+i%300 {
			t.Fatalf("region %d: %d bytes at %#x, want whole lines, line-aligned", i, r.Len(), r.Addr(0))
		}
		for off := 0; off < r.Len(); off += 4 {
			if r.Load(off) != 0 {
				t.Fatalf("region %d is not zeroed at %d", i, off)
			}
			r.Store(off, uint32(i+1))
		}
		rs = append(rs, r)
	}
	if n := mappings.Load() - before; n != 1 {
		t.Errorf("1000 small regions took %d mappings, want 1", n)
	}
	for i, r := range rs {
		if r.Load(r.Len()-4) != uint32(i+1) {
			t.Fatalf("region %d was overwritten by another region", i)
		}
		if err := r.Unmap(); err != nil {
			t.Fatal(err)
		}
	}
	if n := mappings.Load() - before; n != 1 {
		t.Errorf("after every region was given back, %d mappings are held, want the one chunk, kept in the pool", n)
	}
}

// A region given back is carved again, zeroed, for its size class; a
// region never given back (quarantined memory) is never carved again, and
// keeps its chunk mapped.
func TestArenaReusesGivenBackBlocksZeroedAndNeverKeptOnes(t *testing.T) {
	for _, newArena := range arenaKinds {
		a := newArena()
		t.Run(fmt.Sprintf("evicts=%v", a.Evicts()), func(t *testing.T) { testReuseZeroed(t, a) })
	}
}

// arenaKinds makes each kind of arena that carves its own mappings.
var arenaKinds = []func() *Arena{NewArena, NewEvictingArena}

func testReuseZeroed(t *testing.T, a *Arena) {
	t.Helper()
	kept := mustAlloc(t, a, 64)
	kept.Store(0, 0xfeed)
	r := mustAlloc(t, a, 100)
	addr := r.Addr(0)
	r.Store(96, 7)
	if err := r.Unmap(); err != nil {
		t.Fatal(err)
	}
	again := mustAlloc(t, a, 128) // the same class (two lines)
	if again.Addr(0) != addr || again.Load(96) != 0 {
		t.Errorf("a 128-byte region after a 100-byte one was given back: at %#x (was %#x), word 96 = %d; want the same block, zeroed", again.Addr(0), addr, again.Load(96))
	}
	for range 5000 {
		x := mustAlloc(t, a, 64)
		if x.Addr(0) == kept.Addr(0) {
			t.Fatal("a region never given back was carved again")
		}
		if err := x.Unmap(); err != nil {
			t.Fatal(err)
		}
	}
	if kept.Load(0) != 0xfeed {
		t.Error("the kept region's memory changed")
	}
	_ = again.Unmap()
	_ = kept.Unmap()
}

// An empty chunk goes back to the pool and the next arena takes it, its old
// contents zeroed as it is carved. The pool is per processor, so a
// goroutine moved to another processor between the two arenas misses it:
// the test tries a few times and wants the chunk passed on at least once,
// and zeroed every time.
func TestEmptyChunksPassToTheNextArenaZeroed(t *testing.T) {
	passed := 0
	for range 20 {
		drainPool(t)
		first := NewArena()
		r := mustAlloc(t, first, 256)
		addr := r.Addr(0)
		r.Store(252, 9)
		if err := r.Unmap(); err != nil {
			t.Fatal(err)
		}
		r = mustAlloc(t, NewArena(), 256)
		if r.Load(252) != 0 {
			t.Fatalf("the next arena's region (at %#x, the pooled chunk at %#x) has word 252 = %d, want 0", r.Addr(0), addr, r.Load(252))
		}
		if r.Addr(0) == addr {
			passed++
		}
		_ = r.Unmap()
	}
	if passed == 0 {
		t.Error("in 20 tries the next arena never took the chunk the first one gave back")
	}
}

// A chunk the pool drops is unmapped by its cleanup once the garbage
// collector finds it unreachable: the pool holds no mapping for ever.
func TestDroppedChunksAreUnmapped(t *testing.T) {
	drainPool(t)
	collect() // chunks earlier tests left to the pool's other processors
	before := mappings.Load()
	r := mustAlloc(t, NewArena(), 64)
	if err := r.Unmap(); err != nil {
		t.Fatal(err)
	}
	r = nil
	for range 100 {
		if mappings.Load() <= before {
			return
		}
		runtime.GC() // the pool drops what it holds across two collections
		time.Sleep(time.Millisecond)
	}
	t.Errorf("%d mappings are still held after the pool dropped its chunks, want none", mappings.Load()-before)
}

// A region over MaxCarved is a mapping of its own, unmapped when given back.
func TestLargeRegionsAreMappingsOfTheirOwn(t *testing.T) {
	before := mappings.Load()
	a := NewArena()
	r := mustAlloc(t, a, MaxCarved+1)
	if r.home != nil || mappings.Load() != before+1 || r.Len() != MaxCarved+LineBytes {
		t.Errorf("a %d-byte region: carved=%v, %d new mappings, %d bytes; want a mapping of its own", MaxCarved+1, r.home != nil, mappings.Load()-before, r.Len())
	}
	if err := r.Unmap(); err != nil || mappings.Load() != before {
		t.Errorf("Unmap = %v with %d mappings left over, want nil and none", err, mappings.Load()-before)
	}
}

// Past the mapping limit, Alloc and Map fail with an error that names the
// system's limit and what to do, and work again once memory is given back.
func TestMappingLimitIsAnErrorThatSaysWhatToDo(t *testing.T) {
	drainPool(t)
	a := NewArena()
	small := mustAlloc(t, a, 64) // a chunk with room left
	var fillers []*Region
	defer func() {
		for _, r := range fillers {
			_ = r.Unmap()
		}
	}()
	for len(fillers) <= int(mapLimit) { // one page each, never touched
		r, err := Map(64)
		if err != nil {
			break
		}
		fillers = append(fillers, r)
	}
	if mappings.Load() != mapLimit {
		t.Fatalf("mapping stopped at %d mappings; want the limit, %d", mappings.Load(), mapLimit)
	}
	for _, try := range []func() (*Region, error){
		func() (*Region, error) { return Map(64) },
		func() (*Region, error) { return a.Alloc(MaxCarved * 2) },
		func() (*Region, error) { return NewArena().Alloc(64) },
	} {
		r, err := try()
		if err == nil || r != nil || !strings.Contains(err.Error(), "vm.max_map_count") || !strings.Contains(err.Error(), "close sessions") {
			t.Fatalf("allocation past the limit = %v, %v; want an error naming vm.max_map_count and what to do", r, err)
		}
	}
	if r := mustAlloc(t, a, 64); r.home != small.home { // the chunk has room: no new mapping
		t.Error("a small region past the limit did not come from the arena's chunk")
	}
	if err := fillers[len(fillers)-1].Unmap(); err != nil {
		t.Fatal(err)
	}
	fillers = fillers[:len(fillers)-1]
	r := mustAlloc(t, NewArena(), MaxCarved*2) // room for one again
	_ = r.Unmap()
}

// collect lets the pool drop every chunk it holds and their cleanups
// unmap them.
func collect() {
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// An arena takes more chunks as it fills, and gives each back to the pool
// once all of its regions are given back, in whatever order.
func TestArenaGivesEveryEmptiedChunkBack(t *testing.T) {
	drainPool(t)
	a := NewArena()
	var rs []*Region
	for range 3 * ChunkBytes / 512 {
		rs = append(rs, mustAlloc(t, a, 512))
	}
	held := 0
	for ch := a.newest; ch != nil; ch = ch.older {
		held++
	}
	if held != 3 {
		t.Fatalf("three chunks' worth of regions took %d chunks", held)
	}
	for i := range rs { // the middle chunk empties first
		j := (i + len(rs)/3) % len(rs)
		if err := rs[j].Unmap(); err != nil {
			t.Fatal(err)
		}
	}
	if a.newest != nil {
		t.Errorf("after every region was given back the arena still holds chunk %p", a.newest)
	}
	pooled := 0
	for {
		ch, ok := pool.chunks.Get().(*chunk)
		if !ok {
			break
		}
		pooled++
		defer pool.give(ch)
	}
	if pooled != 3 && !raceEnabled {
		t.Errorf("the pool keeps %d chunks, want the 3 the arena gave back", pooled)
	}
}

// AllocIn carves into a Region the caller keeps, which it can use again
// once given back: zeroed each time, and without allocating.
func TestAllocInReusesTheCallersRegion(t *testing.T) {
	a := NewArena()
	keep := mustAlloc(t, a, 64) // so that the chunk stays with the arena, not the pool
	defer keep.Unmap()
	var r Region
	cycle := func() {
		if err := a.AllocIn(&r, 100); err != nil {
			t.Fatal(err)
		}
		if r.Len() != 2*LineBytes || r.Load(96) != 0 {
			t.Fatalf("AllocIn(100) made %d bytes with word 96 = %d, want 128 zeroed", r.Len(), r.Load(96))
		}
		r.Store(96, 7)
		if err := r.Unmap(); err != nil {
			t.Fatal(err)
		}
	}
	cycle()
	if n := testing.AllocsPerRun(100, cycle); n != 0 {
		t.Errorf("AllocIn and Unmap allocate %v times a cycle, want 0", n)
	}
	if r.home != nil {
		t.Error("a region given back still refers to its chunk, keeping it mapped")
	}
}

// lender is a source of foreign regions for NewArenaOf, as a GPU driver's
// pinned allocations are: it counts what it lent and what came back.
type lender struct {
	sizes          []int
	lent, returned int
}

func (l *lender) lend(size int) (*Region, error) {
	m, err := Map(size)
	if err != nil {
		return nil, err
	}
	m.Store(0, 0xdead) // Foreign must zero it
	l.sizes = append(l.sizes, size)
	l.lent++
	return Foreign(m.Addr(0), size, func() error { l.returned++; return m.Unmap() })
}

// A source arena asks its source for one chunk however many regions come
// and go, hands regions out zeroed, keeps the emptied chunk for its next
// Alloc, and gives it back only at Release, which counts what is still out.
func TestSourceArenaKeepsItsChunksUntilRelease(t *testing.T) {
	l := &lender{}
	a := NewArenaOf(l.lend)
	for i := range 500 {
		x, y := mustAlloc(t, a, 64), mustAlloc(t, a, 1+i%4000)
		for _, r := range []*Region{x, y} {
			for off := 0; off < r.Len(); off += 4 {
				if r.Load(off) != 0 {
					t.Fatalf("cycle %d: a region is not zeroed at %d", i, off)
				}
				r.Store(off, 7)
			}
		}
		if err := x.Unmap(); err != nil {
			t.Fatal(err)
		}
		if err := y.Unmap(); err != nil {
			t.Fatal(err)
		}
	}
	if l.lent != 1 || l.sizes[0] != ChunkBytes || l.returned != 0 {
		t.Fatalf("500 cycles lent %d regions %v and took back %d; want one chunk of %d kept", l.lent, l.sizes, l.returned, ChunkBytes)
	}
	kept := mustAlloc(t, a, 128)
	big := mustAlloc(t, a, MaxCarved+1)
	if l.lent != 2 || l.sizes[1] != RoundUp(MaxCarved+1) {
		t.Fatalf("a region over MaxCarved lent %v; want a region of its own from the source", l.sizes)
	}
	if out, err := a.Release(); err != nil || out != 2 {
		t.Fatalf("Release with two regions out = %d, %v; want 2", out, err)
	}
	if l.returned != 0 {
		t.Fatalf("Release gave back %d regions while the chunk still held one", l.returned)
	}
	if err := big.Unmap(); err != nil || l.returned != 1 {
		t.Fatalf("unmapping the big region: %v, %d returned; want it back at its source", err, l.returned)
	}
	if err := kept.Unmap(); err != nil {
		t.Fatal(err)
	}
	if out, err := a.Release(); err != nil || out != 0 || l.returned != 2 {
		t.Fatalf("Release of an empty arena = %d, %v with %d returned; want 0 out and the chunk back", out, err, l.returned)
	}
}

// A source that lends what is not foreign memory, or not the size asked
// for, is an error, not a chunk that Unmap would hand to munmap.
func TestSourceArenaRefusesABadSource(t *testing.T) {
	a := NewArenaOf(func(size int) (*Region, error) { return Map(size) })
	if _, err := a.Alloc(64); err == nil || !strings.Contains(err.Error(), "foreign") {
		t.Fatalf("Alloc from a source of mappings = %v; want an error naming foreign regions", err)
	}
	if _, err := a.Alloc(MaxCarved + 1); err == nil || !strings.Contains(err.Error(), "foreign") {
		t.Fatalf("a big Alloc from a source of mappings = %v; want an error naming foreign regions", err)
	}
}

// Either arena zeroes every word of a block it carves again, whatever its
// size: an evicting one with its own stores, line by line. A region kept
// throughout keeps the chunk with the arena.
func TestArenasZeroEveryWordOfAReusedBlock(t *testing.T) {
	for _, newArena := range arenaKinds {
		a := newArena()
		kept := mustAlloc(t, a, 64)
		defer kept.Unmap()
		for _, size := range []int{64, 128, 4096, 100_000, MaxCarved} {
			t.Run(fmt.Sprintf("evicts=%v/%d", a.Evicts(), size), func(t *testing.T) {
				r := mustAlloc(t, a, size)
				addr := r.Addr(0)
				for off := 0; off < r.Len(); off += 4 {
					r.Store(off, 0xffff_ffff)
				}
				if err := r.Unmap(); err != nil {
					t.Fatal(err)
				}
				again := mustAlloc(t, a, size)
				defer again.Unmap()
				if again.Addr(0) != addr {
					t.Fatalf("the block given back (at %#x) was not carved again (got %#x)", addr, again.Addr(0))
				}
				for off := 0; off < again.Len(); off += 4 {
					if v := again.Load(off); v != 0 {
						t.Fatalf("word %d of %d bytes carved again is %#x, want 0", off, again.Len(), v)
					}
				}
			})
		}
	}
}

// An evicting arena writes the bytes it hands out from a fresh mapping, so
// that the thread that allocates, not a device in its rounds, takes the
// page faults of their first writes; a plain arena leaves a fresh mapping
// unwritten, and its first writes fault.
func TestAnEvictingArenaTakesAFreshMappingsPageFaults(t *testing.T) {
	runtime.LockOSThread() // the faults counted are this thread's
	defer runtime.UnlockOSThread()
	drainPool(t) // the next chunk is a fresh mapping
	a := NewEvictingArena()
	for _, c := range []struct {
		what   string
		region *Region
		faults bool
	}{
		{"a region carved from a fresh mapping", mustAlloc(t, a, 64<<10), false},
		{"a mapping of its own", mustAlloc(t, a, MaxCarved+1), false},
		{"a plain arena's mapping of its own", mustAlloc(t, NewArena(), MaxCarved+1), true},
	} {
		pages := c.region.Len() / pageBytes
		faults := faultsWriting(t, c.region)
		// The race detector's shadow memory may fault a page or two.
		if c.faults && faults < pages/2 || !c.faults && faults > pages/8 {
			t.Errorf("%s: writing a word into each of its %d pages took %d page faults, want them taken already: %v", c.what, pages, faults, !c.faults)
		}
		if err := c.region.Unmap(); err != nil {
			t.Fatal(err)
		}
	}
}

// faultsWriting writes a word into every page of r and returns how many
// page faults this thread took meanwhile.
func faultsWriting(t *testing.T, r *Region) int {
	t.Helper()
	var before, after unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &before); err != nil {
		t.Fatal(err)
	}
	for off := 0; off < r.Len(); off += pageBytes {
		r.Store(off, 1)
	}
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &after); err != nil {
		t.Fatal(err)
	}
	return int(after.Minflt - before.Minflt)
}
