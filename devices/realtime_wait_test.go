package devices

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// A real-time device that polled past its spin budget and blocked is woken
// by the host's store (the coherent GPU) and by the host's release (the
// non-coherent NPU): the blocking path loses no wake-up. The test waits for
// the state (both device goroutines asleep), never for a duration.
func TestRealTimeBlockedDevicesWakeOnPublication(t *testing.T) {
	f, gpu, npu, b := mmShared(t, Config{Mode: RealTime}, 64)
	var gseen, nseen atomic.Uint32
	gdone := mmDispatch(t, mmPrepare(t, gpu, AQL, mmWaitNonZero(mmView(t, b, gpu, AQL), 0, &gseen), 1, b))
	ndone := mmDispatch(t, mmPrepare(t, npu, XDNA, mmWaitNonZero(mmView(t, b, npu, XDNA), 0, &nseen), 1, b))
	exec := f.exec.(*realTimeExecutor)
	for !exec.thread(gpu).parker.parked.Load() || !exec.thread(npu).parker.parked.Load() {
		runtime.Gosched()
	}
	b.storeWord(0, 1)
	mmRelease(t, b, npu, XDNA, 0, 64)
	for _, c := range []*Completion{gdone, ndone} {
		if ok, err := c.waitFor(time.Minute); !ok || err != nil {
			t.Fatalf("a blocked device did not finish after the publication: ok=%v err=%v", ok, err)
		}
	}
	if gseen.Load() != 1 || nseen.Load() != 1 {
		t.Errorf("the woken programs saw %d (GPU) and %d (NPU), want 1 and 1", gseen.Load(), nseen.Load())
	}
}
