package event

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/residentlua/residentlua/devices/program"
)

// Stream is the fabric's bounded event stream. It keeps the last events
// (a ring), feeds every event to its subscribers in order, and keeps a digest
// of everything emitted so that two runs can be compared byte for byte.
//
// In real time, events reach it in batches where that keeps their
// recording off the path a device waits on: a running program's through
// its device's log (MoveIn), a publication's once its last release is
// made (devices.Buffer.Publish). Each actor's events stay in the order they
// happened, and an event stays after the ones that caused it; but the
// stream's order is not the order of time between actors running at once.
type Stream struct {
	// gate orders a host's batch of events (BeginBatch) before the
	// device events its releases allow: the batch holds it, and a device
	// log read-holds it while it moves events in (MoveIn).
	gate   sync.RWMutex
	held   []Event // a batch's events (HostEvents), kept for the next under gate
	mu     sync.Mutex
	ring   []Event // grows up to capacity, then wraps: event seq is at (seq-1) % capacity
	limit  int
	seq    uint64
	subs   []*subscription
	digest uint64
	clock  func() time.Duration
	emit   EmitFunc // emitLocked, bound once: Atomically hands it out
}

type subscription struct {
	fn     func(*Event)
	stream *Stream
}

// Init readies the stream, new or of a renewed fabric, to keep capacity
// events (in buffer when it is large enough, else in the ring it has when
// that is), with no event and no subscriber. whole says to make a ring of
// the full capacity now, its memory written once, where the stream would
// otherwise grow it as events come: in real time it grows while devices
// run, and each growth copies the ring under the lock a device's log may
// wait for, makes garbage whose collection stops the devices, and leaves
// new pages whose first writes fault (docs/performance.md).
func (s *Stream) Init(capacity int, buffer []Event, whole bool, clock func() time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit, s.seq, s.digest, s.clock = capacity, 0, fnvOffset, clock
	if s.emit == nil { // bound once: the stream stays at one address
		s.emit = s.emitLocked
	}
	clear(s.subs)
	s.subs = s.subs[:0]
	switch {
	case cap(buffer) >= capacity:
		s.ring = buffer[:0]
	case cap(s.ring) >= capacity:
		clear(s.ring) // the ring keeps no details alive
		s.ring = s.ring[:0]
	case whole:
		s.ring = Written(capacity)
	default:
		s.ring = nil
	}
}

// Written is an empty slice with room for n events whose memory has
// been written once. Memory fresh from the system, which make leaves as it
// is, is not there until the first write into each page faults: a real-time
// device writing events must not take those faults in its rounds.
func Written(n int) []Event {
	b := make([]Event, n)
	clear(b)
	return b[:0]
}

// Emit stamps the event with its sequence number and time, records it and
// hands it to the subscribers before returning. It returns the event's
// time.
func (s *Stream) Emit(actor Actor, session uint64, kind program.EventKind, a, b uint64, detail string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emitLocked(actor, session, kind, a, b, detail)
}

// EmitFunc emits an event and returns its time; inside Atomically it
// emits under the stream's lock.
type EmitFunc func(actor Actor, session uint64, kind program.EventKind, a, b uint64, detail string) time.Duration

// Atomically runs fn under the stream's lock, handing it the way to emit
// there. What fn changes together with the events it emits is seen by
// subscribers exactly when they see those events: no subscriber can find
// the budget charged or refunded before the event that says so. fn must not
// call Emit.
func (s *Stream) Atomically(fn func(emit EmitFunc)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.emit)
}

func (s *Stream) emitLocked(actor Actor, session uint64, kind program.EventKind, a, b uint64, detail string) time.Duration {
	at := s.clock()
	s.add(Event{Time: at, Actor: actor, Session: session, Kind: kind, A: a, B: b, Detail: detail})
	return at
}

// HostEvents is where the host's events of one operation go: into the
// stream at once (Direct), or, in a batch (BeginBatch), held in the
// stream's room for them until EndBatch adds them all, stamped with the
// time the batch began.
type HostEvents struct {
	stream *Stream
	batch  bool
	at     time.Duration
}

// Direct is where a host operation's events go when they enter the stream
// as they are emitted.
func (s *Stream) Direct() HostEvents { return HostEvents{stream: s} }

// BeginBatch holds the events of a host operation until EndBatch; no
// device's events enter the stream in between.
func (s *Stream) BeginBatch() HostEvents {
	s.gate.Lock()
	s.held = s.held[:0]
	return HostEvents{stream: s, batch: true, at: s.clock()}
}

// EndBatch adds the batch's events to the stream.
func (h *HostEvents) EndBatch() {
	s := h.stream
	defer s.gate.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordLocked(s.held)
	clear(s.held) // the room keeps no details alive
}

// Emit emits an event of the host operation and returns its time: the
// batch's beginning in a batch.
func (h *HostEvents) Emit(actor Actor, session uint64, kind program.EventKind, a, b uint64, detail string) time.Duration {
	s := h.stream
	if !h.batch {
		return s.Emit(actor, session, kind, a, b, detail)
	}
	s.held = append(s.held, Event{Time: h.at, Actor: actor, Session: session, Kind: kind, A: a, B: b, Detail: detail})
	return h.at
}

// recordLocked adds events that were stamped when they happened (a
// device's log, see MoveIn), in their order (s.mu held).
func (s *Stream) recordLocked(events []Event) {
	for _, e := range events {
		s.add(e)
	}
}

// MoveIn records the batch handed holds, if any, clearing handed, then
// filling, unless it is nil, which it empties: a device's log of events,
// stamped when they happened, joining the stream. It runs under the
// stream's lock, behind any host batch in progress, so that of two callers
// (the host collecting, the device flushing) one records a handed batch.
func (s *Stream) MoveIn(handed *atomic.Pointer[[]Event], filling *[]Event) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if batch := handed.Load(); batch != nil {
		s.recordLocked(*batch)
		handed.Store(nil)
	}
	if filling != nil {
		s.recordLocked(*filling)
		*filling = (*filling)[:0]
	}
}

// add gives e the next sequence number, keeps it, mixes it into the digest
// and hands it to the subscribers (s.mu held).
func (s *Stream) add(e Event) {
	s.seq++
	e.Seq = s.seq
	var kept *Event // the ring's copy, which subscribers are lent
	if len(s.ring) < s.limit {
		s.ring = append(s.ring, e)
		kept = &s.ring[len(s.ring)-1]
	} else {
		kept = &s.ring[(s.seq-1)%uint64(s.limit)]
		*kept = e
	}
	s.hash(kept)
	for _, sub := range s.subs {
		sub.fn(kept)
	}
}

// The digest mixes whole 64-bit words, FNV-1a style with a rotation so that
// high bits reach low ones: a few cycles per word, where hashing byte by byte
// made the digest the largest single cost of a simulated trial.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func mix(h, v uint64) uint64 { return bits.RotateLeft64((h^v)*fnvPrime, 29) }

// mixString mixes a string eight bytes at a time; the caller has mixed its
// length, so the zero padding of the last word is unambiguous.
func mixString(h uint64, str string) uint64 {
	for ; len(str) >= 8; str = str[8:] {
		h = mix(h, uint64(str[0])|uint64(str[1])<<8|uint64(str[2])<<16|uint64(str[3])<<24|
			uint64(str[4])<<32|uint64(str[5])<<40|uint64(str[6])<<48|uint64(str[7])<<56)
	}
	var tail uint64
	for i := 0; i < len(str); i++ {
		tail |= uint64(str[i]) << (8 * i)
	}
	return mix(h, tail)
}

func (s *Stream) hash(e *Event) {
	h := s.digest
	h = mix(h, uint64(e.Time))
	h = mix(h, uint64(e.Actor))
	h = mix(h, e.Session)
	h = mix(h, e.A)
	h = mix(h, e.B)
	h = mix(h, uint64(len(e.Kind))<<32|uint64(len(e.Detail)))
	h = mixString(h, string(e.Kind))
	s.digest = mixString(h, e.Detail)
}

// Subscribe calls fn with every later event, in order, on the emitting
// goroutine and under the stream's lock: fn must be quick and must not emit.
// The event is lent for the call: fn copies what it keeps, and changes
// nothing (an event is about a hundred bytes, and every subscriber gets
// every event). The returned function ends the subscription.
func (s *Stream) Subscribe(fn func(*Event)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := &subscription{fn: fn, stream: s}
	s.subs = append(s.subs, sub)
	return sub.cancel
}

// cancel ends the subscription. It removes it in place: emits read the
// list under the same lock, so none is reading it meanwhile.
func (sub *subscription) cancel() {
	s := sub.stream
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.subs, sub); i >= 0 {
		s.subs = slices.Delete(s.subs, i, i+1)
	}
}

// Events returns the events still held, oldest first, that match keep (all when keep is nil).
func (s *Stream) Events(keep func(*Event) bool) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := uint64(len(s.ring))
	first := s.seq - n + 1
	var out []Event
	for q := first; q <= s.seq; q++ {
		e := &s.ring[(q-1)%uint64(s.limit)]
		if keep == nil || keep(e) {
			out = append(out, *e)
		}
	}
	return out
}

// Count is the number of events emitted so far.
func (s *Stream) Count() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// Digest is a hash of every event emitted so far (times, actors, kinds,
// numbers and details), for comparing runs.
func (s *Stream) Digest() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.digest
}
