package devices

import (
	"runtime"
	"testing"
	"time"
)

// A real-time device that polled past its spin budget and blocked is woken
// by the host's publication, and the exchange then runs to the end: the
// blocking path loses no wake-up. The test waits for the state (both device
// goroutines asleep), never for a duration.
func TestRealTimeBlockedDevicesWakeOnPublication(t *testing.T) {
	f, err := NewFabric(Config{Mode: RealTime})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gpu, npu := f.First(GPU), f.First(NPU)
	line, x, gdone, ndone, release := dispatchedExchange(t, f, ExchangeConfig{Rounds: 50, Credits: 1, SlotBytes: 8, GPUQueue: AQL})
	exec := f.exec.(*realTimeExecutor)
	for !exec.thread(gpu).sleeping.Load() || !exec.thread(npu).sleeping.Load() {
		runtime.Gosched()
	}
	runExchange(t, line, release)
	for _, c := range []*Completion{gdone, ndone} {
		if ok, err := c.Wait(time.Minute); !ok || err != nil {
			t.Fatalf("a blocked device did not finish after the publication: ok=%v err=%v", ok, err)
		}
	}
	if v := x.Verify(); !v.OK {
		t.Fatalf("the exchange after the wake-up did not verify: %s", v.Problem)
	}
}
