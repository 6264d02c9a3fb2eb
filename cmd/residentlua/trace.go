package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/internal/resultfile"
	"github.com/residentlua/residentlua/programs/exchange"
	"github.com/residentlua/residentlua/programs/kernel"
)

// traceRecorder writes every event of every fabric the module makes as a
// Chrome trace-event JSON file (the "JSON Object Format" that Perfetto and
// chrome://tracing open), streaming: each event is written, as one line of
// compact JSON, when it happens, and each span when it ends, so the
// recorder holds only the spans still open, never the run's events. Each
// fabric is a process (pid 1, 2, ... in the order the fabrics were made);
// in it the host is thread 0 and each device is the thread of its actor
// number (gpu0 is 1, npu0 is 2 in the default fabric).
//
// The lines go to a temporary file beside the target that write renames
// into place at the end of the run, so a run that fails to write its trace
// leaves the previous file. Make one with newTraceRecorder.
type traceRecorder struct {
	mu      sync.Mutex
	sink    traceSink
	out     *bufio.Writer // nil until the first line (see writer)
	started bool          // the head of the file and an event are written
	done    bool          // written: later events are ignored
	fabrics int           // how many were attached: the last pid
	// open holds, by pid, the fabrics with spans still open: all the
	// recorder keeps of the past. A fabric whose spans have all ended is
	// dropped, and found again through its subscription if it opens more.
	open  map[int]*tracedFabric
	spans []traceEvent // scratch: the spans one event ends
	line  []byte       // scratch: the line being encoded
}

// newTraceRecorder makes a recorder that streams into a temporary file
// beside path, opened when the first lines are flushed.
func newTraceRecorder(path string) *traceRecorder {
	return &traceRecorder{sink: traceSink{path: path}}
}

// attach subscribes to f's event stream. It is the module's OnFabric hook.
func (r *traceRecorder) attach(f *devices.Fabric) {
	tracks := []string{"host"}
	for _, d := range f.Devices() {
		tracks = append(tracks, d.Name())
	}
	tf := r.begin(fmt.Sprintf("%s, seed %d", f.Mode(), f.Seed()), tracks)
	f.Events().Subscribe(func(e *event.Event) { r.record(tf, *e) })
}

// begin gives a new fabric its pid and writes the metadata naming its
// process ("fabric N (about)") and its tracks.
func (r *traceRecorder) begin(about string, tracks []string) *tracedFabric {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fabrics++
	tf := newTracedFabric(r.fabrics, len(tracks))
	r.emit(tf.metadata(fmt.Sprintf("fabric %d (%s)", tf.pid, about), tracks)...)
	return tf
}

// record writes e as an instant event and the spans it ends.
func (r *traceRecorder) record(tf *tracedFabric, e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.emit(tf.instant(e))
	r.spans = tf.observe(e, r.spans[:0])
	r.emit(r.spans...)
	if tf.idle() {
		delete(r.open, tf.pid)
	} else {
		if r.open == nil {
			r.open = map[int]*tracedFabric{}
		}
		r.open[tf.pid] = tf
	}
}

// The file is the head, the events one to a line with commas between them,
// and the tail.
const (
	traceHead = `{"traceEvents":[`
	traceTail = "\n],\"displayTimeUnit\":\"ns\"}\n"
)

// emit writes events, one line each. A write that fails (a full disk) is
// remembered by the bufio.Writer and returned by write.
func (r *traceRecorder) emit(evs ...traceEvent) {
	if r.done {
		return
	}
	for i := range evs {
		r.line = r.line[:0]
		if !r.started {
			r.line = append(r.line, traceHead...)
			r.started = true
		} else {
			r.line = append(r.line, ',')
		}
		r.line = append(r.line, '\n')
		r.line = evs[i].appendJSON(r.line)
		r.writer().Write(r.line)
	}
}

// write ends the spans still open at each fabric's last event and
// completes the file. Events that come later are not recorded.
func (r *traceRecorder) write() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return errors.New("the trace was already written")
	}
	for _, pid := range slices.Sorted(maps.Keys(r.open)) {
		r.emit(r.open[pid].unfinished()...)
	}
	r.open = nil
	out := r.writer()
	if !r.started {
		out.WriteString(traceHead)
	}
	out.WriteString(traceTail)
	r.done = true
	return r.sink.commit(out.Flush())
}

// writer is where lines go, buffered on their way to the sink.
func (r *traceRecorder) writer() *bufio.Writer {
	if r.out == nil {
		r.out = bufio.NewWriterSize(&r.sink, 64<<10)
	}
	return r.out
}

// traceSink is where the trace's bytes go: the result file (a temporary
// file beside the target, renamed over it at commit, or the device it
// names), opened at the first write.
type traceSink struct {
	path string
	file *resultfile.Output
}

// Write writes p to the file, making it first if need be.
func (s *traceSink) Write(p []byte) (int, error) {
	if s.file == nil {
		f, err := resultfile.Create(s.path)
		if err != nil {
			return 0, err
		}
		s.file = f
	}
	return s.file.Write(p)
}

// commit completes the file, or gives it up when err (the last write's) is
// not nil.
func (s *traceSink) commit(err error) error {
	if err == nil && s.file == nil {
		_, err = s.Write(nil) // nothing was written: the file is made now
	}
	if err != nil {
		if s.file != nil {
			s.file.Discard()
		}
		return resultfile.Cause(err)
	}
	return s.file.Commit()
}

// traceEvent is one entry of traceEvents. Timestamps and durations are in
// microseconds, as the format requires; Dur is written for complete ("X")
// events only.
type traceEvent struct {
	Name  string
	Cat   string // omitted when empty
	Ph    string
	Ts    float64
	Dur   float64
	Pid   int
	Tid   int
	Scope string // "s", omitted when empty
	Args  []traceArg
}

// traceArg is one of an event's args, in the order written.
type traceArg struct {
	Key   string
	Value any // uint64, int, bool or string (anything else is written as a string)
}

// appendJSON appends e as compact JSON.
func (e *traceEvent) appendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, e.Name)
	if e.Cat != "" {
		b = append(b, `,"cat":`...)
		b = appendJSONString(b, e.Cat)
	}
	b = append(b, `,"ph":`...)
	b = appendJSONString(b, e.Ph)
	b = append(b, `,"ts":`...)
	b = strconv.AppendFloat(b, e.Ts, 'f', -1, 64)
	if e.Ph == "X" {
		b = append(b, `,"dur":`...)
		b = strconv.AppendFloat(b, e.Dur, 'f', -1, 64)
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(e.Pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(e.Tid), 10)
	if e.Scope != "" {
		b = append(b, `,"s":`...)
		b = appendJSONString(b, e.Scope)
	}
	if len(e.Args) > 0 {
		b = append(b, `,"args":{`...)
		for i, a := range e.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, a.Key)
			b = append(b, ':')
			b = appendJSONValue(b, a.Value)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendJSONValue appends an argument's value.
func appendJSONValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case uint64:
		return strconv.AppendUint(b, v, 10)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case bool:
		return strconv.AppendBool(b, v)
	case string:
		return appendJSONString(b, v)
	default:
		return appendJSONString(b, fmt.Sprint(v))
	}
}

// appendJSONString appends s quoted: as it is when it needs no escape (the
// names and numbers of nearly every event), else as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s) // a string always marshals
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// micros converts a fabric time to trace microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// tracedFabric follows one fabric's events: its pid and tracks, and the
// spans that have begun and not yet ended.
type tracedFabric struct {
	pid    int
	tracks int                  // host and devices: the tids 0 to tracks-1
	last   time.Duration        // the latest event's time, where open spans stop at the end
	runs   map[uint64]*openSpan // by invocation
	rounds map[uint64]*openSpan // by invocation
	wait   *openSpan
}

// openSpan is a span that has begun: its first event, name and arguments.
type openSpan struct {
	start event.Event
	name  string
	args  []traceArg
}

func newTracedFabric(pid, tracks int) *tracedFabric {
	return &tracedFabric{pid: pid, tracks: tracks, runs: map[uint64]*openSpan{}, rounds: map[uint64]*openSpan{}}
}

// metadata names the fabric's process and its tracks.
func (tf *tracedFabric) metadata(label string, tracks []string) []traceEvent {
	evs := []traceEvent{{Name: "process_name", Ph: "M", Pid: tf.pid, Args: []traceArg{{"name", label}}}}
	for tid, name := range tracks {
		evs = append(evs,
			traceEvent{Name: "thread_name", Ph: "M", Pid: tf.pid, Tid: tid, Args: []traceArg{{"name", name}}},
			traceEvent{Name: "thread_sort_index", Ph: "M", Pid: tf.pid, Tid: tid, Args: []traceArg{{"sort_index", tid}}})
	}
	return evs
}

// tid is the track of an actor: its number, or the host's track when the
// actor is unknown to the fabric.
func (tf *tracedFabric) tid(a event.Actor) int {
	if int(a) < tf.tracks {
		return int(a)
	}
	return 0
}

// instant is e as an instant event on its actor's track, named by its kind
// ("publication", "observe", "payload.write", "payload.read", "retire",
// ...), or for a program's note by the note's own name ("chunk.sent"),
// with the event's fields as arguments. A real GPU's kernel.observe and
// kernel.retire stand at the kernel's own time (their B), not when the
// host noticed.
func (tf *tracedFabric) instant(e event.Event) traceEvent {
	args := []traceArg{{"seq", e.Seq}, {"session", e.Session}, {"a", e.A}, {"b", e.B}}
	if e.Detail != "" {
		args = append(args, traceArg{"detail", e.Detail})
	}
	at := e.Time
	if e.Kind == kernel.EvObserve || e.Kind == kernel.EvRetire {
		at = time.Duration(e.B)
	}
	name := string(e.Kind)
	if e.Kind == program.EvNote {
		name, _, _ = strings.Cut(e.Detail, " ")
	}
	return traceEvent{
		Name: name, Cat: e.Kind.Category().String(), Ph: "i", Scope: "t",
		Ts: micros(at), Pid: tf.pid, Tid: tf.tid(e.Actor), Args: args,
	}
}

// observe follows the spans through e and appends to out the complete
// ("X") events of those e ends: on a device track, "run" from an
// invocation's start to its retirement and "round" (args.generation g)
// from one payload step of an invocation to its next (or its retirement);
// on the host track, "wait" from a wait to its end. A span that begins
// again before it ended (a second start of an invocation) is dropped, and
// an end without a beginning ignored.
func (tf *tracedFabric) observe(e event.Event, out []traceEvent) []traceEvent {
	tf.last = e.Time
	switch e.Kind {
	case event.EvStart:
		tf.runs[e.A] = &openSpan{start: e, name: "run", args: []traceArg{{"session", e.Session}, {"invocation", e.A}}}
	case exchange.EvPayloadWrite, exchange.EvPayloadRead:
		out = tf.end(out, tf.rounds, e.A, e.Time)
		tf.rounds[e.A] = &openSpan{start: e, name: "round", args: []traceArg{
			{"session", e.Session}, {"invocation", e.A}, {"generation", e.B}, {"step", string(e.Kind)}}}
	case event.EvRetire:
		out = tf.end(out, tf.rounds, e.A, e.Time)
		if r := tf.runs[e.A]; r != nil {
			status := "ok"
			if e.B != 0 {
				status = "error"
			}
			r.args = append(r.args, traceArg{"status", status})
			out = tf.end(out, tf.runs, e.A, e.Time)
		}
	case oracle.EvWait:
		tf.wait = &openSpan{start: e, name: "wait", args: []traceArg{{"session", e.Session}, {"timeout_ns", e.A}}}
	case oracle.EvWaitEnd:
		if w := tf.wait; w != nil {
			w.args = append(w.args, traceArg{"both_retired", e.A == 1})
			out = append(out, tf.span(w, e.Time))
			tf.wait = nil
		}
	}
	return out
}

// end ends the span of invocation inv in spans, if one is open, at at.
func (tf *tracedFabric) end(out []traceEvent, spans map[uint64]*openSpan, inv uint64, at time.Duration) []traceEvent {
	if s := spans[inv]; s != nil {
		out = append(out, tf.span(s, at))
		delete(spans, inv)
	}
	return out
}

// span is s as a complete event ending at at.
func (tf *tracedFabric) span(s *openSpan, at time.Duration) traceEvent {
	return traceEvent{
		Name: s.name, Cat: "span", Ph: "X", Ts: micros(s.start.Time), Dur: micros(at - s.start.Time),
		Pid: tf.pid, Tid: tf.tid(s.start.Actor), Args: s.args,
	}
}

// idle reports whether no span is open.
func (tf *tracedFabric) idle() bool {
	return len(tf.runs) == 0 && len(tf.rounds) == 0 && tf.wait == nil
}

// unfinished ends every span still open at the fabric's last event, marked
// args.unfinished (a hung device's run): runs, then rounds, by invocation,
// then the wait.
func (tf *tracedFabric) unfinished() []traceEvent {
	var out []traceEvent
	for _, spans := range []map[uint64]*openSpan{tf.runs, tf.rounds} {
		for _, inv := range slices.Sorted(maps.Keys(spans)) {
			spans[inv].args = append(spans[inv].args, traceArg{"unfinished", true})
			out = tf.end(out, spans, inv, tf.last)
		}
	}
	if w := tf.wait; w != nil {
		w.args = append(w.args, traceArg{"unfinished", true})
		out = append(out, tf.span(w, tf.last))
		tf.wait = nil
	}
	return out
}
