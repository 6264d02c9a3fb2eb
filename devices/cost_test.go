package devices

import (
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/memory"

	"github.com/residentlua/residentlua/devices/program"
)

// opRunner runs one operation a step on its view, each given as a
// function, and emits a tick after each: the tick of step i comes when the
// operations of the steps before it were paid for.
type opRunner struct {
	ops  []func(v *View)
	v    *View
	done int
}

func (p *opRunner) Step(env program.Env) program.Next {
	if p.done > 0 {
		env.Emit(evTick, uint64(p.done), "")
	}
	if p.done == len(p.ops) {
		return program.Retire(nil)
	}
	p.ops[p.done](p.v)
	p.done++
	return program.Continue()
}

// costs runs ops one a step on d's view of a fresh 1 KiB buffer (the NPU's
// DMA or the GPU's coherent AQL view) under timing and returns what each
// step cost: the time from one tick to the next.
func costs(t *testing.T, timing program.Timing, kind DeviceKind, ops ...func(v *View)) []time.Duration {
	t.Helper()
	f := mmFabric(t, Config{Timing: timing, Seed: 5})
	d := f.First(kind)
	c := AQL
	if kind == NPU {
		c = XDNA
	}
	b := mmAlloc(t, mmProfile(t, f, memory.FineGrained), 1024)
	p := &opRunner{ops: ops, v: mmView(t, b, d, c)}
	comp := mmDispatch(t, mmPrepare(t, d, c, p, 1, b))
	if ok, err := comp.waitFor(time.Second); !ok || err != nil {
		t.Fatalf("the program did not retire: %v %v", ok, err)
	}
	ticks := f.Events().Events(func(e *event.Event) bool { return e.Kind == evTick })
	if len(ticks) != len(ops) {
		t.Fatalf("%d ticks, want %d", len(ticks), len(ops))
	}
	start := f.Events().Events(func(e *event.Event) bool { return e.Kind == event.EvStart })[0].Time
	out := make([]time.Duration, len(ticks))
	for i, e := range ticks {
		out[i], start = e.Time-start, e.Time
	}
	return out
}

var (
	load    = func(off int) func(v *View) { return func(v *View) { v.Load(off) } }
	store   = func(off int) func(v *View) { return func(v *View) { v.Store(off, 1) } }
	readAll = func(off, words int) func(v *View) {
		return func(v *View) {
			for i := range words {
				v.Load(off + 4*i)
			}
		}
	}
	writeAll = func(off, words int) func(v *View) {
		return func(v *View) {
			for i := range words {
				v.StorePlain(off+4*i, 7)
			}
		}
	}
	drain = func(v *View) { v.Drain() }
)

// Each memory operation costs what docs/programs.md says, in simulated
// time: on the NPU a line's DMA for each line a load or read touches and
// for each line a drain writes, nothing for a store (kept pending); on the
// GPU host_to_gpu for each line a load or read touches, nothing for a
// store (posted).
func TestMemoryOperationsCostTheTimingsFigures(t *testing.T) {
	const h, dma = 3 * time.Microsecond, 5 * time.Microsecond
	timing := program.Timing{HostToGPU: h, NPUDMALine: dma}
	for _, tc := range []struct {
		name string
		kind DeviceKind
		ops  []func(v *View)
		want []time.Duration
	}{
		{"npu load, load of the same line, read of 3 lines from the middle of one", NPU,
			[]func(v *View){load(0), load(4), readAll(32, 32)}, []time.Duration{dma, dma, 3 * dma}},
		{"npu stores and writes are pending, a drain writes their lines", NPU,
			[]func(v *View){store(0), writeAll(60, 18), store(512), drain, drain}, []time.Duration{0, 0, 0, 4 * dma, 0}}, // lines 0, 1, 2 and 8
		{"gpu loads and reads cross the bus a line at a time, stores are posted", GPU,
			[]func(v *View){load(0), readAll(0, 64), store(0), writeAll(0, 64)}, []time.Duration{h, 4 * h, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := costs(t, timing, tc.kind, tc.ops...)
			for i := range tc.want {
				if got[i] != tc.want[i] {
					t.Errorf("step %d cost %v, want %v (all: %v)", i+1, got[i], tc.want[i], got)
				}
			}
		})
	}
}

// Under a Stall the figures vary, drawn from the seed: a step costs its
// figures times 1/2 to 3/2, and one in 64 is held up by up to Stall
// more, a store's included; the same seed draws the same.
func TestStallDrawsEachStepsCostWithinItsBounds(t *testing.T) {
	const dma, stall = 4 * time.Microsecond, 10 * time.Microsecond
	timing := program.Timing{NPUDMALine: dma, Stall: stall}
	ops := make([]func(v *View), 6400)
	for i := range ops {
		if i%2 == 0 {
			ops[i] = load(0)
		} else {
			ops[i] = store(0)
		}
	}
	got := costs(t, timing, NPU, ops...)
	distinct, stalls := map[time.Duration]bool{}, 0
	for i, d := range got {
		lo, hi := dma/2, dma*3/2
		if i%2 == 1 {
			lo, hi = 0, 0
		}
		if d < lo || d > hi+stall {
			t.Errorf("step %d cost %v, outside [%v, %v]", i+1, d, lo, hi+stall)
		}
		if d > hi {
			stalls++
		}
		distinct[d] = true
	}
	if len(distinct) < 100 {
		t.Errorf("%d distinct costs of %d steps: the jitter hardly varies them", len(distinct), len(got))
	}
	if stalls < len(got)/64/3 || stalls > len(got)/64*3 {
		t.Errorf("%d of %d steps stalled, want about one in 64", stalls, len(got))
	}
	if again := costs(t, timing, NPU, ops...); !equalDurations(again, got) {
		t.Error("the same seed drew other costs")
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// In real time too the operations cost their figures: a device's step
// after a read of two lines comes no sooner than two lines' DMA after it,
// and a drain's line passes before its next step.
func TestMemoryOperationsCostTheirFiguresInRealTime(t *testing.T) {
	const dma = 300 * time.Microsecond
	f := mmFabric(t, Config{Mode: RealTime, Timing: program.Timing{NPUDMALine: dma}})
	d := f.First(NPU)
	b := mmAlloc(t, mmProfile(t, f, memory.FineGrained), 1024)
	p := &opRunner{ops: []func(v *View){readAll(0, 32), store(0), drain}, v: mmView(t, b, d, XDNA)}
	comp := mmDispatch(t, mmPrepare(t, d, XDNA, p, 1, b))
	if ok, err := comp.waitFor(time.Minute); !ok || err != nil {
		t.Fatalf("the program did not retire: %v %v", ok, err)
	}
	at := func(kind program.EventKind) []time.Duration {
		var out []time.Duration
		for _, e := range f.Events().Events(func(e *event.Event) bool { return e.Kind == kind && e.Actor == d.Actor() }) {
			out = append(out, e.Time)
		}
		return out
	}
	start, ticks := at(event.EvStart), at(evTick)
	if len(start) != 1 || len(ticks) != 3 {
		t.Fatalf("start %v, ticks %v: want one start, three ticks", start, ticks)
	}
	if ticks[0]-start[0] < 2*dma || ticks[2]-ticks[1] < dma {
		t.Errorf("start %v, ticks %v: the read's two lines (%v) or the drain's line (%v) did not pass before the next step", start[0], ticks, 2*dma, dma)
	}
}
