package engine

// The helpers every in-package test file uses: fabrics and their oracle,
// sessions, fault chains, checks of errors, states and budgets, and reads of
// the event stream. campaign_test.go is an external test and has its own.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/devices/wait"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// simSeed is the seed of newFabric's and newSimFabric's fabrics unless the
// test picks one.
const simSeed = 20240601

// worldSeed is the seed of newWorld's fabrics unless the test picks one.
const worldSeed = 7001

// oracleSeed is the seed of newOracleFabric's fabric.
const oracleSeed = 42

// bothModes are both executors.
var bothModes = []devices.Mode{devices.Simulated, devices.RealTime}

// shortWait and longWait are the waits for what must not and what must
// happen: virtual time in the simulator, wall time in real time.
func shortWait(mode devices.Mode) time.Duration {
	if mode == devices.Simulated {
		return time.Millisecond
	}
	return 50 * time.Millisecond
}

// longWait bounds, in real time, what must end but has no deadline of its
// own: generous for a loaded two-core machine running the race detector.
const longWait = 2 * time.Minute

// realTimeWait is the wait policy of the real-time fabrics the helpers
// make when the test names none (waitpolicy_test.go changes it).
var realTimeWait = wait.Hybrid

// openFabric makes a fabric of cfg or fails the test.
func openFabric(t *testing.T, cfg devices.Config) *devices.Fabric {
	t.Helper()
	if cfg.Mode == devices.RealTime && cfg.Wait == wait.Hybrid {
		cfg.Wait = realTimeWait
	}
	f, err := devices.NewFabric(cfg)
	if err != nil {
		t.Fatalf("NewFabric(%+v): %v", cfg, err)
	}
	return f
}

// newFabric makes a fabric from cfg (simulated, seeded with simSeed, when
// cfg leaves mode and seed out) with an oracle attached. When the test ends
// the fabric is closed (after the cleanups the test registers later, such as
// its sessions' closes), then the oracle is stopped and must have found no
// violation: the tests that use it exercise a correct behaviour.
func newFabric(t *testing.T, cfg devices.Config) (*devices.Fabric, *oracle.Oracle) {
	t.Helper()
	if cfg.Mode == 0 {
		cfg.Mode = devices.Simulated
	}
	if cfg.Seed == 0 {
		cfg.Seed = simSeed
	}
	f := openFabric(t, cfg)
	o := oracle.New(f)
	t.Cleanup(func() {
		o.Stop()
		wantNoViolations(t, o)
	})
	t.Cleanup(f.Close) // cleanups run last first: before the oracle's check
	return f, o
}

// newSimFabric is newFabric for the default simulated fabric.
func newSimFabric(t *testing.T) (*devices.Fabric, *oracle.Oracle) {
	t.Helper()
	return newFabric(t, devices.Config{Mode: devices.Simulated, Seed: simSeed})
}

// newOracleFabric is a simulated fabric with the default devices and an
// oracle watching it; both end with the test. Unlike newFabric it leaves the
// oracle's findings to the test, which breaks invariants on purpose.
func newOracleFabric(t *testing.T) (*devices.Fabric, *oracle.Oracle) {
	t.Helper()
	f := openFabric(t, devices.Config{Mode: devices.Simulated, Seed: oracleSeed})
	o := oracle.New(f)
	t.Cleanup(func() {
		o.Stop()
		f.Close()
	})
	return f, o
}

// newRealTimeFabric makes a real-time fabric with timing and an oracle attached.
func newRealTimeFabric(t *testing.T, timing program.Timing) (*devices.Fabric, *oracle.Oracle) {
	t.Helper()
	return newFabric(t, devices.Config{Mode: devices.RealTime, Timing: timing, Seed: simSeed})
}

// newRealTimeSession makes a real-time fabric with timing (newRealTimeFabric) and
// an exchange session of cfg on it.
func newRealTimeSession(t *testing.T, timing program.Timing, cfg exchange.Config) (*devices.Fabric, *oracle.Oracle, *Session) {
	t.Helper()
	f, o := newRealTimeFabric(t, timing)
	return f, o, newSession(t, f, cfg)
}

// world is a fabric with ideal timing, its first GPU and NPU, an oracle and
// an event counter attached.
type world struct {
	f        *devices.Fabric
	o        *oracle.Oracle
	gpu, npu *devices.Device
	counts   *eventCounter
}

// newWorld makes a world of mode and seed, and closes it when the test ends.
// The test checks the oracle itself (settle, wantNoViolations).
func newWorld(t *testing.T, mode devices.Mode, seed uint64) *world {
	t.Helper()
	return newWorldConfig(t, devices.Config{Mode: mode, Seed: seed, Timing: timing.Ideal()})
}

// newWorldConfig is newWorld for a fabric of cfg.
func newWorldConfig(t *testing.T, cfg devices.Config) *world {
	t.Helper()
	f := openFabric(t, cfg)
	w := &world{f: f, o: oracle.New(f), gpu: f.First(devices.GPU), npu: f.First(devices.NPU), counts: newEventCounter(f)}
	t.Cleanup(func() {
		w.o.Stop()
		w.counts.stop()
		f.Close()
	})
	return w
}

// eventCounter counts every event by session and kind as it is emitted, so
// that counts stay right however small the event ring is.
type eventCounter struct {
	mu     sync.Mutex
	n      map[counterKey]int
	cancel func()
}

type counterKey struct {
	session uint64
	kind    program.EventKind
}

func newEventCounter(f *devices.Fabric) *eventCounter {
	c := &eventCounter{n: map[counterKey]int{}}
	c.cancel = f.Events().Subscribe(func(e *event.Event) {
		c.mu.Lock()
		c.n[counterKey{e.Session, e.Kind}]++
		c.mu.Unlock()
	})
	return c
}

func (c *eventCounter) get(session uint64, kind program.EventKind) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[counterKey{session, kind}]
}

func (c *eventCounter) stop() { c.cancel() }

// devicePair returns the fabric's first GPU and first NPU.
func devicePair(t *testing.T, f *devices.Fabric) (gpu, npu *devices.Device) {
	t.Helper()
	gpu, npu = f.First(devices.GPU), f.First(devices.NPU)
	if gpu == nil || npu == nil {
		t.Fatalf("the fabric lacks a GPU or an NPU: gpu=%v npu=%v", gpu, npu)
	}
	return gpu, npu
}

// newSession makes an exchange session on the fabric's GPU and NPU.
func newSession(t *testing.T, f *devices.Fabric, cfg exchange.Config) *Session {
	t.Helper()
	gpu, npu := devicePair(t, f)
	s, err := newExchangeSession(gpu, npu, cfg)
	if err != nil {
		t.Fatalf("newExchangeSession(%+v): %v", cfg, err)
	}
	return s
}

// newSimSession makes the default simulated fabric (newSimFabric) and an
// exchange session of cfg on it.
func newSimSession(t *testing.T, cfg exchange.Config) (*devices.Fabric, *oracle.Oracle, *Session) {
	t.Helper()
	f, o := newSimFabric(t)
	return f, o, newSession(t, f, cfg)
}

// exchangeConfig is an exchange of rounds generations over credits slots.
func exchangeConfig(rounds, credits, slotBytes int, queue devices.Command) exchange.Config {
	return exchange.Config{Rounds: rounds, Credits: credits, SlotBytes: slotBytes, GPUQueue: queue}
}

// roundsConfig is the default exchange of rounds generations over two
// credits.
func roundsConfig(rounds int) exchange.Config {
	cfg := exchange.Default()
	cfg.Rounds, cfg.Credits = rounds, 2
	return cfg
}

// submitBoth admits both participants, the GPU first unless npuFirst.
func submitBoth(t *testing.T, s *Session, npuFirst bool) {
	t.Helper()
	first, second := s.SubmitGPU, s.SubmitNPU
	firstName, secondName := "SubmitGPU", "SubmitNPU"
	if npuFirst {
		first, second = second, first
		firstName, secondName = secondName, firstName
	}
	if err := first(); err != nil {
		t.Fatalf("%s: %v", firstName, err)
	}
	if err := second(); err != nil {
		t.Fatalf("%s: %v", secondName, err)
	}
}

// start admits both participants and publishes RUN.
func start(t *testing.T, s *Session) {
	t.Helper()
	submitBoth(t, s, false)
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
}

// run submits both participants of s, starts it and waits a second for
// both to retire.
func run(t *testing.T, s *Session) {
	t.Helper()
	start(t, s)
	waitDone(t, s, time.Second)
}

// quarantinedHungSession runs a one-round session on f whose GPU program
// hangs, and closes it within a millisecond: quarantined.
func quarantinedHungSession(t *testing.T, f *devices.Fabric) *Session {
	t.Helper()
	setFault(t, f, fault.GPURun, "hang")
	s := newSession(t, f, roundsConfig(1))
	start(t, s)
	if out := s.CloseWithin(t.Context(), time.Millisecond); out != Quarantined {
		t.Fatalf("outcome %s, want quarantined", out)
	}
	return s
}

// closeAs closes s and checks that it ended as want; what names the
// close in the message.
func closeAs(t *testing.T, what string, s *Session, want Outcome) {
	t.Helper()
	if out := s.Close(); out != want {
		t.Errorf("%s = %v, want %v", what, out, want)
	}
}

// resetBoth resets the fabric's GPU, then its NPU: what frees the
// devices and the memory of a quarantined session.
func resetBoth(t *testing.T, f *devices.Fabric) {
	t.Helper()
	gpu, npu := devicePair(t, f)
	gpu.Reset()
	npu.Reset()
}

// setFault installs a fault chain at site.
func setFault(t *testing.T, f *devices.Fabric, site fault.Site, chain string) {
	t.Helper()
	if err := f.Faults().Set(site, chain); err != nil {
		t.Fatalf("Faults().Set(%v, %q): %v", site, chain, err)
	}
}

// wantErr checks that err is of kind (with errors.Is, and of no other
// kind) and, unless msg is empty, that its message is exactly msg; its
// text is "<kind>: <op>: <message>", with an op.
func wantErr(t *testing.T, what string, err, kind error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: got no error, want %v", what, kind)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("%s: got %v, which is not %v", what, err, kind)
	}
	for _, other := range []error{failure.Unsupported, failure.Busy, failure.Device, failure.Publish, failure.Budget, failure.Invalid, failure.Stale} {
		if other != kind && errors.Is(err, other) {
			t.Errorf("%s: %v also matches %v", what, err, other)
		}
	}
	var e *failure.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %v (%T) is not a *failure.Error", what, err, err)
	}
	if msg != "" && e.Message != msg {
		t.Errorf("%s: message %q, want %q", what, e.Message, msg)
	}
	if e.Op == "" {
		t.Errorf("%s: %v names no op", what, err)
	}
	if want := e.Kind.String() + ": " + e.Op + ": " + e.Message; err.Error() != want {
		t.Errorf("%s: Error() = %q, want %q", what, err.Error(), want)
	}
}

// noErr fails the test when err is not nil.
func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// waitDone waits for the session and requires both participants retired.
func waitDone(t *testing.T, s *Session, d time.Duration) {
	t.Helper()
	ok, err := s.Wait(d)
	if err != nil || !ok {
		t.Fatalf("Wait(%v) = %v, %v; want true, nil", d, ok, err)
	}
}

// wantState checks the session's state.
func wantState(t *testing.T, s *Session, want State) {
	t.Helper()
	if got := s.State(); got != want {
		t.Errorf("State() = %v, want %v", got, want)
	}
}

// wantVerified requires that s retired with all rounds generations of its
// exchange verified.
func wantVerified(t *testing.T, s *Session, rounds int) {
	t.Helper()
	if v, ok := verification(s); !ok || !v.OK || v.Verified != rounds {
		t.Errorf("Verification = %+v, %v; want all %d generations", v, ok, rounds)
	}
}

// wantBudget checks the fabric's budget.
func wantBudget(t *testing.T, f *devices.Fabric, charged, quarantined int64) {
	t.Helper()
	st := f.Budget().State()
	if st.Charged != charged || st.Quarantined != quarantined {
		t.Errorf("budget charges %d bytes (%d quarantined), want %d (%d quarantined)", st.Charged, st.Quarantined, charged, quarantined)
	}
}

// sessionBytes is the memory a session owns: its startup line and payload.
func sessionBytes(s *Session) int64 {
	n := int64(s.startup.line.Region().Len())
	if x := exchangeOf(s); x != nil {
		n += int64(x.Payload().Region().Len())
	}
	return n
}

// wantSettled requires that nothing is charged and no quarantine is left.
func wantSettled(t *testing.T, f *devices.Fabric, o *oracle.Oracle) {
	t.Helper()
	wantBudget(t, f, 0, 0)
	if q := f.Quarantines(); len(q) != 0 {
		t.Errorf("quarantines left: %+v", q)
	}
	if err := o.CheckSettled(); err != nil {
		t.Errorf("CheckSettled: %v", err)
	}
}

// settle resets both devices when a quarantine holds them, then requires
// what wantSettled requires and that the oracle found no violation.
func settle(t *testing.T, f *devices.Fabric, o *oracle.Oracle) {
	t.Helper()
	if len(f.Quarantines()) > 0 {
		resetBoth(t, f)
	}
	wantSettled(t, f, o)
	wantNoViolations(t, o)
}

// events lists the session's events of the given kinds (all kinds when
// none is given), oldest first.
func events(f *devices.Fabric, session uint64, kinds ...program.EventKind) []event.Event {
	return f.Events().Events(func(e *event.Event) bool {
		return e.Session == session && (len(kinds) == 0 || slices.Contains(kinds, e.Kind))
	})
}

// match selects events: kind, and A when a >= 0, and B when b >= 0.
type match struct {
	kind program.EventKind
	a, b int64
}

// ev matches events of kind with any A and B.
func ev(kind program.EventKind) match { return match{kind, -1, -1} }

// evA matches events of kind whose A is a.
func evA(kind program.EventKind, a uint64) match { return match{kind, int64(a), -1} }

// evAB matches events of kind whose A is a and B is b.
// word is what an event's A or B is made from: a number, or a value of
// the engine's types carried in events (Participant, JoinResult, Decision).
type word interface {
	~int | ~uint8 | ~uint32 | ~uint64
}

func evAB[A, B word](kind program.EventKind, a A, b B) match {
	return match{kind, int64(a), int64(b)}
}

func (m match) matches(e event.Event) bool {
	return e.Kind == m.kind && (m.a < 0 || e.A == uint64(m.a)) && (m.b < 0 || e.B == uint64(m.b))
}

func (m match) String() string {
	s := string(m.kind)
	if m.a >= 0 {
		s += fmt.Sprintf(" a=%d", m.a)
	}
	if m.b >= 0 {
		s += fmt.Sprintf(" b=%d", m.b)
	}
	return s
}

// countEvents counts the session's events that match m.
func countEvents(f *devices.Fabric, session uint64, m match) int {
	n := 0
	for _, e := range events(f, session) {
		if m.matches(e) {
			n++
		}
	}
	return n
}

// inOrder requires that the session's events contain a subsequence
// matching want, in that order, and returns the matched events.
func inOrder(t *testing.T, f *devices.Fabric, session uint64, want ...match) []event.Event {
	t.Helper()
	evs := events(f, session)
	var got []event.Event
	i := 0
	for _, e := range evs {
		if i < len(want) && want[i].matches(e) {
			got = append(got, e)
			i++
		}
	}
	if i < len(want) {
		t.Errorf("events of session %d lack %v after %v, in order", session, want[i], want[:i])
		logEvents(t, f, evs)
		return nil
	}
	return got
}

// actorEvents lists the session's events of kind by actor (any actor when
// actor is nil).
func actorEvents(f *devices.Fabric, session uint64, kind program.EventKind, actor *devices.Device) []event.Event {
	return f.Events().Events(func(e *event.Event) bool {
		return e.Session == session && e.Kind == kind && (actor == nil || e.Actor == actor.Actor())
	})
}

// oneEvent returns the only event of kind by actor in the session.
func oneEvent(t *testing.T, f *devices.Fabric, session uint64, kind program.EventKind, actor *devices.Device) event.Event {
	t.Helper()
	evs := actorEvents(f, session, kind, actor)
	if len(evs) != 1 {
		name := "anyone"
		if actor != nil {
			name = actor.Name()
		}
		t.Fatalf("%d %s events by %s in session %d, want 1", len(evs), kind, name, session)
	}
	return evs[0]
}

// invocation is the id of the session's invocation on d: the A of its
// only dispatch there.
func invocation(t *testing.T, f *devices.Fabric, s *Session, d *devices.Device) uint64 {
	t.Helper()
	return oneEvent(t, f, s.ID(), event.EvDispatch, d).A
}

// hasEvent reports whether events contain one of kind.
func hasEvent(events []event.Event, kind program.EventKind) bool {
	return slices.ContainsFunc(events, func(e event.Event) bool { return e.Kind == kind })
}

// wantNoEvents requires that the session emitted no event of the given kinds.
func wantNoEvents(t *testing.T, f *devices.Fabric, session uint64, kinds ...program.EventKind) {
	t.Helper()
	if evs := events(f, session, kinds...); len(evs) != 0 {
		t.Errorf("session %d emitted %d events of kinds %v, want none", session, len(evs), kinds)
		logEvents(t, f, evs)
	}
}

// logEvents writes events to the test log, actors named by f.
func logEvents(t *testing.T, f *devices.Fabric, evs []event.Event) {
	t.Helper()
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("\n    " + e.Format(f.ActorName))
	}
	t.Log("events:" + b.String())
}

// logTranscript writes events to the test log as event lines
// (oracle.FormatEvent).
func logTranscript(t *testing.T, evs []event.Event) {
	t.Helper()
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("\n    " + oracle.FormatEvent(e))
	}
	t.Log("events:" + b.String())
}

// deviceNames lists the names of devices.
func deviceNames(devs ...*devices.Device) []string {
	var out []string
	for _, d := range devs {
		out = append(out, d.Name())
	}
	return out
}

// wantErrMentions requires that err is a *failure.Error of the kind sentinel and of no
// other kind, whose text contains every one of contains.
func wantErrMentions(t *testing.T, what string, err, kind error, contains ...string) {
	t.Helper()
	wantErr(t, what, err, kind, "")
	for _, c := range contains {
		if !strings.Contains(err.Error(), c) {
			t.Errorf("%s: %q does not mention %q", what, err, c)
		}
	}
}

// wantNoViolations fails the test with every violation the oracle found.
func wantNoViolations(t *testing.T, o *oracle.Oracle) {
	t.Helper()
	for _, v := range o.Violations() {
		t.Errorf("oracle: %v", v)
		logTranscript(t, v.Events)
	}
}

// forgeEvent forges a host protocol event for session, as a buggy engine would
// emit it: the stream is the oracle's only input.
func forgeEvent[A, B word](f *devices.Fabric, session uint64, kind program.EventKind, a A, b B) {
	f.Events().Emit(event.HostActor, session, kind, uint64(a), uint64(b), "forged")
}

// wantViolation checks that o reported invariant inv, with a message, and with the
// session's events leading to it, the last of which is of kind last (the
// event that broke it). Violations of invariants in also are tolerated; any
// other is an error. It returns the first violation of inv.
func wantViolation(t *testing.T, o *oracle.Oracle, inv int, session uint64, last program.EventKind, also ...int) oracle.Violation {
	t.Helper()
	var found *oracle.Violation
	for _, v := range o.Violations() {
		if v.Invariant == inv && found == nil {
			found = &v
			continue
		}
		if v.Invariant != inv && !slices.Contains(also, v.Invariant) {
			t.Errorf("unexpected violation of another invariant: %v", v)
		}
	}
	if found == nil {
		t.Fatalf("invariant %d (%s) was broken but not reported; violations: %v", inv, oracle.Invariant(inv), o.Violations())
	}
	v := *found
	if v.Session != session {
		t.Errorf("violation names session %d, want %d", v.Session, session)
	}
	if strings.TrimSpace(v.Message) == "" {
		t.Errorf("violation %v has no message", v)
	}
	if msg := v.Error(); !strings.Contains(msg, oracle.Invariant(inv)) || !strings.Contains(msg, v.Message) {
		t.Errorf("violation's error %q does not say the invariant and the message", msg)
	}
	if last != "" {
		if len(v.Events) == 0 {
			t.Fatalf("violation %v carries no events", v)
		}
		if got := v.Events[len(v.Events)-1].Kind; got != last {
			t.Errorf("the events leading to the violation end with %q, want %q", got, last)
			logTranscript(t, v.Events)
		}
		for i := 1; i < len(v.Events); i++ {
			if v.Events[i].Seq <= v.Events[i-1].Seq {
				t.Errorf("violation events are out of order at %d", i)
			}
		}
	}
	return v
}

// program is a device program given as a list of steps, run in order; the
// last one is repeated. It lets a test write a deliberately wrong program.
type steps []func(env program.Env) program.Next

// Step runs the next step.
func (p *steps) Step(env program.Env) program.Next {
	step := (*p)[0]
	if len(*p) > 1 {
		*p = (*p)[1:]
	}
	return step(env)
}

// sharedBuffer allocates a fine-grained buffer shared by f's GPU and NPU, owned
// by owner, charged to the fabric's budget.
func sharedBuffer(t *testing.T, f *devices.Fabric, size int, owner uint64) *devices.Buffer {
	t.Helper()
	profiles, err := f.AllocationProfiles([]*devices.Device{f.First(devices.GPU), f.First(devices.NPU)}, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := profiles[0].Allocate(size, nil, owner)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// outcomeLine describes one session run in words, for comparing runs.
func outcomeLine(i int, s *Session, steps []string) string {
	line := fmt.Sprintf("#%d %s", i, strings.Join(steps, " "))
	if s != nil {
		if v, ok := verification(s); ok {
			line += fmt.Sprintf(" verify=%v/%d/%q", v.OK, v.Verified, v.Problem)
		}
	}
	return line
}

// errWord renders an error for an outcome line.
func errWord(err error) string {
	if err == nil {
		return "ok"
	}
	var e *failure.Error
	if errors.As(err, &e) {
		return e.Kind.String()
	}
	return "error"
}

// formatEvents renders events one per line.
func formatEvents(f *devices.Fabric, evs []event.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Format(f.ActorName)
	}
	return out
}

// firstDiff returns the first index where a and b differ, or -1.
func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// distinct counts the distinct values of xs.
func distinct[T comparable](xs []T) int {
	seen := map[T]bool{}
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}

// newExchangeSession makes a session that runs the built-in exchange with
// cfg on gpu and npu.
func newExchangeSession(gpu, npu *devices.Device, cfg exchange.Config) (*Session, error) {
	return Open(gpu, npu, exchange.Programs(cfg))
}

// exchangeOf is the built-in exchange s runs.
func exchangeOf(s *Session) *exchange.Exchange { return exchange.Of(s.NPU()) }

// waitWhileProgressing waits for the exchange s to end for as long as it
// makes progress: in real time on a loaded machine (the spinning wait
// policy, 1000 rounds, the race detector) it may take longer than
// longWait, so the wait gives up only after a longWait in which the
// payload's contents did not change. Events cannot show progress: the
// devices' events reach the stream in batches of thousands.
func waitWhileProgressing(s *Session) (bool, error) {
	payload := exchangeOf(s).Payload()
	last := payloadWords(payload)
	for {
		ok, err := s.Wait(longWait)
		if ok || err != nil {
			return ok, err
		}
		now := payloadWords(payload)
		if slices.Equal(now, last) {
			return ok, err
		}
		last = now
	}
}

// payloadWords are the words of b as the host loads them.
func payloadWords(b *devices.Buffer) []uint32 {
	words := make([]uint32, b.Region().Len()/4)
	for i := range words {
		words[i] = b.HostLoad(4 * i)
	}
	return words
}

// verification is what the check of the exchange s runs found, and false
// before it ran.
func verification(s *Session) (exchange.Verification, bool) {
	return exchangeOf(s).Verification()
}
