package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// TestSessionTranscripts runs the host operations of each transcript in
// testdata/session on a simulated fabric and compares what each gives back
// and the events it caused with the transcript. The transcripts are the
// protocol's rules as a reader follows them, one file a rule; docs/protocol.md
// says what each command means. go test ./engine -run TestSessionTranscripts
// -rewrite writes what the code gives now in place of the expectations.
func TestSessionTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata/session", func(t *testing.T, path string) {
		k := &transcriptKit{t: t}
		defer k.end()
		datadriven.RunTest(t, path, k.do)
	})
}

// transcriptKit is the host of one transcript: a fabric, its oracle, the
// sessions opened in it (named s1, s2, ... as their events are) and the
// events not yet printed.
type transcriptKit struct {
	t        *testing.T
	f        *devices.Fabric
	o        *oracle.Oracle
	stop     func()
	sessions []*Session

	shown string // the verdicts the transcript showed last

	mu     sync.Mutex
	events []event.Event
}

// end closes what the transcript left open, as a test's cleanup does. A
// violation the transcript did not show with verdicts fails it.
func (k *transcriptKit) end() {
	if k.f == nil {
		return
	}
	if got := k.verdicts(); got != k.shown {
		k.t.Errorf("the oracle found what the transcript does not show:\n%s", got)
	}
	k.stop()
	k.o.Stop()
	k.f.Close()
}

// do runs one command and says what it gave back, then the events it
// caused, one a line, indented.
func (k *transcriptKit) do(t *testing.T, d *datadriven.TestData) string {
	if k.f == nil && d.Cmd != "fabric" {
		d.Fatalf(t, "the first command must be fabric")
	}
	result := k.run(t, d)
	var out strings.Builder
	out.WriteString(result + "\n")
	k.mu.Lock()
	events := k.events
	k.events = nil
	k.mu.Unlock()
	for _, e := range events {
		out.WriteString("  " + oracle.FormatEvent(e) + "\n")
	}
	return out.String()
}

// run runs d's command and says its result.
func (k *transcriptKit) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "fabric":
		return k.fabric(t, d)
	case "fault":
		site, err := fault.ParseSite(arg(t, d, 0))
		if err != nil {
			return result(err)
		}
		return result(k.f.Faults().Set(site, strings.TrimSpace(d.Input)))
	case "open":
		return k.open(t, d)
	case "verdicts":
		k.shown = k.verdicts()
		return k.shown
	case "quarantines":
		var out []string
		for _, q := range k.f.Quarantines() {
			out = append(out, fmt.Sprintf("%s %d bytes", q.Label, q.Bytes))
		}
		if out == nil {
			return "none"
		}
		return strings.Join(out, "\n")
	case "budget":
		st := k.f.Budget().State()
		return fmt.Sprintf("charged %d quarantined %d", st.Charged, st.Quarantined)
	case "reset":
		kind := devices.GPU
		if arg(t, d, 0) == "npu" {
			kind = devices.NPU
		}
		k.f.First(kind).Reset()
		return "ok"
	case "advance":
		k.f.Advance(duration(t, d, arg(t, d, 0)))
		return "ok"
	}
	s := k.session(t, d)
	switch d.Cmd {
	case "submit":
		if arg(t, d, 0) == "npu" {
			return result(s.SubmitNPU())
		}
		return result(s.SubmitGPU())
	case "start":
		return result(s.Start())
	case "abort":
		return result(s.Abort())
	case "complete":
		done, err := s.IsComplete()
		return resultOf(done, err)
	case "wait":
		done, err := s.Wait(duration(t, d, arg(t, d, 0)))
		return resultOf(done, err)
	case "close":
		within := DefaultCloseTimeout
		if d.HasArg("within") {
			var text string
			d.ScanArgs(t, "within", &text)
			within = duration(t, d, text)
		}
		return s.CloseWithin(t.Context(), within).String()
	case "state":
		return s.State().String()
	case "decision":
		return s.Decision().String()
	case "verified":
		v, ok := exchange.Of(s.NPU()).Verification()
		if !ok {
			return "not verified"
		}
		if !v.OK {
			return fmt.Sprintf("%d of %d rounds verified: %s", v.Verified, v.Rounds, v.Problem)
		}
		return fmt.Sprintf("%d of %d rounds verified", v.Verified, v.Rounds)
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

// fabric makes the simulated fabric: fabric [seed=N] [timing=ideal|published].
func (k *transcriptKit) fabric(t *testing.T, d *datadriven.TestData) string {
	if k.f != nil {
		d.Fatalf(t, "one fabric a transcript")
	}
	cfg := devices.Config{Mode: devices.Simulated, Seed: simSeed, Timing: timing.Ideal()}
	if d.HasArg("seed") {
		d.ScanArgs(t, "seed", &cfg.Seed)
	}
	if d.HasArg("timing") {
		var name string
		d.ScanArgs(t, "timing", &name)
		tm, err := timing.Profile(name)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		cfg.Timing = tm
	}
	f, err := devices.NewFabric(cfg)
	if err != nil {
		return result(err)
	}
	k.f, k.o, k.shown = f, oracle.New(f), "no violation"
	k.stop = f.Events().Subscribe(func(e *event.Event) {
		k.mu.Lock()
		k.events = append(k.events, *e)
		k.mu.Unlock()
	})
	return "ok"
}

// open opens an exchange session: open [rounds=N] [credits=N] [slot=N]
// [queue=pm4|aql] [gpu=<device>] [npu=<device>] (the fabric's first GPU and
// NPU unless named).
func (k *transcriptKit) open(t *testing.T, d *datadriven.TestData) string {
	cfg := exchange.Default()
	cfg.Rounds, cfg.Credits = 1, 1
	for _, a := range []struct {
		key string
		to  *int
	}{{"rounds", &cfg.Rounds}, {"credits", &cfg.Credits}, {"slot", &cfg.SlotBytes}} {
		if d.HasArg(a.key) {
			d.ScanArgs(t, a.key, a.to)
		}
	}
	if d.HasArg("queue") {
		var name string
		d.ScanArgs(t, "queue", &name)
		q, err := devices.ParseCommand(name)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		cfg.GPUQueue = q
	}
	gpu, npu := k.f.First(devices.GPU), k.f.First(devices.NPU)
	for _, a := range []struct {
		key string
		to  **devices.Device
	}{{"gpu", &gpu}, {"npu", &npu}} {
		if d.HasArg(a.key) {
			var name string
			d.ScanArgs(t, a.key, &name)
			dev, err := k.f.Device(name)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			*a.to = dev
		}
	}
	s, err := Open(gpu, npu, exchange.Programs(cfg))
	if err != nil {
		return result(err)
	}
	k.sessions = append(k.sessions, s)
	return "s" + strconv.FormatUint(s.ID(), 10)
}

// session is the session a command names with session=N, or the last one
// opened.
func (k *transcriptKit) session(t *testing.T, d *datadriven.TestData) *Session {
	if len(k.sessions) == 0 {
		d.Fatalf(t, "%s: no session is open; open one first", d.Cmd)
	}
	if !d.HasArg("session") {
		return k.sessions[len(k.sessions)-1]
	}
	var id uint64
	d.ScanArgs(t, "session", &id)
	i := slices.IndexFunc(k.sessions, func(s *Session) bool { return s.ID() == id })
	if i < 0 {
		d.Fatalf(t, "no session s%d", id)
	}
	return k.sessions[i]
}

// verdicts says what the oracle found, once the fabric has settled.
func (k *transcriptKit) verdicts() string {
	_ = k.o.CheckSettled()
	var out []string
	for _, v := range k.o.Violations() {
		out = append(out, fmt.Sprintf("invariant %d (%s) in s%d: %s", v.Invariant, oracle.Invariant(v.Invariant), v.Session, v.Message))
	}
	if out == nil {
		return "no violation"
	}
	return strings.Join(out, "\n")
}

// arg is the command's i-th argument, a bare word.
func arg(t *testing.T, d *datadriven.TestData, i int) string {
	if i >= len(d.CmdArgs) {
		d.Fatalf(t, "%s needs %d arguments", d.Cmd, i+1)
	}
	return d.CmdArgs[i].Key
}

// duration reads a Go duration or fails the transcript.
func duration(t *testing.T, d *datadriven.TestData, text string) time.Duration {
	v, err := time.ParseDuration(text)
	if err != nil {
		d.Fatalf(t, "%q is not a duration: %v", text, err)
	}
	return v
}

// result is "ok", or the error's text.
func result(err error) string {
	if err != nil {
		return "error " + err.Error()
	}
	return "ok"
}

// resultOf is a boolean result, or the error's text.
func resultOf(v bool, err error) string {
	if err != nil {
		return "error " + err.Error()
	}
	return strconv.FormatBool(v)
}
