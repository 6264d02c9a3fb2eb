package devices

import (
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/wait"

	"github.com/residentlua/residentlua/devices/program"
)

// A device resumes at a latency's deadline when it noticed the deadline
// within wakeSlack, and at the moment it noticed otherwise: it never
// catches up on the model's latencies by skipping them.
func TestResumeAtTheDeadlineUnlessHeldUp(t *testing.T) {
	const d = 100 * time.Microsecond
	for _, tc := range []struct {
		now, want time.Duration
	}{
		{d, d},
		{d + 40*time.Nanosecond, d},
		{d + wakeSlack, d},
		{d + wakeSlack + 1, d + wakeSlack + 1},
		{d + time.Millisecond, d + time.Millisecond},
	} {
		if got := resumeAt(d, tc.now); got != tc.want {
			t.Errorf("resumeAt(%v, %v) = %v, want %v", d, tc.now, got, tc.want)
		}
	}
}

// napper emits a tick, goes on at once, emits a second tick and sleeps
// nap, rounds times, then retires: each round is one burst.
type napper struct {
	rounds, done int
	nap          time.Duration
	next         uint64
}

func (p *napper) Step(env program.Env) program.Next {
	if p.done == p.rounds {
		return program.Retire(nil)
	}
	p.next++
	env.Emit(evTick, p.next, "")
	if p.next%2 == 1 {
		return program.Continue()
	}
	p.done++
	return program.Sleep(p.nap)
}

// With a timing profile, a real-time device keeps the model's instants as
// simulated time does: the steps of a burst are one instant, and the burst
// after a latency begins at the latency's end, never sooner, and exactly
// there whenever the device noticed it within wakeSlack. On a loaded
// machine a device may notice late; across many rounds, some must end
// exactly on the model's time, except under wait.Block, whose timers fire
// up to a timerSlack late and so always begin the next burst when they do.
func TestTimedRealTimeDeviceKeepsTheModelsInstants(t *testing.T) {
	const nap = 20 * time.Microsecond
	for _, w := range wait.Policies() {
		t.Run(w.String(), func(t *testing.T) {
			// Many rounds where a round is a nap (20 ms in all), so that
			// a loaded machine still wakes some within wakeSlack; under
			// block a round is a timer's millisecond, and fewer suffice.
			rounds := 1000
			if w == wait.Block {
				rounds = 50
			}
			f := mmFabric(t, Config{Mode: RealTime, Wait: w, Timing: program.Timing{Completion: time.Microsecond}})
			c := mmDispatch(t, mmPrepare(t, f.First(GPU), AQL, &napper{rounds: rounds, nap: nap}, 7))
			if ok, err := c.waitFor(time.Minute); !ok || err != nil {
				t.Fatalf("napper did not retire: ok=%v err=%v", ok, err)
			}
			ticks := f.Events().Events(func(e *event.Event) bool { return e.A != 0 && e.Kind == evTick })
			if len(ticks) != 2*rounds {
				t.Fatalf("%d ticks, want %d", len(ticks), 2*rounds)
			}
			exact := 0
			for i := 0; i < len(ticks); i += 2 {
				if ticks[i].Time != ticks[i+1].Time {
					t.Fatalf("ticks %d and %d of one burst at %v and %v, want one instant", ticks[i].B, ticks[i+1].B, ticks[i].Time, ticks[i+1].Time)
				}
				if i == 0 {
					continue
				}
				gap := ticks[i].Time - ticks[i-1].Time
				if gap < nap {
					t.Fatalf("tick %d came %v after the burst before it, which slept %v", ticks[i].B, gap, nap)
				}
				if gap == nap {
					exact++
				}
			}
			if exact == 0 && w != wait.Block {
				t.Errorf("no burst of %d began at the end of the latency before it: the device does not resume at the model's instants", rounds-1)
			}
		})
	}
}
