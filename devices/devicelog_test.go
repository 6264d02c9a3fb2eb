package devices

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/wait"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// evTick is the event of ticker programs: B is the tick's number.
var (
	evTick  = program.DefineEvent("test.tick", program.CategoryRound)
	evCause = program.DefineEvent("test.cause", program.CategoryProtocol)
)

// ticker emits perStep ticks a step for steps steps, then retires.
type ticker struct {
	steps, perStep, done int
	next                 uint64
}

func (p *ticker) Step(env program.Env) program.Next {
	if p.done == p.steps {
		return program.Retire(nil)
	}
	for range p.perStep {
		p.next++
		env.Emit(evTick, p.next, "")
	}
	p.done++
	return program.Continue()
}

// In real time a device keeps its program's events in its own log and
// hands them to the stream in batches (deviceLog): every event arrives, in
// the order it was emitted, before the program's retirement, and the
// events of one step share its time. The host either collects the batches
// while it polls a completion, or, asleep, leaves them for the devices to
// move in themselves; both are run, with several batches' worth of events.
func TestRealTimeDeviceEventsReachTheStreamInOrder(t *testing.T) {
	const steps, perStep = 1000, 3 // about three batches (logBatch) a device
	for _, w := range wait.Policies() {
		for _, hostPolls := range []bool{true, false} {
			name := w.String() + "/host polls"
			if !hostPolls {
				name = w.String() + "/host sleeps"
			}
			t.Run(name, func(t *testing.T) {
				f := mmFabric(t, Config{Mode: RealTime, Wait: w})
				var comps []*Completion
				for _, d := range []*Device{f.First(GPU), f.First(NPU)} {
					fam := AQL
					if d.Kind() == NPU {
						fam = XDNA
					}
					comps = append(comps, mmDispatch(t, mmPrepare(t, d, fam, &ticker{steps: steps, perStep: perStep}, 7)))
				}
				for _, c := range comps {
					if !hostPolls {
						for !c.retired() {
							time.Sleep(time.Millisecond)
						}
					}
					if ok, err := c.waitFor(time.Minute); !ok || err != nil {
						t.Fatalf("ticker did not retire: ok=%v err=%v", ok, err)
					}
				}
				for _, c := range comps {
					wantTicksInOrder(t, f, c.ID(), steps*perStep, perStep)
				}
			})
		}
	}
}

// wantTicksInOrder checks invocation id's ticks in the stream: all n, in
// order, those of one step at one time, times never going back but moving
// on across the run, and the retirement after the last.
func wantTicksInOrder(t *testing.T, f *Fabric, id uint64, n, perStep int) {
	t.Helper()
	var ticks []event.Event
	retired := false
	for _, e := range f.Events().Events(func(e *event.Event) bool { return e.A == id && (e.Kind == evTick || e.Kind == event.EvRetire) }) {
		if e.Kind == event.EvRetire {
			retired = true
			continue
		}
		if retired {
			t.Fatalf("invocation %d: tick %d came after its retirement", id, e.B)
		}
		ticks = append(ticks, e)
	}
	if len(ticks) != n {
		t.Fatalf("invocation %d: %d ticks in the stream, want %d", id, len(ticks), n)
	}
	for i, e := range ticks {
		if e.B != uint64(i+1) {
			t.Fatalf("invocation %d: tick %d at position %d, want %d", id, e.B, i, i+1)
		}
		if i == 0 {
			continue
		}
		prev := ticks[i-1].Time
		if i%perStep != 0 && e.Time != prev {
			t.Fatalf("invocation %d: tick %d of a step at %v, its step's first at %v", id, e.B, e.Time, prev)
		}
		if e.Time < prev {
			t.Fatalf("invocation %d: tick %d at %v, before tick %d at %v", id, e.B, e.Time, e.B-1, prev)
		}
	}
	if ticks[n-1].Time == ticks[0].Time {
		t.Fatalf("invocation %d: all %d ticks at %v: the steps were not stamped one by one", id, n, ticks[0].Time)
	}
	if !retired {
		t.Fatalf("invocation %d: no retirement in the stream", id)
	}
}

// A publication's events (its cause, the store, each release, a fault that
// fired) enter the stream together and share the instant it began, as the
// events of one step do in simulated time; a failed release ends it there.
func TestPublishRecordsItsEventsAtItsStart(t *testing.T) {
	for _, cfg := range mmConfigs() {
		t.Run(mmName(cfg), func(t *testing.T) {
			f, gpu, npu, b := mmShared(t, cfg, 64)
			var pubs []*Publication
			for _, d := range []*Device{gpu, npu} {
				for fam := range d.Families() {
					p, err := b.PrepareHostRelease(d, fam, 0, 64)
					if err != nil {
						t.Fatal(err)
					}
					pubs = append(pubs, p)
				}
			}
			if len(pubs) < 3 {
				t.Fatalf("%d publications, want at least 3", len(pubs))
			}
			if err := f.Faults().Set(fault.HostPublish, "1*off->1*error(bus)"); err != nil {
				t.Fatal(err)
			}
			before := f.Events().Count()
			at, err := b.Publish(event.Event{Actor: event.HostActor, Kind: evCause}, 0, 5, pubs)
			mmKind(t, "Publish", err, failure.Publish)
			var kinds []program.EventKind
			events := f.Events().Events(func(e *event.Event) bool { return e.Seq > before })
			for _, e := range events {
				kinds = append(kinds, e.Kind)
				if e.Time != events[0].Time {
					t.Errorf("%s at %v, the publication began at %v", e.Kind, e.Time, events[0].Time)
				}
			}
			if len(events) == 0 || !at.Set || events[0].Time != at.At {
				t.Errorf("Publish returned %v, want the time of its cause's event (events %v)", at, events)
			}
			want := []program.EventKind{evCause, event.EvHostStore, event.EvFault, event.EvPublication, event.EvFault, event.EvPublication}
			if !slices.Equal(kinds, want) {
				t.Errorf("events %v, want %v: the cause, the store, the first release (its fault site off), the second's fault and failure, and no more", kinds, want)
			}
			mmHost(t, "the stored word", b, 0, 5)
		})
	}
}

// A publication shows the stored word to a non-coherent family only when
// one of its releases to that family lands and covers the word's line: a
// skipped or failed release, or a release of other lines, leaves the
// family reading the word as it was, in simulated and in real time.
func TestPublishShowsItsStoreOnlyWhereItsReleasesLand(t *testing.T) {
	for _, cfg := range mmConfigs() {
		t.Run(mmName(cfg), func(t *testing.T) {
			f, _, npu, b := mmShared(t, cfg, 128)
			nv := mmView(t, b, npu, XDNA)
			release := func(lo, hi int) []*Publication {
				p, err := b.PrepareHostRelease(npu, mmFamily(t, npu, XDNA), lo, hi)
				if err != nil {
					t.Fatal(err)
				}
				return []*Publication{p}
			}
			cause := event.Event{Actor: event.HostActor, Kind: evCause}
			if err := publishErr(b.Publish(cause, 0, 1, release(0, 64))); err != nil {
				t.Fatal(err)
			}
			mmLoad(t, "a store whose line was released", nv, 0, 1)
			if err := publishErr(b.Publish(cause, 0, 2, release(64, 128))); err != nil {
				t.Fatal(err)
			}
			mmLoad(t, "a store beside a release of another line", nv, 0, 1)
			if err := f.Faults().Set(fault.HostPublish, "1*skip"); err != nil {
				t.Fatal(err)
			}
			if err := publishErr(b.Publish(cause, 64, 3, release(64, 128))); err != nil {
				t.Fatal(err)
			}
			mmLoad(t, "a store whose release was skipped", nv, 64, 0)
			if err := f.Faults().Set(fault.HostPublish, "1*error(bus)"); err != nil {
				t.Fatal(err)
			}
			mmKind(t, "a failed release", publishErr(b.Publish(cause, 64, 4, release(64, 128))), failure.Publish)
			mmLoad(t, "a store whose release failed", nv, 64, 0)
			if err := publishErr(b.Publish(cause, 64, 5, release(0, 128))); err != nil {
				t.Fatal(err)
			}
			mmLoad(t, "both lines released at last", nv, 0, 2)
			mmLoad(t, "both lines released at last", nv, 64, 5)
		})
	}
}

// A host blocked on a completion is woken by the batch a device hands it
// and moves the batch into the stream, while the device goes on stepping:
// the device, which neither blocks nor retires, never moves it itself.
func TestBlockedHostCollectsAHandedBatch(t *testing.T) {
	f := mmFabric(t, Config{Mode: RealTime, Wait: wait.Hybrid})
	var emit, seen atomic.Bool
	emitted := false
	prog := &mmProgram{step: func(env program.Env) program.Next {
		switch {
		case seen.Load():
			return program.Retire(nil)
		case emit.Load() && !emitted:
			emitted = true
			for i := range logBatch {
				env.Emit(evTick, uint64(i+1), "")
			}
		}
		return program.Continue()
	}}
	c := mmDispatch(t, mmPrepare(t, f.First(GPU), AQL, prog, 7))
	waited := make(chan error, 1)
	go func() {
		ok, err := c.waitFor(time.Minute)
		if err == nil && !ok {
			err = errors.New("the completion timed out")
		}
		waited <- err
	}()
	time.Sleep(20 * time.Millisecond) // the host has polled its while and blocked
	emit.Store(true)
	// The start and the ticks fill the first batch, which is handed; the
	// last tick waits in the second.
	events := func() int { return len(f.Events().Events(func(e *event.Event) bool { return e.A == c.ID() })) }
	for deadline := time.Now().Add(30 * time.Second); events() < logBatch; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			seen.Store(true)
			t.Fatalf("%d of the invocation's events reached the stream while the host waited, want the %d of its handed batch: the batch was not collected", events(), logBatch)
		}
	}
	seen.Store(true)
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
}

// publishErr is the error of a Publish, for checks of its error alone.
func publishErr(_ event.Stamp, err error) error { return err }
