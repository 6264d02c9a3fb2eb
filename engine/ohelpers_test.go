package engine

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/devices/fault"
)

// oFabric is a simulated fabric with the default devices and an oracle
// watching it; both end with the test.
func oFabric(t *testing.T) (*devices.Fabric, *Oracle) {
	t.Helper()
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	o := NewOracle(f)
	t.Cleanup(func() {
		o.Stop()
		f.Close()
	})
	return f, o
}

// oSession makes an exchange session of rounds generations on f.
func oSession(t *testing.T, f *devices.Fabric, rounds int) *Session {
	t.Helper()
	cfg := exchange.Default()
	cfg.Rounds, cfg.Credits = rounds, 2
	s, err := NewExchangeSession(f.First(devices.GPU), f.First(devices.NPU), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// oSet arms a fault chain.
func oSet(t *testing.T, f *devices.Fabric, site fault.Site, chain string) {
	t.Helper()
	if err := f.Faults().Set(site, chain); err != nil {
		t.Fatal(err)
	}
}

// oEmit forges a host protocol event for session, as a buggy engine would
// emit it: the stream is the oracle's only input.
func oEmit(f *devices.Fabric, session uint64, kind devices.EventKind, a, b uint64) {
	f.Events().Emit(devices.HostActor, session, kind, a, b, "forged")
}

// oNone fails unless the oracle found nothing.
func oNone(t *testing.T, o *Oracle) {
	t.Helper()
	for _, v := range o.Violations() {
		t.Errorf("unexpected violation: %v", v)
		oLogEvents(t, o, v)
	}
}

// oWant checks that o reported invariant inv, with a message, and with the
// session's events leading to it, the last of which is of kind last (the
// event that broke it). Violations of invariants in also are tolerated; any
// other is an error. It returns the first violation of inv.
func oWant(t *testing.T, o *Oracle, inv int, session uint64, last devices.EventKind, also ...int) Violation {
	t.Helper()
	var found *Violation
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
		t.Fatalf("invariant %d (%s) was broken but not reported; violations: %v", inv, Invariants[inv], o.Violations())
	}
	v := *found
	if v.Session != session {
		t.Errorf("violation names session %d, want %d", v.Session, session)
	}
	if strings.TrimSpace(v.Message) == "" {
		t.Errorf("violation %v has no message", v)
	}
	if msg := v.Error(); !strings.Contains(msg, Invariants[inv]) || !strings.Contains(msg, v.Message) {
		t.Errorf("violation's error %q does not say the invariant and the message", msg)
	}
	if last != "" {
		if len(v.Events) == 0 {
			t.Fatalf("violation %v carries no events", v)
		}
		if got := v.Events[len(v.Events)-1].Kind; got != last {
			t.Errorf("the events leading to the violation end with %q, want %q", got, last)
			oLogEvents(t, o, v)
		}
		for i := 1; i < len(v.Events); i++ {
			if v.Events[i].Seq <= v.Events[i-1].Seq {
				t.Errorf("violation events are out of order at %d", i)
			}
		}
	}
	return v
}

// oHas reports whether events contain one of kind.
func oHas(events []devices.Event, kind devices.EventKind) bool {
	return slices.ContainsFunc(events, func(e devices.Event) bool { return e.Kind == kind })
}

// oLogEvents logs the events that led to v, actors named by o's fabric.
func oLogEvents(t *testing.T, o *Oracle, v Violation) {
	t.Helper()
	for _, e := range v.Events {
		t.Log("  " + e.Format(o.fabric.ActorName))
	}
}

// oProgram is a device program given as a list of steps, run in order; the
// last one is repeated. It lets a test write a deliberately wrong program.
type oProgram []func(env *devices.Env) devices.Next

// Step runs the next step.
func (p *oProgram) Step(env *devices.Env) devices.Next {
	step := (*p)[0]
	if len(*p) > 1 {
		*p = (*p)[1:]
	}
	return step(env)
}

// oBuffer allocates a fine-grained buffer shared by f's GPU and NPU, owned
// by owner, charged to the fabric's budget.
func oBuffer(t *testing.T, f *devices.Fabric, size int, owner uint64) *devices.Buffer {
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

// oRun submits both participants of s, starts it and waits for both.
func oRun(t *testing.T, s *Session) {
	t.Helper()
	if err := s.SubmitGPU(); err != nil {
		t.Fatal(err)
	}
	if err := s.SubmitNPU(); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Wait(time.Second); !ok || err != nil {
		t.Fatalf("wait: %v, %v", ok, err)
	}
}

// oBreak builds the engine with rule broken until the test ends.
func oBreak(t *testing.T, rule brokenRule) {
	t.Helper()
	t.Cleanup(BreakRule(rule))
}
