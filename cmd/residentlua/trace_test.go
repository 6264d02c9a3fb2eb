package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/engine"
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
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	if raw.TraceEvents == nil {
		t.Fatalf("trace has no traceEvents array:\n%.500s", data)
	}
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
		{key{"round 1", "X", gpu}, 1},
		{key{"round 4", "X", npu}, 1},
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
	// Spans still open when the record ends stop at the last event and are
	// marked; an end without a beginning is ignored.
	tf := &tracedFabric{pid: 1, tracks: []string{"host", "gpu0", "npu0"}, events: []devices.Event{
		{Seq: 1, Time: 0, Actor: 0, Kind: engine.EvWaitEnd, A: 1},
		{Seq: 2, Time: time.Microsecond, Actor: 1, Session: 1, Kind: devices.EvStart, A: 10},
		{Seq: 3, Time: 2 * time.Microsecond, Actor: 1, Session: 1, Kind: exchange.EvPayloadWrite, A: 10, B: 1},
		{Seq: 4, Time: 3 * time.Microsecond, Actor: 0, Session: 1, Kind: engine.EvWait, A: 1000},
		{Seq: 5, Time: 5 * time.Microsecond, Actor: 9, Session: 1, Kind: devices.EvFault},
	}}
	spans := tf.spans()
	if len(spans) != 3 {
		t.Fatalf("spans %+v", spans)
	}
	for _, s := range spans {
		if s.Args["unfinished"] != true || s.Ts+*s.Dur != 5 {
			t.Errorf("span %s: ts %v dur %v args %v", s.Name, s.Ts, *s.Dur, s.Args)
		}
	}
	if spans[0].Name != "run" || spans[1].Name != "round 1" || spans[2].Name != "wait" || spans[2].Tid != 0 || spans[0].Tid != 1 {
		t.Errorf("spans %+v", spans)
	}
	// An actor the fabric does not know goes on the host track.
	if in := tf.instants(); in[4].Tid != 0 || in[4].Cat != "fault" {
		t.Errorf("instant %+v", in[4])
	}
}

// A real GPU kernel's own clock readings stand at the kernel's time, on the
// GPU's track.
func TestTraceKernelEventsAtTheKernelsTime(t *testing.T) {
	tf := &tracedFabric{pid: 1, tracks: []string{"host", "gpu0", "npu0"}, events: []devices.Event{
		{Seq: 1, Time: 9 * time.Microsecond, Actor: 1, Session: 1, Kind: exchange.EvKernelObserve, A: 10, B: uint64(4 * time.Microsecond)},
		{Seq: 2, Time: 9 * time.Microsecond, Actor: 1, Session: 1, Kind: exchange.EvObserve, A: 10, B: 1},
	}}
	in := tf.instants()
	if in[0].Ts != 4 || in[0].Tid != 1 || in[0].Cat != "device" || in[1].Ts != 9 {
		t.Errorf("instants %+v; want kernel.observe at 4 µs on the GPU's track, observe at 9 µs", in)
	}
}
