package luaapi

import (
	"sync"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/kernel"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine"
)

// SessionStats is what one session did: its shape, how far it got, when each
// step happened (seconds of fabric time, virtual in simulated mode; nil when
// the step never happened) and what the host's verification found.
type SessionStats struct {
	ID           uint64        `json:"id"`
	Seed         uint64        `json:"seed"` // the seed of the session's fabric
	State        string        `json:"state"`
	GPUQueue     string        `json:"gpu_queue"`
	Rounds       int           `json:"rounds"`
	Credits      int           `json:"credits"`
	SlotBytes    int           `json:"slot_bytes"`
	Bytes        int64         `json:"bytes"`              // payload bytes moved and verified
	Decision     string        `json:"decision,omitempty"` // "run", "abort", or "" before one
	Decided      *float64      `json:"decided"`            // when the host recorded the decision
	GPU          DeviceStats   `json:"gpu"`
	NPU          DeviceStats   `json:"npu"`
	Verification *Verification `json:"verification"` // the built-in exchange's, nil until a RUN session retired
	// Programs names the programs of a session of the user's programs;
	// nil for the built-in exchange (whose shape Rounds, Credits and
	// SlotBytes give).
	Programs *Programs `json:"programs,omitempty"`
	// Check is what the programs' own checks found once a RUN session
	// retired; nil before that.
	Check *Check `json:"check,omitempty"`
}

// Programs names a session's programs.
type Programs struct {
	GPU string `json:"gpu"`
	NPU string `json:"npu"`
}

// Check is what a session's programs' own checks found.
type Check struct {
	OK      bool   `json:"ok"`
	Problem string `json:"problem,omitempty"`
}

// DeviceStats is one participant's timeline.
type DeviceStats struct {
	Device   string   `json:"device"`
	Accepted *float64 `json:"accepted"` // the host saw the dispatch accepted
	Observed *float64 `json:"observed"` // the program saw the decision
	Retired  *float64 `json:"retired"`  // the program retired
	Error    string   `json:"error,omitempty"`
	// On a real GPU, when the kernel itself saw the decision and retired,
	// by its own clock aligned with the fabric's; nil otherwise.
	KernelObserved *float64 `json:"kernel_observed,omitempty"`
	KernelRetired  *float64 `json:"kernel_retired,omitempty"`
}

// Verification is the host's check of the exchange.
type Verification struct {
	OK       bool   `json:"ok"`
	Rounds   int    `json:"rounds"`
	Verified int    `json:"verified"`
	Problem  string `json:"problem,omitempty"`
}

// recorder keeps, for every session of one fabric, the times of the steps
// that SessionStats reports, as the events go by: the fabric's event ring is
// bounded, and a long exchange would push them out of it.
//
// When its fabric is let go the module keeps it for the next fabric
// (attach), with its map and timelines, so that a campaign's trials do not
// make them anew.
type recorder struct {
	mu            sync.Mutex
	lines         map[uint64]*timeline
	freeTimelines []*timeline // timelines of forgotten sessions, reused for the next ones
	cancel        func()
	observe       func(*devices.Event) // observeEvent, bound once
}

type stamp struct {
	at  time.Duration
	set bool
}

func (s *stamp) mark(at time.Duration) {
	if !s.set {
		s.at, s.set = at, true
	}
}

func (s stamp) seconds() *float64 {
	if !s.set {
		return nil
	}
	v := s.at.Seconds()
	return &v
}

// timeline is one session's recorded steps. A session involves two
// devices, so their lines are found by actor in a small array, not a map.
type timeline struct {
	accepted [2]stamp // by participant
	decided  stamp
	devices  [2]deviceLine
}

// deviceLine is one device's steps in a session.
type deviceLine struct {
	actor                         devices.Actor // 0 while unused
	observed, retired             stamp
	kernelObserved, kernelRetired stamp
	err                           string
}

// line returns the device line of actor, claiming a free one; nil when
// more than two devices took part.
func (t *timeline) line(actor devices.Actor) *deviceLine {
	for i := range t.devices {
		d := &t.devices[i]
		if d.actor == actor || d.actor == 0 {
			d.actor = actor
			return d
		}
	}
	return nil
}

// find returns the device line of actor, or nil.
func (t *timeline) find(actor devices.Actor) *deviceLine {
	for i := range t.devices {
		if t.devices[i].actor == actor {
			return &t.devices[i]
		}
	}
	return nil
}

func newRecorder() *recorder {
	r := &recorder{lines: map[uint64]*timeline{}}
	r.observe = r.observeEvent
	return r
}

// attach starts recording f's sessions, forgetting those of the fabric it
// recorded before, if any.
func (r *recorder) attach(f *devices.Fabric) {
	r.mu.Lock()
	for id := range r.lines {
		r.forgetLocked(id)
	}
	r.mu.Unlock()
	r.cancel = f.Events().Subscribe(r.observe)
}

func (r *recorder) stop() { r.cancel() }

// forget drops the timeline of session id, whose stats were kept.
func (r *recorder) forget(id uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgetLocked(id)
}

func (r *recorder) forgetLocked(id uint64) {
	if t := r.lines[id]; t != nil {
		r.freeTimelines = append(r.freeTimelines, t)
		delete(r.lines, id)
	}
}

func (r *recorder) observeEvent(e *devices.Event) {
	if e.Session == 0 || !recorded(e) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.lines[e.Session]
	if t == nil {
		if n := len(r.freeTimelines); n > 0 {
			t, r.freeTimelines = r.freeTimelines[n-1], r.freeTimelines[:n-1]
			*t = timeline{}
		} else {
			t = &timeline{}
		}
		r.lines[e.Session] = t
	}
	t.mark(e)
}

// recorded reports whether e is one of the steps a timeline keeps. Every
// event of every session comes here, so the host's are told apart first:
// they are matched against the engine's kinds, which are constants and so
// cost a few instructions each, and only a device's against the device
// kinds.
func recorded(e *devices.Event) bool {
	if e.Actor == devices.HostActor {
		return e.Kind == engine.EvSubmit || e.Kind == engine.EvDecide
	}
	switch e.Kind {
	case program.EvObserve, devices.EvRetire, kernel.EvObserve, kernel.EvRetire:
		return true
	}
	return false
}

// mark records the step e, one that recorded keeps, unless the timeline
// has it already.
func (t *timeline) mark(e *devices.Event) {
	switch e.Kind {
	case engine.EvSubmit:
		if e.B == 0 && e.A < 2 {
			t.accepted[e.A].mark(e.Time)
		}
		return
	case engine.EvDecide:
		t.decided.mark(e.Time)
		return
	}
	d := t.line(e.Actor)
	if d == nil {
		return
	}
	switch e.Kind {
	case program.EvObserve:
		d.observed.mark(e.Time)
	case devices.EvRetire:
		d.retired.mark(e.Time)
		if e.B != 0 && d.err == "" {
			d.err = e.Detail
		}
	case kernel.EvObserve:
		d.kernelObserved.mark(time.Duration(e.B))
	case kernel.EvRetire:
		d.kernelRetired.mark(time.Duration(e.B))
	}
}

// timeline returns a copy of session id's timeline; an empty one when
// nothing was recorded.
func (r *recorder) timeline(id uint64) timeline {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.lines[id]; t != nil {
		return *t
	}
	return timeline{}
}

// fill writes the recorded times into st; gpu and npu are the session's
// devices.
func (t *timeline) fill(gpu, npu devices.Actor, st *SessionStats) {
	st.Decided = t.decided.seconds()
	for i, d := range []*DeviceStats{&st.GPU, &st.NPU} {
		d.Accepted = t.accepted[i].seconds()
		line := t.find([]devices.Actor{gpu, npu}[i])
		if line == nil {
			continue
		}
		d.Observed, d.Retired, d.Error = line.observed.seconds(), line.retired.seconds(), line.err
		d.KernelObserved, d.KernelRetired = line.kernelObserved.seconds(), line.kernelRetired.seconds()
	}
}
