package devices

import (
	"sync/atomic"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/program"

	"golang.org/x/sys/cpu"
)

// deviceLog holds the events that the program running on one real-time
// device emits, stamped when they happen, until they join the stream. A
// device that emitted into the stream directly would take the stream's lock
// and the cache lines behind it from its peer on every event, on the very
// path its peer waits on: that exchange of lines, not the event itself, was
// most of what a round trip cost (docs/performance.md).
//
// The device alone writes its log, into one of two batches. A full batch
// is handed over: the host, polling a completion or blocked on one (the
// handing wakes it), moves it into the stream (collect) while the device
// fills the other batch, so an exchange does not pay for the stream's
// ring, digest and subscribers. When the host is not there to take it in
// time, the device moves its batches itself: when
// both are full, before it blocks, and before its program retires or is
// reset, so every event of an invocation is in the stream before its
// retirement is.
//
// So in real time the stream keeps each actor's events in the order they
// happened, and events that cause others (a host's release and the
// observation it allows, a device's last event and its retirement) in that
// order too; but between two devices running at once, the stream's order is
// that of their batches, not of their times: sort by Time for a timeline.
// In simulated time programs emit into the stream directly.
type deviceLog struct {
	_ cpu.CacheLinePad // the peer device's log is on other lines
	// What the device writes at every step and event.
	stream  *event.Stream
	batches [2][]event.Event // each logBatch long, reused
	filling int              // the batch the device writes
	// The time of the step in progress, read at its first event (step).
	at      time.Duration
	stamped bool
	// handed is the full batch waiting for the stream, nil when none:
	// stored by the device, cleared under the stream's lock once it is in
	// the stream. The host reads it between its polls: on a line of its
	// own, which the device writes once a batch, those reads take nothing
	// from the device.
	_      cpu.CacheLinePad
	handed atomic.Pointer[[]event.Event]
	// collectable tells a host blocked in a wait that a batch was handed
	// (one token, shared by the fabric's devices): it wakes and moves the
	// batch in, so that a device whose host no longer polls does not
	// record its own batches on the path its peer waits on.
	collectable chan<- struct{}
	_           cpu.CacheLinePad
}

// logBatch is how many events a batch holds: 4096, about 300 kB, so that
// both batches stay inside a core's own cache and the host has long to take
// one before the device has filled the other; with smaller batches the
// device moved both into the stream itself, on the path its peer waits on
// (docs/performance.md, "Why the code is shaped as it is", gives the
// figures).
const logBatch = 4096

func newDeviceLog(s *event.Stream, collectable chan<- struct{}) *deviceLog {
	l := &deviceLog{stream: s, collectable: collectable}
	for i := range l.batches {
		l.batches[i] = event.Written(logBatch)
	}
	return l
}

// step begins a program step: its events share the time of its first, as
// the events of a step do in simulated time, where a step is one instant.
// That is one clock read a step instead of one an event.
func (l *deviceLog) step() { l.stamped = false }

// stepAt begins a program step whose time the executor read already (a
// timed step reads the clock as it begins): its events take that time,
// without a clock read of their own.
func (l *deviceLog) stepAt(at time.Duration) { l.at, l.stamped = at, true }

// add adds an event of inv, stamped with the step's time, to the batch
// being filled, handing the batch over when it is full. It returns the
// event's time.
func (l *deviceLog) add(inv *invocation, kind program.EventKind, a, b uint64, detail string) time.Duration {
	if !l.stamped {
		l.at, l.stamped = inv.dev.fabric.exec.now(), true
	}
	at := l.at
	batch := &l.batches[l.filling]
	*batch = append(*batch, event.Event{Time: at, Actor: inv.dev.actor, Session: inv.owner, Kind: kind, A: a, B: b, Detail: detail})
	if len(*batch) < logBatch {
		return at
	}
	if l.handed.Load() != nil { // the other batch is still waiting: both go now
		l.flush()
		return at
	}
	l.handed.Store(batch)
	l.filling ^= 1
	l.batches[l.filling] = l.batches[l.filling][:0]
	select {
	case l.collectable <- struct{}{}:
	default: // a token is there already, or there is no channel
	}
	return at
}

// flush moves the handed batch, then the one being filled, into the stream.
func (l *deviceLog) flush() {
	batch := &l.batches[l.filling]
	if l.handed.Load() == nil && len(*batch) == 0 {
		return
	}
	l.moveIn(batch)
}

// collect moves the handed batch, if any, into the stream: the host's part,
// done while it polls a completion.
func (l *deviceLog) collect() {
	if l.handed.Load() != nil {
		l.moveIn(nil)
	}
}

// moveIn records the handed batch, if any, then filling, unless it is nil,
// and empties both.
func (l *deviceLog) moveIn(filling *[]event.Event) { l.stream.MoveIn(&l.handed, filling) }
