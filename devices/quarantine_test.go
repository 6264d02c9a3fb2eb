package devices

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/memory"
)

// A quarantine whose devices were both reset stays in force while a program
// dispatched after the first reset can reach its memory, and ends (memory
// released, budget returned) once that program retires: in simulated time
// when a wait lets it retire, in real time when its device retires it.
func TestQuarantineOutlivesResetsWhileAProgramCanReachIt(t *testing.T) {
	for _, cfg := range mmConfigs() {
		t.Run(mmName(cfg), func(t *testing.T) {
			f, gpu, npu, b := mmShared(t, cfg, 64)
			f.Quarantine(9, "test quarantine", []*Device{gpu, npu}, []*Buffer{b})
			gpu.Reset()
			// The program waits on a word of its own buffer and can reach b.
			own := mmAlloc(t, mmProfile(t, f, memory.FineGrained), 64)
			var seen atomic.Uint32
			c := mmDispatch(t, mmPrepare(t, gpu, AQL, mmWaitNonZero(mmView(t, own, gpu, AQL), 0, &seen), 2, b, own))
			npu.Reset()
			qs := f.Quarantines()
			if len(qs) != 1 || len(qs[0].Waiting) != 0 || len(qs[0].ReachedBy) != 1 || qs[0].ReachedBy[0] != c.ID() {
				t.Fatalf("after both resets Quarantines() = %+v; want the quarantine kept, reached by invocation %d", qs, c.ID())
			}
			if evs := mmEvents(f, event.EvRelease, b.ID()); len(evs) != 0 {
				t.Fatalf("the quarantined buffer was released while invocation %d can reach it: %+v", c.ID(), evs)
			}
			mmCharged(t, f, 128, 64)
			if err := b.Release(); err == nil || !strings.Contains(err.Error(), "quarantined") {
				t.Errorf("Release of the kept buffer = %v, want the quarantine refusal", err)
			}
			own.storeWord(0, 5) // the program retires
			if ok, err := c.waitFor(mmSoon); !ok || err != nil {
				t.Fatalf("the program did not retire: %v, %v", ok, err)
			}
			deadline := time.Now().Add(mmSoon) // in real time the device goroutine ends the quarantine
			for len(f.Quarantines()) != 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if qs := f.Quarantines(); len(qs) != 0 {
				t.Fatalf("after the program retired Quarantines() = %+v, want none", qs)
			}
			if evs := mmEvents(f, event.EvRelease, b.ID()); len(evs) != 1 {
				t.Errorf("release events of buffer %d: %+v, want one", b.ID(), evs)
			}
			if ends := f.Events().Events(func(e *event.Event) bool { return e.Kind == event.EvQuarantineEnd }); len(ends) != 1 {
				t.Errorf("quarantine.end events: %+v, want one", ends)
			}
			if err := own.Release(); err != nil {
				t.Fatal(err)
			}
			mmCharged(t, f, 0, 0)
		})
	}
}

// A program whose reach includes a released buffer is refused at dispatch,
// never run over memory that may be unmapped or reused.
func TestDispatchRefusesAProgramThatReachesAReleasedBuffer(t *testing.T) {
	for _, cfg := range mmConfigs() {
		t.Run(mmName(cfg), func(t *testing.T) {
			f, gpu, _, b := mmShared(t, cfg, 64)
			var seen atomic.Uint32
			pp := mmPrepare(t, gpu, AQL, mmWaitNonZero(mmView(t, b, gpu, AQL), 0, &seen), 1, b)
			if err := b.Release(); err != nil {
				t.Fatal(err)
			}
			c, err := pp.Dispatch()
			mmKind(t, "Dispatch after Release", err, failure.Busy)
			if c != nil || !strings.Contains(err.Error(), "released") {
				t.Errorf("Dispatch = %v, %v; want no completion and an error naming the released buffer", c, err)
			}
			if gpu.Occupied() {
				t.Error("the refused dispatch left the GPU occupied")
			}
			if evs := f.Events().Events(func(e *event.Event) bool { return e.Kind == evReject }); len(evs) != 1 {
				t.Errorf("reject events: %+v, want one", evs)
			}
		})
	}
}
