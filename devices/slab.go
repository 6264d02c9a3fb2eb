package devices

import (
	"sync"
	"sync/atomic"

	"github.com/residentlua/residentlua/devices/memory"
)

// slabSize bounds what a slab keeps: enough for a campaign trial's
// objects, and a bound on what a long-lived fabric holds on to.
const slabSize = 32

// slab hands out zeroed objects of a fabric from storage that outlives it
// when the fabric is recycled (Fabric.Recycle), so that the next fabric
// makes none of its first slabSize objects anew. Past slabSize it makes
// new ones, which the garbage collector frees as usual.
type slab[T any] struct {
	mu    sync.Mutex
	items []*T
	used  int
}

// take returns a zeroed object.
func (s *slab[T]) take() *T {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used < len(s.items) {
		x := s.items[s.used]
		s.used++
		clean(x)
		return x
	}
	x := new(T)
	if len(s.items) < slabSize {
		s.items = append(s.items, x)
		s.used++
	}
	return x
}

// storage is the slab's objects, zeroed so that none refers to what the
// recycled fabric held, for the slab of the fabric made from its parts.
func (s *slab[T]) storage() []*T {
	for _, x := range s.items {
		clean(x)
	}
	return s.items
}

// reusable is an object that zeroes itself but keeps storage of its own
// that refers to nothing (a view's pending writes).
type reusable interface{ reuse() }

// clean zeroes x, keeping what a reusable keeps.
func clean[T any](x *T) {
	if r, ok := any(x).(reusable); ok {
		r.reuse()
		return
	}
	var zero T
	*x = zero
}

// dispatched is an invocation and its completion, made together.
type dispatched struct {
	inv  invocation
	comp Completion
}

// profiled is a profile, room for the devices it shares memory between
// and room for the list AllocationProfiles returns when it is the first.
type profiled struct {
	profile Profile
	devices [2]*Device  // a GPU and an NPU
	list    [3]*Profile // the most profiles AllocationProfiles lists
}

// allocated is a buffer and room for its attachments and its region of
// the fabric's arena, made together.
type allocated struct {
	buffer      Buffer
	attachments [4]attachment // a GPU's three families and an NPU's one
	region      memory.Region
}

// reuse zeroes the buffer and its attachments, keeping what Kept keeps.
func (a *allocated) reuse() {
	kept := a.buffer.kept.reuse()
	*a = allocated{}
	a.buffer.kept = kept
}

// lineAllocated is a one-line buffer (a session's startup line) made with
// room for what one non-coherent family's view of it needs once the host
// stores into it.
type lineAllocated struct {
	allocated
	stale lineStaleness
}

// reuse zeroes the line buffer and its room, keeping what Kept keeps.
func (l *lineAllocated) reuse() {
	kept := l.buffer.kept.reuse()
	*l = lineAllocated{}
	l.buffer.kept = kept
}

// lineStaleness is a staleness of one line and its storage.
type lineStaleness struct {
	taken bool // by an attachment; guarded by the buffer's hostMu
	st    staleness
	lines [1]atomic.Bool
	words [memory.LineBytes / 4]atomic.Uint32
}
