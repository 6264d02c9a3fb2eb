package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/campaign/trial"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
	"github.com/residentlua/residentlua/programs/kernel"
)

// chromeEvent is one trace event as a viewer reads it.
type chromeEvent struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	Pid  *int           `json:"pid"`
	Tid  *int           `json:"tid"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
}

// loadTrace reads a trace file and checks the trace-event schema: an object
// with a traceEvents array whose every entry has name, ph, ts, pid and tid,
// a known phase, and a duration for complete events.
func loadTrace(t *testing.T, path string) []chromeEvent {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		TraceEvents     []json.RawMessage `json:"traceEvents"`
		DisplayTimeUnit string            `json:"displayTimeUnit"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	if raw.TraceEvents == nil || raw.DisplayTimeUnit != "ns" {
		t.Fatalf("trace has no traceEvents array or no displayTimeUnit ns:\n%.500s", data)
	}
	checkTraceLines(t, data, len(raw.TraceEvents))
	var evs []chromeEvent
	for i, r := range raw.TraceEvents {
		var keys map[string]any
		if err := json.Unmarshal(r, &keys); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		for _, k := range []string{"name", "ph", "ts", "pid", "tid"} {
			if _, ok := keys[k]; !ok {
				t.Errorf("event %d lacks %q: %s", i, k, r)
			}
		}
		var e chromeEvent
		if err := json.Unmarshal(r, &e); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		switch e.Ph {
		case "i":
			if e.S != "t" && e.S != "p" && e.S != "g" {
				t.Errorf("instant event %d has scope %q", i, e.S)
			}
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				t.Errorf("complete event %d has no valid dur: %s", i, r)
			}
		case "M":
		default:
			t.Errorf("event %d has phase %q", i, e.Ph)
		}
		evs = append(evs, e)
	}
	return evs
}

// checkTraceLines checks the file's layout: the head on the first line,
// then each of the n events alone on a line of compact JSON, then the tail.
func checkTraceLines(t *testing.T, data []byte, n int) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != n+2 || lines[0] != `{"traceEvents":[` || lines[n+1] != `],"displayTimeUnit":"ns"}` {
		t.Fatalf("%d lines for %d events, from %.80q to %.80q", len(lines), n, lines[0], lines[len(lines)-1])
	}
	for i, l := range lines[1 : n+1] {
		if i < n-1 {
			l = strings.TrimSuffix(l, ",")
		}
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(l)) != nil || compact.String() != l || !strings.HasPrefix(l, `{"name":`) {
			t.Fatalf("line %d is not one compact event: %.200s", i+2, l)
		}
	}
}

// trackIDs maps each thread_name of pid to its tid.
func trackIDs(evs []chromeEvent, pid int) map[string]int {
	ids := map[string]int{}
	for _, e := range evs {
		if e.Ph == "M" && e.Name == "thread_name" && *e.Pid == pid {
			ids[e.Args["name"].(string)] = *e.Tid
		}
	}
	return ids
}

func TestTraceFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.json")
	r := runCmd(t, "", "", "--mode", "sim", "--seed", "1", "--timing", "published", "--trace", path, "examples/hello.lua")
	r.wantCode(t, 0)
	evs := loadTrace(t, path)

	tracks := trackIDs(evs, 1)
	host, gpu, npu := tracks["host"], tracks["gpu0"], tracks["npu0"]
	if len(tracks) != 3 || host == gpu || gpu == npu || host == npu {
		t.Fatalf("tracks %v: want host, gpu0 and npu0 on separate tids", tracks)
	}
	// Where each kind of step must be found: the host publishes, the
	// devices observe, exchange rounds and retire.
	type key struct {
		name string
		ph   string
		tid  int
	}
	count := map[key]int{}
	firstTs := map[key]float64{}
	for _, e := range evs {
		k := key{e.Name, e.Ph, *e.Tid}
		if count[k] == 0 {
			firstTs[k] = *e.Ts
		}
		count[k]++
	}
	for _, want := range []struct {
		k key
		n int
	}{
		{key{"publication", "i", host}, 3}, // gpu0 pm4, gpu0 aql, npu0 xdna
		{key{"decide", "i", host}, 1},
		{key{"observe", "i", gpu}, 1},
		{key{"observe", "i", npu}, 1},
		{key{"payload.write", "i", gpu}, 4},
		{key{"payload.read", "i", npu}, 4},
		{key{"round", "X", gpu}, 4},
		{key{"round", "X", npu}, 4},
		{key{"retire", "i", gpu}, 1},
		{key{"retire", "i", npu}, 1},
		{key{"run", "X", gpu}, 1},
		{key{"run", "X", npu}, 1},
		{key{"wait", "X", host}, 1},
		{key{"process_name", "M", 0}, 1},
	} {
		if count[want.k] != want.n {
			t.Errorf("%d %+v events, want %d", count[want.k], want.k, want.n)
		}
	}
	// Every round is named round, with its generation as an argument.
	gens := map[int][]float64{}
	for _, e := range evs {
		if e.Ph == "X" && e.Name == "round" {
			gens[*e.Tid] = append(gens[*e.Tid], e.Args["generation"].(float64))
		}
	}
	if want := []float64{1, 2, 3, 4}; !slices.Equal(gens[gpu], want) || !slices.Equal(gens[npu], want) {
		t.Errorf("round generations %v, want %v on gpu0 and npu0", gens, want)
	}
	for _, k := range []key{{"publication", "i", gpu}, {"observe", "i", host}, {"payload.read", "i", gpu}} {
		if count[k] != 0 {
			t.Errorf("%+v: on the wrong track", k)
		}
	}
	// Published timing: the NPU starts 50 µs after its dispatch, so it
	// observes RUN well after the publication, and retires later still.
	pub, obs, ret := firstTs[key{"publication", "i", host}], firstTs[key{"observe", "i", npu}], firstTs[key{"retire", "i", npu}]
	if !(pub < obs && obs < ret) || obs-pub < 1 {
		t.Errorf("times in µs: publication %v, NPU observation %v, NPU retirement %v", pub, obs, ret)
	}
}

func TestTraceSeveralFabrics(t *testing.T) {
	// Each fabric is a process of its own.
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.json")
	r := runCmd(t, "", "", "--mode", "sim", "--seed", "3", "--trace", path,
		"-e", "resident.seed(); for i = 0, 2 do resident.trial{seed = 3 + i} end")
	r.wantCode(t, 0)
	evs := loadTrace(t, path)
	procs := map[int]string{}
	for _, e := range evs {
		if e.Ph == "M" && e.Name == "process_name" {
			procs[*e.Pid] = e.Args["name"].(string)
		}
	}
	// The default fabric (made for resident.seed()) and one per trial.
	if len(procs) != 4 || procs[2] != "fabric 2 (sim, seed 3)" || procs[4] != "fabric 4 (sim, seed 5)" {
		t.Errorf("processes %v", procs)
	}
}

func TestTraceSpansFromEvents(t *testing.T) {
	// Spans end as their end comes; those still open when the record ends
	// stop at the last event and are marked; an end without a beginning is
	// ignored.
	tf := newTracedFabric(1, 3)
	var spans []traceEvent
	for _, e := range []event.Event{
		{Seq: 1, Time: 0, Actor: 0, Kind: oracle.EvWaitEnd, A: 1},
		{Seq: 2, Time: time.Microsecond, Actor: 1, Session: 1, Kind: event.EvStart, A: 10},
		{Seq: 3, Time: 2 * time.Microsecond, Actor: 1, Session: 1, Kind: exchange.EvPayloadWrite, A: 10, B: 1},
		{Seq: 4, Time: 3 * time.Microsecond, Actor: 1, Session: 1, Kind: exchange.EvPayloadWrite, A: 10, B: 2},
		{Seq: 5, Time: 3 * time.Microsecond, Actor: 0, Session: 1, Kind: oracle.EvWait, A: 1000},
		{Seq: 6, Time: 5 * time.Microsecond, Actor: 9, Session: 1, Kind: event.EvFault},
	} {
		spans = tf.observe(e, spans)
	}
	if len(spans) != 1 || spans[0].Name != "round" || spans[0].Ts != 2 || spans[0].Dur != 1 || spans[0].Tid != 1 ||
		argOf(spans[0], "generation") != uint64(1) || argOf(spans[0], "unfinished") != nil {
		t.Fatalf("spans ended by the events: %+v", spans)
	}
	if tf.idle() {
		t.Error("idle with a run, a round and a wait open")
	}
	spans = tf.unfinished()
	if len(spans) != 3 || !tf.idle() {
		t.Fatalf("unfinished spans %+v", spans)
	}
	for _, s := range spans {
		if argOf(s, "unfinished") != true || s.Ts+s.Dur != 5 {
			t.Errorf("span %s: ts %v dur %v args %v", s.Name, s.Ts, s.Dur, s.Args)
		}
	}
	if spans[0].Name != "run" || spans[1].Name != "round" || argOf(spans[1], "generation") != uint64(2) ||
		spans[2].Name != "wait" || spans[2].Tid != 0 || spans[0].Tid != 1 {
		t.Errorf("spans %+v", spans)
	}
	// An actor the fabric does not know goes on the host track.
	if in := tf.instant(event.Event{Seq: 6, Actor: 9, Kind: event.EvFault}); in.Tid != 0 || in.Cat != "fault" {
		t.Errorf("instant %+v", in)
	}
}

// argOf is the value of an event's argument key, nil when it has none.
func argOf(e traceEvent, key string) any {
	for _, a := range e.Args {
		if a.Key == key {
			return a.Value
		}
	}
	return nil
}

// A real GPU kernel's own clock readings stand at the kernel's time, on the
// GPU's track.
func TestTraceKernelEventsAtTheKernelsTime(t *testing.T) {
	tf := newTracedFabric(1, 3)
	k := tf.instant(event.Event{Seq: 1, Time: 9 * time.Microsecond, Actor: 1, Session: 1, Kind: kernel.EvObserve, A: 10, B: uint64(4 * time.Microsecond)})
	o := tf.instant(event.Event{Seq: 2, Time: 9 * time.Microsecond, Actor: 1, Session: 1, Kind: program.EvObserve, A: 10, B: 1})
	if k.Ts != 4 || k.Tid != 1 || k.Cat != "device" || o.Ts != 9 {
		t.Errorf("instants %+v, %+v; want kernel.observe at 4 µs on the GPU's track, observe at 9 µs", k, o)
	}
}

// The trace holds every event of every fabric's stream, one instant each in
// the stream's order, the metadata naming each fabric and its tracks, and
// one span per run, round and wait.
func TestTraceHoldsEveryEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.json")
	rec := newTraceRecorder(path)
	var streams [][]event.Event // by pid-1
	var names [][]string
	for seed := uint64(1); seed <= 4; seed++ {
		trial.Run(trial.Config{Seed: seed, OnFabric: func(f *devices.Fabric) {
			rec.attach(f)
			i := len(streams)
			streams = append(streams, nil)
			f.Events().Subscribe(func(e *event.Event) { streams[i] = append(streams[i], *e) })
			tracks := []string{"host"}
			for _, d := range f.Devices() {
				tracks = append(tracks, d.Name())
			}
			names = append(names, tracks)
		}})
	}
	if err := rec.write(); err != nil {
		t.Fatal(err)
	}
	byPid := map[int][]chromeEvent{}
	rounds := 0
	for _, e := range loadTrace(t, path) {
		byPid[*e.Pid] = append(byPid[*e.Pid], e)
	}
	if len(byPid) != len(streams) {
		t.Fatalf("%d processes for %d fabrics", len(byPid), len(streams))
	}
	for i, stream := range streams {
		pid := i + 1
		var meta, instants []chromeEvent
		spans := map[string]int{}
		for _, e := range byPid[pid] {
			switch e.Ph {
			case "M":
				meta = append(meta, e)
			case "i":
				instants = append(instants, e)
			case "X":
				spans[e.Name]++
			}
		}
		label := fmt.Sprintf("fabric %d (sim, seed %d)", pid, i+1)
		if len(meta) != 1+2*len(names[i]) || meta[0].Name != "process_name" || meta[0].Args["name"] != label {
			t.Errorf("fabric %d: metadata %+v, want %q and two per track of %v", pid, meta, label, names[i])
		}
		if !reflect.DeepEqual(trackIDs(byPid[pid], pid), map[string]int{"host": 0, "gpu0": 1, "npu0": 2}) {
			t.Errorf("fabric %d: tracks %v", pid, trackIDs(byPid[pid], pid))
		}
		if len(instants) != len(stream) {
			t.Fatalf("fabric %d: %d instants for %d events", pid, len(instants), len(stream))
		}
		want := map[string]int{}
		for j, e := range stream {
			in := instants[j]
			if in.Name != string(e.Kind) || in.Args["seq"] != float64(e.Seq) || *in.Ts != micros(e.Time) || *in.Tid != int(e.Actor) {
				t.Fatalf("fabric %d: instant %d is %+v for %+v", pid, j, in, e)
			}
			switch e.Kind {
			case event.EvStart:
				want["run"]++
			case exchange.EvPayloadWrite, exchange.EvPayloadRead:
				want["round"]++
			case oracle.EvWait:
				want["wait"]++
			}
		}
		if !maps.Equal(spans, want) {
			t.Errorf("fabric %d: spans %v, want %v", pid, spans, want)
		}
		rounds += spans["round"]
	}
	if rounds == 0 {
		t.Error("no round in any trial")
	}
}

// The recorder holds the spans still open, not the events: a fabric is
// dropped once its spans have ended, so memory does not grow with the
// number of fabrics. The lines stream into a temporary file while the
// previous trace stays in place until the end.
func TestTraceHoldsOnlyOpenSpans(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.json")
	if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	tracks := []string{"host", "gpu0", "npu0"}
	oneRun := []event.Event{
		{Seq: 1, Time: 1000, Actor: 1, Session: 1, Kind: event.EvStart, A: 7},
		{Seq: 2, Time: 2000, Actor: 0, Session: 1, Kind: oracle.EvWait, A: 1e6},
		{Seq: 3, Time: 3000, Actor: 1, Session: 1, Kind: exchange.EvPayloadWrite, A: 7, B: 1},
		{Seq: 4, Time: 4000, Actor: 1, Session: 1, Kind: exchange.EvPayloadWrite, A: 7, B: 2},
		{Seq: 5, Time: 5000, Actor: 1, Session: 1, Kind: event.EvRetire, A: 7},
		{Seq: 6, Time: 6000, Actor: 0, Session: 1, Kind: oracle.EvWaitEnd, A: 1},
	}
	r := newTraceRecorder(path)
	hung := r.begin("sim, seed 0", tracks)
	r.record(hung, oneRun[0]) // a run that never retires
	const fabrics = 1000
	for i := 1; i <= fabrics; i++ {
		tf := r.begin(fmt.Sprintf("sim, seed %d", i), tracks)
		for _, e := range oneRun {
			r.record(tf, e)
			if len(r.open) > 2 {
				t.Fatalf("fabric %d: the recorder holds %d fabrics", i, len(r.open))
			}
		}
		if len(r.open) != 1 || r.open[hung.pid] != hung {
			t.Fatalf("after fabric %d the recorder holds %v; want only the hung one", i, r.open)
		}
	}
	if data, _ := os.ReadFile(path); string(data) != "previous" {
		t.Errorf("the previous trace changed before the end: %.80q", data)
	}
	// All but the last buffer's worth of lines is in the temporary file.
	tmps, _ := filepath.Glob(filepath.Join(dir, ".trace.json.tmp-*"))
	if len(tmps) != 1 {
		t.Fatalf("temporary files %v, want one", tmps)
	}
	if fi, err := os.Stat(tmps[0]); err != nil || fi.Size() < fabrics*1000 {
		t.Errorf("the temporary file holds %v bytes (%v), want the lines of %d fabrics", fi.Size(), err, fabrics)
	}
	if err := r.write(); err != nil {
		t.Fatal(err)
	}
	r.record(hung, oneRun[4]) // after write: not recorded
	count := map[string]int{}
	for _, e := range loadTrace(t, path) {
		count[e.Ph+" "+e.Name]++
		if e.Ph == "X" && e.Args["unfinished"] == true && (*e.Pid != hung.pid || e.Name != "run" || *e.Dur != 0) {
			t.Errorf("unfinished %+v", e)
		}
	}
	want := map[string]int{"M process_name": fabrics + 1, "i start": fabrics + 1, "i retire": fabrics,
		"X run": fabrics + 1, "X round": 2 * fabrics, "X wait": fabrics}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d %q, want %d", count[k], k, n)
		}
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, ".trace.json.tmp-*")); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
	if err := r.write(); err == nil {
		t.Error("a second write succeeded")
	}
}

// A trace that cannot be put in place is removed, and the error says why;
// what was at the path stays.
func TestTraceFailedWriteLeavesThePrevious(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.json")
	if err := os.MkdirAll(filepath.Join(path, "kept"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*traceRecorder{newTraceRecorder(path), {}} {
		r.record(r.begin("sim, seed 1", []string{"host"}), event.Event{Seq: 1, Kind: event.EvFault})
		if err := r.write(); err == nil {
			t.Error("renaming over a directory succeeded")
		}
		if _, err := os.Stat(filepath.Join(path, "kept")); err != nil {
			t.Error(err)
		}
		if tmps, _ := filepath.Glob(filepath.Join(dir, ".trace.json.tmp-*")); len(tmps) != 0 {
			t.Errorf("temporary files left: %v", tmps)
		}
	}
}

// A recorder made as a zero value (the campaign's --replay) holds its lines
// until write names the file; an empty trace is valid too.
func TestTraceEmptyAndOneFabric(t *testing.T) {
	// A run with no fabric writes an empty trace; one fabric's metadata
	// and events come out whole.
	path := filepath.Join(t.TempDir(), "trace.json")
	if err := newTraceRecorder(path).write(); err != nil {
		t.Fatal(err)
	}
	if evs := loadTrace(t, path); len(evs) != 0 {
		t.Errorf("events %+v in an empty trace", evs)
	}
	r := newTraceRecorder(path)
	r.record(r.begin("sim, seed 1", []string{"host"}), event.Event{Seq: 1, Kind: event.EvFault, Detail: "x"})
	if err := r.write(); err != nil {
		t.Fatal(err)
	}
	if evs := loadTrace(t, path); len(evs) != 4 || evs[3].Args["detail"] != "x" {
		t.Errorf("events %+v", evs)
	}
}

// Strings and numbers come out as encoding/json writes them.
func TestTraceJSONLikeEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "run", "payload.write", `say "hi"`, "a\\b", "line\nbreak\t", "<&>", "é", "\xff\x00", "\u2028"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
	}
	for _, d := range []time.Duration{0, 1, 999, 1000, 1500, 123456789, 1 << 62} {
		e := traceEvent{Name: "x", Ph: "X", Ts: micros(d), Dur: micros(d)}
		want, _ := json.Marshal(micros(d))
		if got := string(e.appendJSON(nil)); !strings.Contains(got, `"ts":`+string(want)+`,"dur":`+string(want)+`,`) {
			t.Errorf("%v: %s, want ts and dur %s", d, got, want)
		}
	}
	e := traceEvent{Name: "n", Ph: "i", Scope: "t", Args: []traceArg{{"u", uint64(1 << 63)}, {"i", -1}, {"b", true}, {"s", "v"}, {"f", 0.5}}}
	if got, want := string(e.appendJSON(nil)), `{"name":"n","ph":"i","ts":0,"pid":0,"tid":0,"s":"t","args":{"u":9223372036854775808,"i":-1,"b":true,"s":"v","f":"0.5"}}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestTraceNamesAProgramsNotes: a Lua program's own events (notes) stand
// in a trace under their own names.
func TestTraceNamesAProgramsNotes(t *testing.T) {
	var tf tracedFabric
	e := tf.instant(event.Event{Seq: 1, Actor: 1, Session: 1, Kind: program.EvNote, A: 3, B: 7, Detail: "chunk.sent half 1"})
	if e.Name != "chunk.sent" {
		t.Errorf("a note named chunk.sent stands as %q", e.Name)
	}
}
