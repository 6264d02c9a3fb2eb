package luaapi

import (
	"sync"
	"time"

	"residentlua/devices"
	"residentlua/engine"
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
	Verification *Verification `json:"verification"` // nil until a RUN session retired
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
type recorder struct {
	mu     sync.Mutex
	lines  map[uint64]*timeline
	cancel func()
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

type timeline struct {
	accepted [2]stamp // by participant
	decided  stamp
	observed map[devices.Actor]stamp
	retired  map[devices.Actor]stamp
	errs     map[devices.Actor]string
	kernel   map[devices.Actor]*[2]stamp // observed, retired by a real GPU's clock
}

func newRecorder(f *devices.Fabric) *recorder {
	r := &recorder{lines: map[uint64]*timeline{}}
	r.cancel = f.Events().Subscribe(r.observe)
	return r
}

func (r *recorder) stop() { r.cancel() }

func (r *recorder) observe(e devices.Event) {
	if e.Session == 0 {
		return
	}
	switch e.Kind {
	case engine.EvSubmit, engine.EvDecide, devices.EvObserve, devices.EvRetire, devices.EvKernelObserve, devices.EvKernelRetire:
	default:
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.lines[e.Session]
	if t == nil {
		t = &timeline{observed: map[devices.Actor]stamp{}, retired: map[devices.Actor]stamp{}, errs: map[devices.Actor]string{}, kernel: map[devices.Actor]*[2]stamp{}}
		r.lines[e.Session] = t
	}
	switch e.Kind {
	case engine.EvSubmit:
		if e.B == 0 && e.A < 2 {
			t.accepted[e.A].mark(e.Time)
		}
	case engine.EvDecide:
		t.decided.mark(e.Time)
	case devices.EvObserve:
		s := t.observed[e.Actor]
		s.mark(e.Time)
		t.observed[e.Actor] = s
	case devices.EvRetire:
		s := t.retired[e.Actor]
		s.mark(e.Time)
		t.retired[e.Actor] = s
		if e.B != 0 && t.errs[e.Actor] == "" {
			t.errs[e.Actor] = e.Detail
		}
	case devices.EvKernelObserve, devices.EvKernelRetire:
		k := t.kernel[e.Actor]
		if k == nil {
			k = &[2]stamp{}
			t.kernel[e.Actor] = k
		}
		i := 0
		if e.Kind == devices.EvKernelRetire {
			i = 1
		}
		k[i].mark(time.Duration(e.B))
	}
}

// fill writes the recorded times of session id into st.
func (r *recorder) fill(id uint64, gpu, npu devices.Actor, st *SessionStats) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.lines[id]
	if t == nil {
		return
	}
	st.Decided = t.decided.seconds()
	for i, d := range []*DeviceStats{&st.GPU, &st.NPU} {
		actor := []devices.Actor{gpu, npu}[i]
		d.Accepted = t.accepted[i].seconds()
		d.Observed = t.observed[actor].seconds()
		d.Retired = t.retired[actor].seconds()
		d.Error = t.errs[actor]
		if k := t.kernel[actor]; k != nil {
			d.KernelObserved, d.KernelRetired = k[0].seconds(), k[1].seconds()
		}
	}
}
