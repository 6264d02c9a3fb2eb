package exchange

import (
	"slices"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
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
// RUN, and steps both halves by hand in env until both retire, stepping a
// half that waits for a word only once the word changed. It returns how
// many Steps that took, what each Step that went on through several steps
// answered, and the exchange's verification.
func stepByHand(t *testing.T, cfg Config, env *stepEnv) (steps int, answers []program.Next, v Verification) {
	t.Helper()
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, n := f.First(devices.GPU), f.First(devices.NPU)
	profiles, err := f.AllocationProfiles([]*devices.Device{g, n}, true)
	if err != nil {
		t.Fatal(err)
	}
	line, err := profiles[0].Allocate(64, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	x, err := Prepare(line, g, n, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	release, err := line.PrepareHostRelease(n, slices.Collect(n.Families())[0], 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	line.HostStore(0, program.StartupRun)
	if err := release.Execute(); err != nil {
		t.Fatal(err)
	}
	halves := []devices.Program{x.GPU().Program(), x.NPU().Program()}
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
			if env.events == 0 {
				answers = append(answers, next[i])
			}
			if next[i].Kind() == program.NextRetire {
				if err := next[i].Err(); err != nil {
					t.Fatalf("half %d retired with %v", i, err)
				}
				retired[i] = true
			}
		}
		if !stepped {
			t.Fatal("both halves wait for words that do not change")
		}
	}
	return steps, answers, x.Verify()
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
