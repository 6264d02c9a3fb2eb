package devices

import (
	"errors"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"

	"github.com/residentlua/residentlua/devices/program"
)

// BenchmarkEmit is one event into a simulated fabric's stream with a
// subscriber: the stream's lock, the ring write, the digest and the call.
func BenchmarkEmit(b *testing.B) {
	f := mmFabric(b, Config{Mode: Simulated, Seed: 1, EventCapacity: 64})
	seen := 0
	cancel := f.Events().Subscribe(func(*event.Event) { seen++ })
	defer cancel()
	b.ReportAllocs()
	for range b.N {
		f.Events().Emit(event.HostActor, 1, event.EvHostStore, 2, 3, "")
	}
	if seen != b.N {
		b.Fatalf("the subscriber saw %d events of %d", seen, b.N)
	}
}

// BenchmarkRefusedDispatch is a dispatch refused because the device is
// occupied, which a fault campaign's trials meet by the thousand: its
// error and its event.
func BenchmarkRefusedDispatch(b *testing.B) {
	f := mmFabric(b, Config{Mode: Simulated, Seed: 1})
	gpu := f.First(GPU)
	hung(b, gpu)
	again := mmPrepare(b, gpu, AQL, &mmProgram{step: func(program.Env) program.Next { return program.Retire(nil) }}, 1)
	b.ReportAllocs()
	for range b.N {
		if _, err := again.Dispatch(); !errors.Is(err, failure.Busy) {
			b.Fatalf("dispatch on an occupied device returned %v, want a busy error", err)
		}
	}
}

// BenchmarkRealTimeStep is the real-time executor's cost of one step that
// goes on at once, as each memory operation of a program is: one device
// runs a program of b.N such steps, then retires.
func BenchmarkRealTimeStep(b *testing.B) {
	f := mmFabric(b, Config{Mode: RealTime})
	left := b.N
	prog := &mmProgram{step: func(program.Env) program.Next {
		if left--; left <= 0 {
			return program.Retire(nil)
		}
		return program.Continue()
	}}
	pp := mmPrepare(b, f.First(GPU), AQL, prog, 1)
	b.ResetTimer()
	c := mmDispatch(b, pp)
	if ok, err := c.waitFor(time.Minute); !ok || err != nil {
		b.Fatalf("the program did not retire: ok=%v err=%v", ok, err)
	}
}
