package trace

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine/oracle"
)

// Recorder writes the sessions of the fabrics attached to it as one trace:
// residentlua's own runs in the format other implementations record, so
// the two are checked alike. It sees every kind. Each attachment's ids
// (sessions, buffers, invocations) are moved to a range of their own, each
// fabric's devices get names of their own (kept when the fabric is renewed
// and attached again), and times are moved so that each actor's go on
// from where they were. Make one with NewRecorder; Attach each fabric
// before its first session; Close at the end.
//
// Simulated fabrics used at once (a campaign's workers) have clocks of
// their own, which no merge by time can put together: the recorder writes
// one fabric's events at a time, keeping the others' until the one being
// written has no session open, and moves each run of events after
// everything written before it. Real-time fabrics share the wall clock,
// and are written as their events come.
type Recorder struct {
	mu      sync.Mutex
	out     *bufio.Writer
	enc     *json.Encoder
	start   time.Time // when the recorder was made: a real-time fabric's times are since then
	header  bool      // written
	exact   bool      // the header's clock
	next    uint64    // attachments so far: each gets its own range of ids
	named   map[devices.DeviceKind]int
	names   map[*devices.Fabric][]string // each fabric's actors' names
	current map[*devices.Fabric]*fabricTrace
	active  *fabricTrace   // the one whose events are written as they come (simulated time)
	queue   []*fabricTrace // those whose events are kept until their turn
	last    map[string]uint64
	written uint64 // the latest time written
	closed  bool   // later events are not written
	err     error
}

// NewRecorder writes a trace to w.
func NewRecorder(w io.Writer) *Recorder {
	out := bufio.NewWriterSize(w, 64<<10)
	return &Recorder{out: out, enc: json.NewEncoder(out), start: time.Now(), named: map[devices.DeviceKind]int{},
		names: map[*devices.Fabric][]string{}, current: map[*devices.Fabric]*fabricTrace{}, last: map[string]uint64{}}
}

// fabricTrace is what the recorder keeps of one attachment of a fabric.
type fabricTrace struct {
	r        *Recorder
	ids      uint64 // added to every id of the fabric
	base     uint64 // added to every time of the fabric
	rebase   bool   // base is set again at the next event written
	names    []string
	open     int     // sessions opened and not closed
	kept     []Event // events waiting for the fabric's turn
	ended    bool    // the fabric was attached again: no event comes after kept
	dispatch *Event  // a dispatch whose reach events are still coming
	held     Event   // a quarantine being gathered from its hold and keep events
	holding  bool
	ev       Event
}

// Attach subscribes the recorder to f's events. Its first fabric sets the
// trace's clock: "exact" in simulated time, else "real"; a fabric of the
// other mode is refused (Close returns the error), as one trace has one
// clock.
func (r *Recorder) Attach(f *devices.Fabric) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	exact := f.Mode() == devices.Simulated
	if !r.header {
		r.header, r.exact = true, exact
		clock := "real"
		if exact {
			clock = "exact"
		}
		r.write(Header{Trace: Magic, Version: Version, Clock: clock, Kinds: Kinds(), Recorder: "residentlua"})
	} else if exact != r.exact {
		r.fail(errors.New("trace: a trace has one clock, and fabrics in simulated and in real time were attached; record each mode in a trace of its own"))
		return
	}
	if old := r.current[f]; old != nil { // renewed: the old attachment's events are all in
		old.flushDispatch()
		old.ended = true
		if r.active == old {
			r.active = nil
		}
	}
	ft := &fabricTrace{r: r, ids: r.next << 40, names: r.names[f], rebase: true}
	r.next++
	if !exact {
		ft.base, ft.rebase = uint64(time.Since(r.start)), false
	}
	if ft.names == nil {
		ft.names = r.deviceNames(f)
		r.names[f] = ft.names
	}
	r.current[f] = ft
	if exact {
		r.queue = append(r.queue, ft)
		if a := r.active; a != nil && a.open == 0 {
			r.yield()
		}
		r.promote()
	}
	f.Events().Subscribe(ft.observe)
}

// deviceNames names f's actors: the host, then each device by its kind,
// numbered after the first of the kind the recorder named.
func (r *Recorder) deviceNames(f *devices.Fabric) []string {
	names := []string{"host"}
	for _, d := range f.Devices() {
		kind := "gpu"
		if d.Kind() == devices.NPU {
			kind = "npu"
		}
		n := r.named[d.Kind()]
		r.named[d.Kind()]++
		if n > 0 {
			kind += strconv.Itoa(n)
		}
		names = append(names, kind)
	}
	return names
}

// yield sends the active fabric to the back of the queue.
func (r *Recorder) yield() {
	a := r.active
	r.active = nil
	a.rebase = true
	r.queue = append(r.queue, a)
}

// promote makes the first fabric of the queue the active one, writing what
// it kept; one that ended gives its turn on once written.
func (r *Recorder) promote() {
	for r.active == nil && len(r.queue) > 0 {
		ft := r.queue[0]
		r.queue = r.queue[1:]
		for i := range ft.kept {
			r.writeEvent(ft, &ft.kept[i])
		}
		ft.kept = ft.kept[:0]
		if !ft.ended {
			r.active = ft
		}
	}
}

// Close writes every event kept, then what is buffered, and returns the
// first error the recorder met; events after it are not written.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ft := range r.current {
		ft.flushDispatch()
		ft.ended = true
	}
	r.active = nil
	r.promote()
	r.closed = true
	r.fail(r.out.Flush())
	return r.err
}

func (r *Recorder) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *Recorder) write(v any) {
	if r.err == nil {
		r.fail(r.enc.Encode(v))
	}
}

// writeEvent writes ev, whose time is its fabric's, on the trace's clock,
// each actor's times kept in order: in real time a batch's events take the
// time it began, which may be before an event of the same actor that
// entered the stream first.
func (r *Recorder) writeEvent(ft *fabricTrace, ev *Event) {
	t := *ev.Time
	if ft.rebase {
		ft.rebase = false
		if r.written > t {
			ft.base = max(ft.base, r.written-t)
		}
	}
	t += ft.base
	if last, ok := r.last[ev.Actor]; ok && t < last {
		t = last
	}
	r.last[ev.Actor] = t
	r.written = max(r.written, t)
	ev.Time = &t
	r.write(ev)
}

// emit writes ev now, or keeps a copy until ft's turn.
func (ft *fabricTrace) emit(ev *Event) {
	r := ft.r
	if !r.exact || r.active == ft {
		r.writeEvent(ft, ev)
		return
	}
	ft.kept = append(ft.kept, *ev)
}

// flushDispatch emits the dispatch whose reach events were being gathered.
func (ft *fabricTrace) flushDispatch() {
	if d := ft.dispatch; d != nil {
		ft.dispatch = nil
		ft.emit(d)
	}
}

func (ft *fabricTrace) actor(a event.Actor) string {
	if int(a) < len(ft.names) {
		return ft.names[a]
	}
	return "host"
}

func (ft *fabricTrace) id(id uint64) uint64 {
	if id == 0 {
		return 0
	}
	return id + ft.ids
}

func (ft *fabricTrace) ptr(id uint64) *uint64 { v := ft.id(id); return &v }

func num(v uint64) *uint64 { return &v }

func word(v uint64) *Word { w := Word(v); return &w }

var participantNames = [...]string{oracle.ParticipantGPU: "gpu", oracle.ParticipantNPU: "npu"}

func participant(a uint64) string {
	if a < uint64(len(participantNames)) {
		return participantNames[a]
	}
	return "participant" + strconv.FormatUint(a, 10)
}

func result(b uint64, ok, bad string) string {
	if b == 0 {
		return ok
	}
	return bad
}

var joinNames = map[oracle.JoinResult]string{oracle.JoinRetired: "retired", oracle.JoinTimeout: "timeout",
	oracle.JoinError: "error", oracle.JoinAbsent: "absent", oracle.JoinCancelled: "cancelled"}

// observe writes e as a trace's event, if it is one (a subscriber: under
// the stream's lock).
func (ft *fabricTrace) observe(e *event.Event) {
	r := ft.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if ft.ended || r.closed {
		return // a renewed fabric's subscription ends with the renewal; a closed recorder writes nothing
	}
	if d := ft.dispatch; d != nil && !(e.Kind == event.EvReach && ft.id(e.A) == *d.Invocation) {
		ft.flushDispatch()
	}
	t := uint64(e.Time)
	ev := &ft.ev
	*ev = Event{Time: &t, Actor: ft.actor(e.Actor), Session: ft.id(e.Session), Why: e.Detail}
	switch e.Kind {
	case "startup":
		ev.Kind, ev.Line, ev.Why = "open", ft.ptr(e.B), ""
		ft.open++
	case "session":
		ev.Kind, ev.GPU, ev.NPU = "session", ft.actor(event.Actor(e.A)), ft.actor(event.Actor(e.B))
	case oracle.EvSubmit:
		ev.Kind, ev.Participant, ev.Result = "submit", participant(e.A), result(e.B, "accepted", "rejected")
	case "submit.return":
		ev.Kind, ev.Participant, ev.Result = "submit.return", participant(e.A), result(e.B, "ok", "error")
	case oracle.EvDecide:
		ev.Kind, ev.Decision = "decide", word(e.A)
	case event.EvHostStore:
		ev.Kind, ev.Buffer, ev.Value = "store", ft.ptr(e.A), word(e.B)
	case "published":
		ev.Kind, ev.Decision, ev.Result = "publish", word(e.A), result(e.B, "ok", "failed")
	case oracle.EvPoison:
		ev.Kind = "poison"
	case program.EvObserve:
		ev.Kind, ev.Invocation, ev.Decision = "observe", ft.ptr(e.A), word(e.B)
	case event.EvDispatch:
		ev.Kind, ev.Invocation = "dispatch", ft.ptr(e.A)
		d := *ev
		ft.dispatch = &d
		return
	case event.EvReach:
		if d := ft.dispatch; d != nil {
			d.Reach = append(d.Reach, ft.id(e.B))
		}
		return
	case event.EvRetire:
		ev.Kind, ev.Invocation, ev.Result = "retire", ft.ptr(e.A), result(e.B, "ok", "error")
	case event.EvReset:
		ev.Kind, ev.Result = "reset", result(e.B, "ok", "failed")
		if e.A != 0 {
			ev.Invocation = ft.ptr(e.A)
		}
	case oracle.EvWait:
		ev.Kind, ev.Timeout = "wait", num(e.A)
	case "wait.undecided":
		ev.Kind = "wait.undecided"
	case oracle.EvJoin:
		ev.Kind, ev.Participant, ev.Result = "join", participant(e.A), joinNames[oracle.JoinResult(e.B)]
	case oracle.EvWaitEnd:
		retired := e.A == 1
		ev.Kind, ev.Retired = "wait.end", &retired
	case oracle.EvCheck:
		ev.Kind, ev.Participant, ev.Result = "check", participant(e.A), result(e.B, "passed", "failed")
	case "close.begin":
		ev.Kind, ev.Timeout = "close.begin", num(e.A)
	case "close":
		ev.Kind, ev.Result = "close", result(e.A, "retired", "quarantined")
		ft.open--
	case event.EvAlloc, event.EvRelease:
		ev.Kind, ev.Buffer, ev.Bytes, ev.Private, ev.Why = string(e.Kind), ft.ptr(e.A), num(e.B), e.Detail == event.PrivateBudget, ""
	case event.EvReleaseRefused:
		ev.Kind, ev.Buffer, ev.Bytes, ev.Result = "release", ft.ptr(e.A), num(e.B), "refused"
	case event.EvHold, event.EvKeep:
		if !ft.holding {
			ft.held, ft.holding = Event{}, true
		}
		if e.Kind == event.EvHold {
			ft.held.Devices = append(ft.held.Devices, ft.actor(event.Actor(e.A)))
		} else {
			ft.held.Buffers = append(ft.held.Buffers, ft.id(e.A))
		}
		return
	case event.EvQuarantine:
		ev.Kind, ev.Bytes, ev.Why = "quarantine", num(e.A), ""
		if ft.holding {
			ev.Devices, ev.Buffers, ft.holding = ft.held.Devices, ft.held.Buffers, false
		}
	case event.EvQuarantineEnd:
		ev.Kind, ev.Bytes, ev.Why = "quarantine.end", num(e.A), ""
	case event.EvFault:
		if fault.Action(e.B) == fault.Off {
			return
		}
		ev.Kind, ev.Site, ev.Own = "fault", fault.Site(e.A).String(), !fault.Site(e.A).Generic()
	default:
		if e.Kind.Category() != program.CategoryRound {
			return // no kind of a trace: the runtime's own steps
		}
		ev.Kind, ev.Invocation, ev.Why = "touch", ft.ptr(e.A), ""
	}
	ft.emit(ev)
	if r.active == ft && ft.open == 0 && len(r.queue) > 0 && ev.Kind == "close" {
		r.yield() // between sessions: another fabric's turn
		r.promote()
	}
}
