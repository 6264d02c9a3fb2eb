package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// hungSession is a started session whose GPU hangs, on a fabric of mode.
func hungSession(t *testing.T, mode devices.Mode) (*devices.Fabric, *engine.Session) {
	t.Helper()
	f, err := devices.NewFabric(devices.Config{Mode: mode, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, d := range f.Devices() {
			d.Reset()
		}
		f.Close()
	})
	if err := f.Faults().Set(fault.GPURun, "hang"); err != nil {
		t.Fatal(err)
	}
	s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(exchange.Default()))
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{s.SubmitGPU, s.SubmitNPU, s.Start} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	return f, s
}

// quarantineLabel is the label of the fabric's one quarantine.
func quarantineLabel(t *testing.T, f *devices.Fabric) string {
	t.Helper()
	q := f.Quarantines()
	if len(q) != 1 {
		t.Fatalf("%d quarantines, want 1", len(q))
	}
	return q[0].Label
}

// TestCloseSaysWhyItQuarantined checks the reason a close gives says what
// happened: a timeout with the time waited, a close cancelled before it
// joined, and one cancelled while it joined, with the time it had waited
// rather than the timeout it was given.
func TestCloseSaysWhyItQuarantined(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		f, s := hungSession(t, devices.Simulated)
		if out := s.CloseWithin(context.Background(), 3*time.Second); out != engine.Quarantined {
			t.Fatalf("close = %v", out)
		}
		if got, want := quarantineLabel(t, f), "session 1: a participant did not retire within 3s"; got != want {
			t.Errorf("reason %q, want %q", got, want)
		}
	})
	t.Run("cancelled before", func(t *testing.T) {
		f, s := hungSession(t, devices.Simulated)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s.CloseWithin(ctx, 10*time.Second)
		if got, want := quarantineLabel(t, f), "session 1: closed without joining, interrupted before the join began"; got != want {
			t.Errorf("reason %q, want %q", got, want)
		}
	})
	t.Run("cancelled while joining", func(t *testing.T) {
		f, s := hungSession(t, devices.RealTime)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for !joining(f, s.ID()) {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond)
			cancel()
		}()
		s.CloseWithin(ctx, 10*time.Minute)
		got := quarantineLabel(t, f)
		if !strings.HasPrefix(got, "session 1: the close was interrupted after ") || !strings.HasSuffix(got, ", before a participant retired") || strings.Contains(got, "10m") {
			t.Errorf("reason %q, want one that says the close was interrupted after the time it waited", got)
		}
	})
}

// joining reports whether session id's close has begun to join.
func joining(f *devices.Fabric, id uint64) bool {
	return len(f.Events().Events(func(e *event.Event) bool { return e.Session == id && e.Kind == oracle.EvWait })) > 0
}
