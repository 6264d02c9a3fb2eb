package engine

// Shared helpers of exchange_test.go, faults_test.go and
// determinism_test.go. Every name starts with "x" so that other test files
// of the package can have their own helpers.

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/devices/fault"
)

// xSeed is the seed of the fabrics of these tests unless a test picks one.
const xSeed = 7001

// xModes are both executors.
var xModes = []devices.Mode{devices.Simulated, devices.RealTime}

// xWorld is a fabric with an oracle and an event counter attached.
type xWorld struct {
	f        *devices.Fabric
	o        *Oracle
	gpu, npu *devices.Device
	counts   *xCounts
}

// xNewWorld makes a fabric of mode with ideal timing, attaches an oracle
// and a counter, and closes them when the test ends; every test of these
// files exercises a correct behaviour, so the oracle must find nothing.
func xNewWorld(t *testing.T, mode devices.Mode, seed uint64) *xWorld {
	t.Helper()
	return xNewWorldConfig(t, devices.Config{Mode: mode, Seed: seed, Timing: devices.IdealTiming()})
}

func xNewWorldConfig(t *testing.T, cfg devices.Config) *xWorld {
	t.Helper()
	f, err := devices.NewFabric(cfg)
	if err != nil {
		t.Fatalf("NewFabric(%+v): %v", cfg, err)
	}
	w := &xWorld{f: f, o: NewOracle(f), gpu: f.First(devices.GPU), npu: f.First(devices.NPU), counts: xCount(f)}
	t.Cleanup(func() {
		w.o.Stop()
		w.counts.stop()
		f.Close()
	})
	return w
}

// noViolations fails the test with every violation the oracle found.
func (w *xWorld) noViolations(t *testing.T) {
	t.Helper()
	for _, v := range w.o.Violations() {
		t.Errorf("oracle: %v", v)
		for _, e := range v.Events {
			t.Logf("    %s", e.Format(w.f.ActorName))
		}
	}
}

// settle resets both devices when a quarantine holds them, then requires
// that nothing stays charged or quarantined, and that the oracle agrees.
func (w *xWorld) settle(t *testing.T) {
	t.Helper()
	if len(w.f.Quarantines()) > 0 {
		w.gpu.Reset()
		w.npu.Reset()
	}
	if q := w.f.Quarantines(); len(q) != 0 {
		t.Errorf("quarantines left after resetting both devices: %+v", q)
	}
	if st := w.f.Budget().State(); st.Charged != 0 || st.Quarantined != 0 {
		t.Errorf("budget after settling: %d bytes charged (%d quarantined), want 0", st.Charged, st.Quarantined)
	}
	if err := w.o.CheckSettled(); err != nil {
		t.Errorf("CheckSettled: %v", err)
	}
	w.noViolations(t)
}

// session makes an exchange session on the world's GPU and NPU.
func (w *xWorld) session(t *testing.T, cfg exchange.Config) *Session {
	t.Helper()
	s, err := NewExchangeSession(w.gpu, w.npu, cfg)
	if err != nil {
		t.Fatalf("NewExchangeSession(%+v): %v", cfg, err)
	}
	return s
}

// setFault installs a chain at site.
func (w *xWorld) setFault(t *testing.T, site fault.Site, chain string) {
	t.Helper()
	if err := w.f.Faults().Set(site, chain); err != nil {
		t.Fatalf("Faults().Set(%v, %q): %v", site, chain, err)
	}
}

// events lists the session's events of kind by actor (any actor when actor
// is nil).
func (w *xWorld) events(session uint64, kind devices.EventKind, actor *devices.Device) []devices.Event {
	return w.f.Events().Events(func(e *devices.Event) bool {
		return e.Session == session && e.Kind == kind && (actor == nil || e.Actor == actor.Actor())
	})
}

// one returns the only event of kind by actor in the session.
func (w *xWorld) one(t *testing.T, session uint64, kind devices.EventKind, actor *devices.Device) devices.Event {
	t.Helper()
	evs := w.events(session, kind, actor)
	if len(evs) != 1 {
		name := "anyone"
		if actor != nil {
			name = actor.Name()
		}
		t.Fatalf("%d %s events by %s in session %d, want 1", len(evs), kind, name, session)
	}
	return evs[0]
}

// log writes the session's events to the test log.
func (w *xWorld) log(t *testing.T, session uint64) {
	t.Helper()
	var b strings.Builder
	for _, e := range w.f.Events().Events(func(e *devices.Event) bool { return e.Session == session }) {
		b.WriteString("\n    " + e.Format(w.f.ActorName))
	}
	t.Log("events:" + b.String())
}

// xCounts counts every event by session and kind as it is emitted, so that
// counts stay right however small the event ring is.
type xCounts struct {
	mu     sync.Mutex
	n      map[xKey]int
	cancel func()
}

type xKey struct {
	session uint64
	kind    devices.EventKind
}

func xCount(f *devices.Fabric) *xCounts {
	c := &xCounts{n: map[xKey]int{}}
	c.cancel = f.Events().Subscribe(func(e devices.Event) {
		c.mu.Lock()
		c.n[xKey{e.Session, e.Kind}]++
		c.mu.Unlock()
	})
	return c
}

func (c *xCounts) get(session uint64, kind devices.EventKind) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[xKey{session, kind}]
}

func (c *xCounts) stop() { c.cancel() }

// xCfg is an exchange of rounds generations over credits slots.
func xCfg(rounds, credits, slotBytes int, queue devices.Command) exchange.Config {
	return exchange.Config{Rounds: rounds, Credits: credits, SlotBytes: slotBytes, GPUQueue: queue}
}

// xSubmitBoth admits both participants, the GPU first unless npuFirst.
func xSubmitBoth(t *testing.T, s *Session, npuFirst bool) {
	t.Helper()
	first, second := s.SubmitGPU, s.SubmitNPU
	if npuFirst {
		first, second = second, first
	}
	if err := first(); err != nil {
		t.Fatalf("first submit: %v", err)
	}
	if err := second(); err != nil {
		t.Fatalf("second submit: %v", err)
	}
}

// xStart admits both participants and publishes RUN.
func xStart(t *testing.T, s *Session) {
	t.Helper()
	xSubmitBoth(t, s, false)
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
}

// xWantKind requires that err is an *Error of the kind sentinel and of no
// other kind, whose text contains every one of contains.
func xWantKind(t *testing.T, what string, err, kind error, contains ...string) {
	t.Helper()
	protoWantErr(t, what, err, kind, "")
	for _, c := range contains {
		if !strings.Contains(err.Error(), c) {
			t.Errorf("%s: %q does not mention %q", what, err, c)
		}
	}
}

// xState checks the session's state.
func xState(t *testing.T, s *Session, want State) {
	t.Helper()
	if got := s.State(); got != want {
		t.Errorf("State() = %v, want %v", got, want)
	}
}

// xOutcomeLine describes one session run in words, for comparing runs.
func xOutcomeLine(i int, s *Session, steps []string) string {
	line := fmt.Sprintf("#%d %s", i, strings.Join(steps, " "))
	if s != nil {
		if v, ok := s.Verification(); ok {
			line += fmt.Sprintf(" verify=%v/%d/%q", v.OK, v.Verified, v.Problem)
		}
	}
	return line
}

// xErrWord renders an error for an outcome line.
func xErrWord(err error) string {
	if err == nil {
		return "ok"
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind.String()
	}
	return "error"
}

// xFormat renders events one per line.
func xFormat(f *devices.Fabric, evs []devices.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Format(f.ActorName)
	}
	return out
}

// xFirstDiff returns the first index where a and b differ, or -1.
func xFirstDiff(a, b []string) int {
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

// xDistinct counts the distinct values of xs.
func xDistinct[T comparable](xs []T) int {
	seen := map[T]bool{}
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}

// xShort and xLong are the waits for what must not and what must happen:
// virtual time in the simulator, wall time in real time.
func xShort(mode devices.Mode) time.Duration {
	if mode == devices.Simulated {
		return time.Millisecond
	}
	return 50 * time.Millisecond
}

const xLong = 30 * time.Second
