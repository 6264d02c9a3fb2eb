package engine

// Shared helpers of protocol_test.go, realtime_test.go and example_test.go.
// Every name starts with "proto" so that other test files of the package
// can have their own helpers.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/devices/fault"
)

// protoSeed is the seed of every simulated fabric of these tests.
const protoSeed = 20240601

// protoFabric makes a fabric from cfg (simulated, seeded with protoSeed, when
// cfg leaves mode and seed out) with an oracle attached. When the test ends
// the fabric is closed (after the cleanups the test registers later, such as
// its sessions' closes), then the oracle is stopped and must have found no
// violation: every test of these files exercises a correct behaviour.
func protoFabric(t *testing.T, cfg devices.Config) (*devices.Fabric, *Oracle) {
	t.Helper()
	if cfg.Mode == 0 {
		cfg.Mode = devices.Simulated
	}
	if cfg.Seed == 0 {
		cfg.Seed = protoSeed
	}
	f, err := devices.NewFabric(cfg)
	if err != nil {
		t.Fatalf("NewFabric: %v", err)
	}
	o := NewOracle(f)
	t.Cleanup(func() {
		o.Stop()
		for _, v := range o.Violations() {
			t.Errorf("oracle: %v", v)
			for _, e := range v.Events {
				t.Logf("    %s", e.Format(f.ActorName))
			}
		}
	})
	t.Cleanup(f.Close) // cleanups run last first: before the oracle's check
	return f, o
}

// protoSim is protoFabric for the default simulated fabric.
func protoSim(t *testing.T) (*devices.Fabric, *Oracle) {
	t.Helper()
	return protoFabric(t, devices.Config{Mode: devices.Simulated, Seed: protoSeed})
}

// protoPair returns the fabric's first GPU and first NPU.
func protoPair(t *testing.T, f *devices.Fabric) (gpu, npu *devices.Device) {
	t.Helper()
	gpu, npu = f.First(devices.GPU), f.First(devices.NPU)
	if gpu == nil || npu == nil {
		t.Fatalf("the fabric lacks a GPU or an NPU: gpu=%v npu=%v", gpu, npu)
	}
	return gpu, npu
}

// protoSession makes an exchange session on the fabric's GPU and NPU.
func protoSession(t *testing.T, f *devices.Fabric, cfg exchange.Config) *Session {
	t.Helper()
	gpu, npu := protoPair(t, f)
	s, err := NewExchangeSession(gpu, npu, cfg)
	if err != nil {
		t.Fatalf("NewExchangeSession(%+v): %v", cfg, err)
	}
	return s
}

// protoSimSession makes the default simulated fabric (protoSim) and an
// exchange session of cfg on it.
func protoSimSession(t *testing.T, cfg exchange.Config) (*devices.Fabric, *Oracle, *Session) {
	t.Helper()
	f, o := protoSim(t)
	return f, o, protoSession(t, f, cfg)
}

// protoExchange is an exchange of rounds generations over credits slots.
func protoExchange(rounds, credits, slotBytes int, queue devices.Command) exchange.Config {
	return exchange.Config{Rounds: rounds, Credits: credits, SlotBytes: slotBytes, GPUQueue: queue}
}

// protoSubmitBoth admits both participants, GPU first.
func protoSubmitBoth(t *testing.T, s *Session) {
	t.Helper()
	if err := s.SubmitGPU(); err != nil {
		t.Fatalf("SubmitGPU: %v", err)
	}
	if err := s.SubmitNPU(); err != nil {
		t.Fatalf("SubmitNPU: %v", err)
	}
}

// protoStarted admits both participants and publishes RUN.
func protoStarted(t *testing.T, s *Session) {
	t.Helper()
	protoSubmitBoth(t, s)
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
}

// protoClose closes s and checks that it ended as want; what names the
// close in the message.
func protoClose(t *testing.T, what string, s *Session, want Outcome) {
	t.Helper()
	if out := s.Close(); out != want {
		t.Errorf("%s = %v, want %v", what, out, want)
	}
}

// protoResetBoth resets the fabric's GPU, then its NPU: what frees the
// devices and the memory of a quarantined session.
func protoResetBoth(t *testing.T, f *devices.Fabric) {
	t.Helper()
	gpu, npu := protoPair(t, f)
	gpu.Reset()
	npu.Reset()
}

// protoFault installs a fault chain at site.
func protoFault(t *testing.T, f *devices.Fabric, site fault.Site, chain string) {
	t.Helper()
	if err := f.Faults().Set(site, chain); err != nil {
		t.Fatalf("Faults().Set(%v, %q): %v", site, chain, err)
	}
}

// protoWantErr checks that err is of kind (with errors.Is, and of no other
// kind) and, unless msg is empty, that its message is exactly msg.
func protoWantErr(t *testing.T, what string, err, kind error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: got no error, want %v", what, kind)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("%s: got %v, which is not %v", what, err, kind)
	}
	for _, other := range []error{ErrUnsupported, ErrBusy, ErrDevice, ErrPublish, ErrBudget, ErrInvalid} {
		if other != kind && errors.Is(err, other) {
			t.Errorf("%s: %v also matches %v", what, err, other)
		}
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %v (%T) is not an *Error", what, err, err)
	}
	if msg != "" && e.Message != msg {
		t.Errorf("%s: message %q, want %q", what, e.Message, msg)
	}
	if want := e.Kind.String() + ": " + e.Message; err.Error() != want {
		t.Errorf("%s: Error() = %q, want %q", what, err.Error(), want)
	}
}

// protoOK fails the test when err is not nil.
func protoOK(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// protoWait waits for the session and requires both participants retired.
func protoWait(t *testing.T, s *Session, d time.Duration) {
	t.Helper()
	ok, err := s.Wait(d)
	if err != nil || !ok {
		t.Fatalf("Wait(%v) = %v, %v; want true, nil", d, ok, err)
	}
}

// protoState checks the session's state.
func protoState(t *testing.T, s *Session, want State) {
	t.Helper()
	if got := s.State(); got != want {
		t.Errorf("State() = %v, want %v", got, want)
	}
}

// protoVerified requires that s retired with all rounds generations of its
// exchange verified.
func protoVerified(t *testing.T, s *Session, rounds int) {
	t.Helper()
	if v, ok := s.Verification(); !ok || !v.OK || v.Verified != rounds {
		t.Errorf("Verification = %+v, %v; want all %d generations", v, ok, rounds)
	}
}

// protoBudget checks the fabric's budget.
func protoBudget(t *testing.T, f *devices.Fabric, charged, quarantined int64) {
	t.Helper()
	st := f.Budget().State()
	if st.Charged != charged || st.Quarantined != quarantined {
		t.Errorf("budget charges %d bytes (%d quarantined), want %d (%d quarantined)", st.Charged, st.Quarantined, charged, quarantined)
	}
}

// protoBytes is the memory a session owns: its startup line and payload.
func protoBytes(s *Session) int64 {
	n := int64(s.Startup().Buffer().Size())
	if x := s.Exchange(); x != nil {
		n += int64(x.Payload().Size())
	}
	return n
}

// protoSettled requires that nothing is charged and no quarantine is left.
func protoSettled(t *testing.T, f *devices.Fabric, o *Oracle) {
	t.Helper()
	protoBudget(t, f, 0, 0)
	if q := f.Quarantines(); len(q) != 0 {
		t.Errorf("quarantines left: %+v", q)
	}
	if err := o.CheckSettled(); err != nil {
		t.Errorf("CheckSettled: %v", err)
	}
}

// protoEvents lists the session's events of the given kinds (all kinds when
// none is given), oldest first.
func protoEvents(f *devices.Fabric, session uint64, kinds ...devices.EventKind) []devices.Event {
	return f.Events().Events(func(e *devices.Event) bool {
		return e.Session == session && (len(kinds) == 0 || slices.Contains(kinds, e.Kind))
	})
}

// protoMatch selects events: kind, and A when a >= 0, and B when b >= 0.
type protoMatch struct {
	kind devices.EventKind
	a, b int64
}

// protoEv matches events of kind with any A and B.
func protoEv(kind devices.EventKind) protoMatch { return protoMatch{kind, -1, -1} }

// protoEvA matches events of kind whose A is a.
func protoEvA(kind devices.EventKind, a uint64) protoMatch { return protoMatch{kind, int64(a), -1} }

// protoEvAB matches events of kind whose A is a and B is b.
func protoEvAB(kind devices.EventKind, a, b uint64) protoMatch {
	return protoMatch{kind, int64(a), int64(b)}
}

func (m protoMatch) matches(e devices.Event) bool {
	return e.Kind == m.kind && (m.a < 0 || e.A == uint64(m.a)) && (m.b < 0 || e.B == uint64(m.b))
}

func (m protoMatch) String() string {
	s := string(m.kind)
	if m.a >= 0 {
		s += fmt.Sprintf(" a=%d", m.a)
	}
	if m.b >= 0 {
		s += fmt.Sprintf(" b=%d", m.b)
	}
	return s
}

// protoCount counts the session's events that match m.
func protoCount(f *devices.Fabric, session uint64, m protoMatch) int {
	n := 0
	for _, e := range protoEvents(f, session) {
		if m.matches(e) {
			n++
		}
	}
	return n
}

// protoInOrder requires that the session's events contain a subsequence
// matching want, in that order, and returns the matched events.
func protoInOrder(t *testing.T, f *devices.Fabric, session uint64, want ...protoMatch) []devices.Event {
	t.Helper()
	evs := protoEvents(f, session)
	var got []devices.Event
	i := 0
	for _, e := range evs {
		if i < len(want) && want[i].matches(e) {
			got = append(got, e)
			i++
		}
	}
	if i < len(want) {
		t.Errorf("events of session %d lack %v after %v, in order", session, want[i], want[:i])
		protoLogEvents(t, f, evs)
		return nil
	}
	return got
}

// protoNoEvents requires that the session emitted no event of the given kinds.
func protoNoEvents(t *testing.T, f *devices.Fabric, session uint64, kinds ...devices.EventKind) {
	t.Helper()
	if evs := protoEvents(f, session, kinds...); len(evs) != 0 {
		t.Errorf("session %d emitted %d events of kinds %v, want none", session, len(evs), kinds)
		protoLogEvents(t, f, evs)
	}
}

func protoLogEvents(t *testing.T, f *devices.Fabric, evs []devices.Event) {
	t.Helper()
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("\n    " + e.Format(f.ActorName))
	}
	t.Log("events:" + b.String())
}

// protoNames lists the names of devices.
func protoNames(devs ...*devices.Device) []string {
	var out []string
	for _, d := range devs {
		out = append(out, d.Name())
	}
	return out
}
