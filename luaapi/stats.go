package luaapi

import (
	"encoding/json"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/programs/kernel"
)

// SessionStats is what one session did: its shape, how far it got, when each
// step happened (seconds of fabric time, virtual in simulated mode; nil when
// the step never happened) and what the host's verification found.
type SessionStats struct {
	ID       uint64 `json:"id"`
	Seed     uint64 `json:"seed"` // the seed of the session's fabric
	State    string `json:"state"`
	GPUQueue string `json:"gpu_queue"`
	// Rounds, Credits, SlotBytes and Bytes are the built-in exchange's
	// shape and the payload it moved; a session of programs has none of
	// them (MarshalJSON leaves them out).
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
	// SuspectedHang says why a session of a real-time fabric is suspected
	// of a hang, with the deadlines that were given: it was decided, a
	// wait gave up on it and a close quarantined it, with no fault armed
	// while it was open. Empty otherwise, and always in simulated time,
	// where the oracle reports such a session as a violation.
	SuspectedHang string `json:"suspected_hang,omitempty"`
}

// MarshalJSON writes the stats as their fields say, leaving out the
// built-in exchange's shape, payload and verification (rounds, credits,
// slot_bytes, bytes and verification) for a session of programs of one's
// own, which has none of them:
// zeros there would read as an exchange that moved nothing.
func (st SessionStats) MarshalJSON() ([]byte, error) {
	type plain SessionStats
	if st.Programs == nil {
		return json.Marshal(plain(st))
	}
	// The outer fields, nil and omitted, hide the embedded ones of the
	// same names.
	return json.Marshal(struct {
		plain
		Rounds    *int `json:"rounds,omitempty"`
		Credits   *int `json:"credits,omitempty"`
		SlotBytes *int `json:"slot_bytes,omitempty"`
		Bytes     *int `json:"bytes,omitempty"`
		Verif     *int `json:"verification,omitempty"`
	}{plain: plain(st)})
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

// timeline is when a session's steps happened: the engine's record of them
// (engine.Timeline) and, on a real GPU, each kernel's own times. The
// engine and the devices stamp each step as its event is emitted, so a
// timeline needs nothing of the fabric's bounded event ring.
type timeline struct {
	engine.Timeline                // its programs' errors taken out, into errs
	errs            [2]string      // by participant: the error its program retired with
	kernels         [2]kernelTimes // by participant
}

// kernelTimes are a kernel's own times (kernel.Clocked).
type kernelTimes struct {
	observed, retired event.Stamp
}

// read reads the timeline of eng's session so far into zero t. A frozen
// session keeps it, so it keeps the programs' errors as text only: an
// error can hold on to much (a Lua program's, to its state).
func (t *timeline) read(eng *engine.Session) {
	t.Timeline = eng.Timeline()
	for i := range t.Programs {
		if err := t.Programs[i].Err; err != nil {
			t.errs[i], t.Programs[i].Err = err.Error(), nil
		}
	}
	for i, p := range [...]*devices.Prepared{eng.GPU(), eng.NPU()} {
		if k, ok := p.Program().(kernel.Clocked); ok {
			t.kernels[i].observed, t.kernels[i].retired = k.KernelTimes()
		}
	}
}

// fill writes the timeline's times into st.
func (t *timeline) fill(st *SessionStats) {
	st.Decided = stampSeconds(t.Decided)
	for i, d := range [...]*DeviceStats{&st.GPU, &st.NPU} {
		steps := &t.Programs[i]
		d.Accepted = stampSeconds(t.Accepted[i])
		d.Observed, d.Retired, d.Error = stampSeconds(steps.Observed), stampSeconds(steps.Retired), t.errs[i]
		d.KernelObserved, d.KernelRetired = stampSeconds(t.kernels[i].observed), stampSeconds(t.kernels[i].retired)
	}
}

// stampSeconds is a step's time in seconds, nil when it has not happened.
func stampSeconds(s event.Stamp) *float64 {
	if !s.Set {
		return nil
	}
	v := s.At.Seconds()
	return &v
}
