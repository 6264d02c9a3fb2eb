package devices

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/devices/wait"
)

// poller polls until done is set, then retires.
type poller struct {
	done  *atomic.Bool
	polls int
}

func (p *poller) Step(program.Env) program.Next {
	if p.done.Load() {
		return program.Retire(nil)
	}
	p.polls++
	return program.Poll()
}

func dispatchPoller(t *testing.T, f *Fabric, done *atomic.Bool) (*poller, *Completion) {
	t.Helper()
	gpu := f.First(GPU)
	fam, _ := gpu.Family(AQL)
	p := &poller{done: done}
	prep, err := gpu.Prepare(fam, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := prep.Dispatch()
	if err != nil {
		t.Fatal(err)
	}
	return p, c
}

// In real time a program that keeps polling without progress is paced: it
// ends up napping (the device goroutine blocks) instead of holding a
// processor, and it still retires once what it waits for happens: after
// its polling budget under the hybrid policy, at once under block.
func TestRealTimePollingProgramNapsAndFinishes(t *testing.T) {
	for _, w := range []wait.Policy{wait.Hybrid, wait.Block} {
		t.Run(w.String(), func(t *testing.T) { testPollerNaps(t, w) })
	}
}

func testPollerNaps(t *testing.T, w wait.Policy) {
	f, err := NewFabric(Config{Mode: RealTime, Wait: w})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var done atomic.Bool
	_, c := dispatchPoller(t, f, &done)
	exec := f.exec.(*realTimeExecutor)
	for !exec.thread(f.First(GPU)).parker.parked.Load() {
		runtime.Gosched()
	}
	done.Store(true)
	if ok, err := c.waitFor(time.Minute); !ok || err != nil {
		t.Fatalf("the polling program did not retire: ok=%v err=%v", ok, err)
	}
}

// In simulated time each poll lets a microsecond pass, so a polling
// program cannot stop the clock.
func TestSimulatedPollLetsTimePass(t *testing.T) {
	f, err := NewFabric(Config{Mode: Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var done atomic.Bool
	p, c := dispatchPoller(t, f, &done)
	f.Advance(100 * time.Microsecond)
	if p.polls < 90 || p.polls > 101 {
		t.Errorf("%d polls in 100 µs of simulated time, want about one per µs", p.polls)
	}
	done.Store(true)
	if ok, err := c.waitFor(time.Millisecond); !ok || err != nil {
		t.Fatalf("the polling program did not retire: ok=%v err=%v", ok, err)
	}
}
