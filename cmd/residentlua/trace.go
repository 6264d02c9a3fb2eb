package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/engine"
)

// traceRecorder keeps every event of every fabric the module makes and
// writes them as a Chrome trace-event JSON file (the "JSON Object Format"
// that Perfetto and chrome://tracing open). Each fabric is a process (pid
// 1, 2, ... in the order the fabrics were made); in it the host is thread
// 0 and each device is the thread of its actor number (gpu0 is 1, npu0 is 2
// in the default fabric).
type traceRecorder struct {
	mu      sync.Mutex
	fabrics []*tracedFabric
}

// tracedFabric is the record of one fabric: what names its tracks and the
// events it emitted, in order.
type tracedFabric struct {
	pid    int
	label  string
	tracks []string // thread names by actor: "host", then the devices
	events []devices.Event
}

// attach subscribes to f's event stream. It is the module's OnFabric hook.
func (r *traceRecorder) attach(f *devices.Fabric) {
	tracks := []string{"host"}
	for _, d := range f.Devices() {
		tracks = append(tracks, d.Name())
	}
	r.mu.Lock()
	tf := &tracedFabric{
		pid:    len(r.fabrics) + 1,
		label:  fmt.Sprintf("fabric %d (%s, seed %d)", len(r.fabrics)+1, f.Mode(), f.Seed()),
		tracks: tracks,
	}
	r.fabrics = append(r.fabrics, tf)
	r.mu.Unlock()
	f.Events().Subscribe(func(e devices.Event) {
		r.mu.Lock()
		tf.events = append(tf.events, e)
		r.mu.Unlock()
	})
}

// traceEvent is one entry of traceEvents. Timestamps and durations are in
// microseconds, as the format requires.
type traceEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	Ts    float64        `json:"ts"`
	Dur   *float64       `json:"dur,omitempty"`
	Pid   int            `json:"pid"`
	Tid   int            `json:"tid"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

// traceFile is the whole file.
type traceFile struct {
	TraceEvents     []traceEvent `json:"traceEvents"`
	DisplayTimeUnit string       `json:"displayTimeUnit"`
}

// write renders everything recorded so far into path.
func (r *traceRecorder) write(path string) error {
	file := r.file()
	return writeFileAtomically(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(file)
	})
}

// file builds the trace: metadata naming processes and threads, then for
// each fabric its events as instants and its spans as complete events.
func (r *traceRecorder) file() traceFile {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := traceFile{TraceEvents: []traceEvent{}, DisplayTimeUnit: "ns"}
	for _, tf := range r.fabrics {
		out.TraceEvents = append(out.TraceEvents, tf.metadata()...)
		out.TraceEvents = append(out.TraceEvents, tf.instants()...)
		out.TraceEvents = append(out.TraceEvents, tf.spans()...)
	}
	return out
}

// micros converts a fabric time to trace microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// metadata names the fabric's process and its tracks.
func (tf *tracedFabric) metadata() []traceEvent {
	evs := []traceEvent{{Name: "process_name", Ph: "M", Pid: tf.pid, Args: map[string]any{"name": tf.label}}}
	for tid, name := range tf.tracks {
		evs = append(evs,
			traceEvent{Name: "thread_name", Ph: "M", Pid: tf.pid, Tid: tid, Args: map[string]any{"name": name}},
			traceEvent{Name: "thread_sort_index", Ph: "M", Pid: tf.pid, Tid: tid, Args: map[string]any{"sort_index": tid}})
	}
	return evs
}

// tid is the track of an actor: its number, or the host's track when the
// actor is unknown to the fabric.
func (tf *tracedFabric) tid(a devices.Actor) int {
	if int(a) < len(tf.tracks) {
		return int(a)
	}
	return 0
}

// instants turns every event into an instant event on its actor's track,
// named by its kind ("publication", "observe", "payload.write",
// "payload.read", "retire", ...), with the event's fields as arguments. A
// real GPU's kernel.observe and kernel.retire stand at the kernel's own time
// (their B), not when the host noticed.
func (tf *tracedFabric) instants() []traceEvent {
	evs := make([]traceEvent, 0, len(tf.events))
	for _, e := range tf.events {
		args := map[string]any{"seq": e.Seq, "session": e.Session, "a": e.A, "b": e.B}
		if e.Detail != "" {
			args["detail"] = e.Detail
		}
		at := e.Time
		if e.Kind == exchange.EvKernelObserve || e.Kind == exchange.EvKernelRetire {
			at = time.Duration(e.B)
		}
		evs = append(evs, traceEvent{
			Name: string(e.Kind), Cat: e.Kind.Category().String(), Ph: "i", Scope: "t",
			Ts: micros(at), Pid: tf.pid, Tid: tf.tid(e.Actor), Args: args,
		})
	}
	return evs
}

// spans derives complete ("X") events: on a device track, "run" from an
// invocation's start to its retirement and "round g" from one payload step
// of an invocation to its next (or its retirement); on the host track,
// "wait" from a wait to its end. A span still open at the end of the
// record ends at the last event and is marked unfinished.
func (tf *tracedFabric) spans() []traceEvent {
	type open struct {
		start   devices.Event
		name    string
		args    map[string]any
		pending bool
	}
	var end time.Duration
	if n := len(tf.events); n > 0 {
		end = tf.events[n-1].Time
	}
	var evs []traceEvent
	finish := func(o *open, at time.Duration, unfinished bool) {
		if !o.pending {
			return
		}
		o.pending = false
		d := micros(at - o.start.Time)
		args := o.args
		if unfinished {
			args["unfinished"] = true
		}
		evs = append(evs, traceEvent{
			Name: o.name, Cat: "span", Ph: "X", Ts: micros(o.start.Time), Dur: &d,
			Pid: tf.pid, Tid: tf.tid(o.start.Actor), Args: args,
		})
	}
	runs := map[uint64]*open{}   // by invocation
	rounds := map[uint64]*open{} // by invocation
	var wait open
	for _, e := range tf.events {
		switch e.Kind {
		case devices.EvStart:
			runs[e.A] = &open{start: e, name: "run", args: map[string]any{"session": e.Session, "invocation": e.A}, pending: true}
		case exchange.EvPayloadWrite, exchange.EvPayloadRead:
			if r := rounds[e.A]; r != nil {
				finish(r, e.Time, false)
			}
			rounds[e.A] = &open{start: e, name: fmt.Sprintf("round %d", e.B),
				args: map[string]any{"session": e.Session, "invocation": e.A, "generation": e.B, "step": string(e.Kind)}, pending: true}
		case devices.EvRetire:
			if r := rounds[e.A]; r != nil {
				finish(r, e.Time, false)
			}
			if r := runs[e.A]; r != nil {
				r.args["status"] = "ok"
				if e.B != 0 {
					r.args["status"] = "error"
				}
				finish(r, e.Time, false)
			}
		case engine.EvWait:
			wait = open{start: e, name: "wait", args: map[string]any{"session": e.Session, "timeout_ns": e.A}, pending: true}
		case engine.EvWaitEnd:
			if wait.pending {
				wait.args["both_retired"] = e.A == 1
				finish(&wait, e.Time, false)
			}
		}
	}
	for _, m := range []map[uint64]*open{runs, rounds} {
		for _, inv := range slices.Sorted(maps.Keys(m)) {
			finish(m[inv], end, true)
		}
	}
	finish(&wait, end, true)
	return evs
}
