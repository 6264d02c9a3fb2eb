package cuda

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/memory"
)

// A kernel stores its observation, then its ending, each with a release.
// Status must never report an ending without the observation before it:
// the watcher would retire the GPU half without its observe events (it
// did, once in about 30 sessions of residentbench -gpu cuda, when Status
// read the observation first). A writer plays the kernel here, over and
// over, storing round n's observation, then its ending, as n; Status must
// never read an ending newer than the observation. No GPU is needed.
func TestStatusNeverShowsAnEndingWithoutItsObservation(t *testing.T) {
	control, err := memory.Map(controlBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer control.Unmap()
	g := &GPU{control: control, clock: func() time.Duration { return 0 }}
	readers := map[string]func() (done, observed uint32){
		"a loaded kernel (a user's or the exchange's)": func() (uint32, uint32) {
			st := (&userRunning{g: g}).Status()
			return uint32(st.Done), st.Observed
		},
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := uint32(1); !stop.Load(); n++ {
			control.Store(statusObserved, n)
			control.Store(statusDone, n)
		}
	}()
	defer func() { stop.Store(true); <-done }()
	for name, read := range readers {
		for i := 0; i < 1_000_000; i++ {
			if d, o := read(); d > o {
				t.Fatalf("%s, read %d: the kernel's ending %d came without its observation (%d read)", name, i, d, o)
			}
		}
	}
}
