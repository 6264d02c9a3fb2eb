package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/programs/exchange"
)

func TestZZScratch(t *testing.T) {
	for _, stall := range []time.Duration{0, 10 * time.Microsecond} {
		tm := devices.PublishedTiming()
		tm.Stall = stall
		f, _ := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1, Timing: tm})
		s, err := Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(exchange.Default()))
		if err != nil {
			t.Fatal(err)
		}
		s.SubmitGPU(); s.SubmitNPU(); s.Start(); s.Wait(time.Second); s.Close()
		for _, e := range f.Events().Events(nil) {
			if e.Actor != devices.HostActor {
				fmt.Println(stall, e.Time, f.ActorName(e.Actor), e.Kind, e.A, e.B)
			}
		}
	}
}
