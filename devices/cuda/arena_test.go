package cuda

import (
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/engine"
)

// Sessions carve their startup lines and payloads from one pinned chunk
// that the driver allocates once: fifty sessions, each of which maps and
// gives back its memory, leave a single loan of one chunk, and closing the
// GPU gives it back.
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
		s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(exchange.Config{Rounds: 3, Credits: 2, SlotBytes: 64}))
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
	f.Close()
	g.lentMu.Lock()
	defer g.lentMu.Unlock()
	if len(g.lent) != 0 {
		t.Errorf("after Close the driver still lends %+v", g.lent)
	}
}
