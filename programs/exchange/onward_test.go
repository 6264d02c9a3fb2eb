package exchange

import (
	"slices"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// stepEnv is an environment that says whether the executor interleaves
// and counts the events a Step emits.
type stepEnv struct {
	interleaved bool
	events      int
}

func (e *stepEnv) Now() time.Duration                     { return 0 }
func (e *stepEnv) Timing() program.Timing                 { return program.Timing{} }
func (e *stepEnv) Emit(program.EventKind, uint64, string) { e.events++ }
func (e *stepEnv) Fault(fault.Site) fault.Fired           { return fault.Fired{} }
func (e *stepEnv) Ring()                                  {}
func (e *stepEnv) ResetError() error                      { return nil }
func (e *stepEnv) DeviceName() string                     { return "test" }
func (e *stepEnv) Interleaved() bool                      { return e.interleaved }

// stepByHand prepares an exchange of cfg on a simulated fabric, publishes
// RUN, and steps both halves by hand in env until both retire (stepHalves).
// It returns how many Steps that took, what each Step that went on through
// several steps answered, and the exchange's verification.
func stepByHand(t *testing.T, cfg Config, env *stepEnv) (steps int, answers []program.Next, v Verification) {
	t.Helper()
	x := preparedByHand(t, fabricByHand(t, devices.Simulated), cfg)
	steps = stepHalves(t, x, env, func(n program.Next) { answers = append(answers, n) })
	return steps, answers, x.Verify()
}

// fabricByHand is a fabric of mode for stepping halves by hand, closed
// when tb ends.
func fabricByHand(tb testing.TB, mode devices.Mode) *devices.Fabric {
	tb.Helper()
	f, err := devices.NewFabric(devices.Config{Mode: mode, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

// preparedByHand prepares an exchange of cfg on f and publishes RUN to
// both halves, which nothing dispatches: the caller steps them.
func preparedByHand(tb testing.TB, f *devices.Fabric, cfg Config) *Exchange {
	tb.Helper()
	g, n := f.First(devices.GPU), f.First(devices.NPU)
	profiles, err := f.AllocationProfiles([]*devices.Device{g, n}, true)
	if err != nil {
		tb.Fatal(err)
	}
	line, err := profiles[0].Allocate(64, nil, 1)
	if err != nil {
		tb.Fatal(err)
	}
	x, err := Prepare(line, g, n, cfg, 1)
	if err != nil {
		tb.Fatal(err)
	}
	release, err := line.PrepareHostRelease(n, slices.Collect(n.Families())[0], 0, 64)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := line.Publish(event.Event{}, 0, program.StartupRun, []*devices.Publication{release}); err != nil {
		tb.Fatal(err)
	}
	return x
}

// stepHalves steps both halves of x in env until both retire, stepping a
// half that waits for a word only once the word changed, and returns how
// many Steps that took. answered, unless nil, is given what each Step that
// emitted no event answered.
func stepHalves(tb testing.TB, x *Exchange, env *stepEnv, answered func(program.Next)) (steps int) {
	tb.Helper()
	halves := []program.Program{x.GPU().Program(), x.NPU().Program()}
	var next [2]program.Next
	var retired [2]bool
	for !retired[0] || !retired[1] {
		stepped := false
		for i, h := range halves {
			if retired[i] {
				continue
			}
			if next[i].Kind() == program.NextWaitWord {
				if view, off, old := next[i].Word(); view.Load(off) == old {
					continue
				}
			}
			env.events = 0
			next[i] = h.Step(env)
			steps, stepped = steps+1, true
			if env.events == 0 && answered != nil {
				answered(next[i])
			}
			if next[i].Kind() == program.NextRetire {
				if err := next[i].Err(); err != nil {
					tb.Fatalf("half %d retired with %v", i, err)
				}
				retired[i] = true
			}
		}
		if !stepped {
			tb.Fatal("both halves wait for words that do not change")
		}
	}
	return steps
}

// Where the executor does not interleave (real time), each half goes on
// within one Step through the steps that go on at once, and returns only
// to wait, sleep, retire or after a step that emitted an event: the same
// exchange, verified, in far fewer Steps than the interleaved one, which
// returns at every memory operation.
func TestHalvesGoOnWhereTheExecutorDoesNotInterleave(t *testing.T) {
	cfg := Config{Rounds: 8, Credits: 2, SlotBytes: 16, GPUQueue: devices.AQL}
	interleaved, _, v := stepByHand(t, cfg, &stepEnv{interleaved: true})
	if !v.OK {
		t.Fatalf("the interleaved exchange did not verify: %s", v.Problem)
	}
	onward, answers, v := stepByHand(t, cfg, &stepEnv{})
	if !v.OK {
		t.Fatalf("the exchange that goes on did not verify: %s", v.Problem)
	}
	if onward*2 > interleaved {
		t.Errorf("going on took %d Steps, the interleaved exchange %d: want at most half", onward, interleaved)
	}
	for _, n := range answers {
		if n.GoesOn() {
			t.Fatalf("a Step that emitted no event returned %v, which goes on at once: it should have gone on", n.Kind())
		}
	}
}
