package engine

import (
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine/oracle"
)

// A session's timeline holds the times of the events that record its
// steps, in both executors: each participant's accepted submit, the
// decision, and each program's first observation and its retirement.
// Nothing is set before it happens.
func TestTimelineHoldsTheTimesOfItsStepsEvents(t *testing.T) {
	for _, mode := range []devices.Mode{devices.Simulated, devices.RealTime} {
		t.Run(mode.String(), func(t *testing.T) {
			f, _ := newFabric(t, devices.Config{Mode: mode, Seed: simSeed})
			s := newSession(t, f, roundsConfig(2))
			if got := s.Timeline(); got != (Timeline{}) {
				t.Fatalf("timeline before any step: %+v, want none set", got)
			}
			run(t, s)
			got := s.Timeline()
			closeAs(t, "a session that ran", s, Retired)

			first := func(kind program.EventKind, actor event.Actor, a uint64) event.Stamp {
				t.Helper()
				for _, e := range f.Events().Events(nil) {
					if e.Session == s.ID() && e.Kind == kind && e.Actor == actor && (kind != oracle.EvSubmit || e.A == a && e.B == 0) {
						return event.Stamp{At: e.Time, Set: true}
					}
				}
				t.Fatalf("no %s event of actor %d", kind, actor)
				return event.Stamp{}
			}
			gpu, npu := devicePair(t, f)
			want := Timeline{
				Accepted: [2]event.Stamp{first(oracle.EvSubmit, event.HostActor, 0), first(oracle.EvSubmit, event.HostActor, 1)},
				Decided:  first(oracle.EvDecide, event.HostActor, 0),
			}
			for i, d := range []*devices.Device{gpu, npu} {
				want.Programs[i] = event.Steps{Observed: first(program.EvObserve, d.Actor(), 0), Retired: first(event.EvRetire, d.Actor(), 0)}
			}
			if got != want {
				t.Errorf("timeline\n %+v\nwant the times of the events\n %+v", got, want)
			}
		})
	}
}

// A program's error reaches its steps with its retirement; a participant
// never accepted has no steps.
func TestTimelineCarriesAProgramsError(t *testing.T) {
	f, _ := newSimFabric(t)
	s := newSession(t, f, roundsConfig(2))
	setFault(t, f, fault.NPURun, "crash(timeline)")
	start(t, s)
	if ok, err := s.Wait(longWait); ok || err == nil {
		t.Fatalf("Wait = %v, %v; want the NPU's crash", ok, err)
	}
	got := s.Timeline()
	if npu := got.Programs[oracle.ParticipantNPU]; !npu.Retired.Set || npu.Err == nil || !strings.Contains(npu.Err.Error(), "timeline") {
		t.Errorf("the NPU's steps %+v, want its retirement with its crash", npu)
	}
	closeAs(t, "a session whose NPU crashed", s, Quarantined)

	rejected := newSession(t, f, roundsConfig(2))
	setFault(t, f, fault.GPUDispatch, "error(refused)")
	if err := rejected.SubmitGPU(); err == nil {
		t.Fatal("SubmitGPU succeeded, want the dispatch fault")
	}
	if got := rejected.Timeline(); got.Accepted[oracle.ParticipantGPU].Set || got.Programs[oracle.ParticipantGPU] != (event.Steps{}) || !got.Decided.Set {
		t.Errorf("a rejected GPU's timeline %+v, want it never accepted, with no steps, and ABORT decided", got)
	}
	closeAs(t, "a session whose GPU was rejected", rejected, Retired)
}
