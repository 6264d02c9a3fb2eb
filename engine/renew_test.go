package engine

import (
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/engine/oracle"
)

// A session, its prepared programs and a startup line made before their
// fabric was renewed are refused with failure.Stale, and act on nothing of the
// renewed fabric: not on the session it opens with the same id, nor on
// its events; the new session runs and retires as any does.
func TestStaleSessionIsRefused(t *testing.T) {
	cfg := devices.Config{Mode: devices.Simulated, Seed: simSeed}
	f := openFabric(t, cfg)
	defer f.Close()
	gpu, npu := devicePair(t, f)
	old := newSession(t, f, roundsConfig(1))
	if err := old.SubmitGPU(); err != nil {
		t.Fatal(err)
	}
	line, err := newStartup(gpu, npu, nil)
	if err != nil {
		t.Fatal(err)
	}

	if err := f.Renew(cfg); err != nil {
		t.Fatal(err)
	}
	o := oracle.New(f)
	fresh := newSession(t, f, roundsConfig(1))
	if fresh.ID() != old.ID() {
		t.Fatalf("the renewed fabric's session is %d, the stale one %d: the test needs the ids to meet", fresh.ID(), old.ID())
	}
	events := f.Events().Count()
	_, completeErr := old.IsComplete()
	_, waitErr := old.Wait(shortWait(devices.Simulated))
	_, lineErr := newSessionOf(line, old.GPU(), old.NPU())
	_, dispatchErr := old.NPU().Dispatch()
	_, publishErr := old.startup.line.Publish(event.Event{}, 0, 1, nil)
	for what, err := range map[string]error{
		"SubmitNPU":           old.SubmitNPU(),
		"SubmitGPU":           old.SubmitGPU(),
		"Start":               old.Start(),
		"Abort":               old.Abort(),
		"IsComplete":          completeErr,
		"Wait":                waitErr,
		"newSessionOf":        lineErr,
		"Dispatch of its NPU": dispatchErr,
		"Publish to its line": publishErr,
	} {
		wantErrMentions(t, what, err, failure.Stale, "renewed")
	}
	closeAs(t, "Close of the stale session", old, Quarantined)
	if n := f.Events().Count(); n != events {
		t.Errorf("the stale session added %d events to the renewed fabric", n-events)
	}
	if qs := f.Quarantines(); len(qs) != 0 {
		t.Errorf("the stale session's close quarantined the renewed fabric's memory: %+v", qs)
	}
	wantState(t, fresh, StateUndecided)
	run(t, fresh)
	wantVerified(t, fresh, 1)
	closeAs(t, "Close of the new session", fresh, Retired)
	o.Stop()
	wantNoViolations(t, o)
}
