package cuda

import (
	"context"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/programs/exchange"
)

// Sessions carve their startup lines and payloads from one pinned chunk
// that the driver allocates once: fifty sessions, each of which maps and
// gives back its memory, leave a single loan of one chunk. A hung
// session's memory stays out of the arena while it is quarantined, and
// returns to it only when the reset ends the quarantine; closing the GPU
// then gives the chunk back.
func TestSessionsCarveOnePinnedChunk(t *testing.T) {
	g, err := Open()
	if err != nil {
		t.Skipf("skipped: this test needs a CUDA GPU: %v", err)
	}
	devs := devices.DefaultDevices()
	devs[0].Accelerator = g
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Devices: devs})
	if err != nil {
		g.Close()
		t.Fatal(err)
	}
	for i := range 50 {
		s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(exchange.Config{Rounds: 3, Credits: 2, SlotBytes: 64, GPUQueue: devices.AQL}))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SubmitGPU(); err != nil {
			t.Fatal(err)
		}
		if err := s.SubmitNPU(); err != nil {
			t.Fatal(err)
		}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.Wait(20 * time.Second); !ok || err != nil {
			t.Fatalf("session %d: Wait = %v, %v", i, ok, err)
		}
		if out := s.Close(); out != engine.Retired {
			t.Fatalf("session %d closed %v", i, out)
		}
	}
	g.lentMu.Lock()
	loans := append([]pinnedLoan(nil), g.lent...)
	g.lentMu.Unlock()
	if len(loans) != 1 || loans[0].size != memory.ChunkBytes {
		t.Errorf("after 50 sessions the driver lent %+v; want one chunk of %d bytes", loans, memory.ChunkBytes)
	}

	if err := f.Faults().Set(fault.GPURun, "hang"); err != nil {
		t.Fatal(err)
	}
	s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(exchange.Default()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SubmitGPU(); err != nil {
		t.Fatal(err)
	}
	if err := s.SubmitNPU(); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if out := s.CloseWithin(context.Background(), 100*time.Millisecond); out != engine.Quarantined {
		t.Fatalf("the hung session closed %v, want quarantined", out)
	}
	f.Faults().Clear()
	if out, err := g.pinned.Release(); err != nil || out < 2 {
		t.Errorf("while quarantined %d regions are out of the arena (%v); want the startup line and the payload", out, err)
	}
	f.First(devices.GPU).Reset()
	f.First(devices.NPU).Reset()
	if q := f.Quarantines(); len(q) != 0 {
		t.Fatalf("after both resets %d quarantines remain", len(q))
	}
	if out, err := g.pinned.Release(); err != nil || out != 0 {
		t.Errorf("after the resets %d regions are out of the arena (%v); want none", out, err)
	}
	f.Close()
	g.lentMu.Lock()
	defer g.lentMu.Unlock()
	if len(g.lent) != 0 {
		t.Errorf("after Close the driver still lends %+v", g.lent)
	}
}
