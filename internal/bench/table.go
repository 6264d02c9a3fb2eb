package bench

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/devices/wait"
)

// Options size a run of every figure.
type Options struct {
	Short bool // a quick run, for CI: fewer repetitions, smaller counts
	// Wait lists the wait policies that the real-time publication and
	// exchange figures run under, a pair of figures for each; empty: the
	// default (hybrid) alone. Spin needs a core per device and one for the
	// host (wait.Spin).
	Wait []wait.Policy
	// Only lists the groups of figures to measure (Groups); empty: every
	// one. The raw round trip, the baseline of the wait figures, is
	// always measured.
	Only []string
}

// Groups names the groups of figures of the simulated GPU's table, in its
// order, for Options.Only.
func Groups() []string {
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.name
	}
	return names
}

// group is a step of the table: a name and the figures it measures.
type group struct {
	name    string
	measure func(sizes) ([]Figure, error)
}

// one makes a group's measure of a function that measures one figure.
func one(figure func(sizes) (Figure, error)) func(sizes) ([]Figure, error) {
	return func(z sizes) ([]Figure, error) { f, err := figure(z); return []Figure{f}, err }
}

// groups are the table's steps after the wait figures (which Run measures
// first, beside the raw round trip).
var groups = []group{
	{"wait", nil},
	{"lua", one(luaFigure)},
	{"trials", one(trialFigure)},
	{"ceiling", ceilingFigures},
	{"scaling", one(parallelFigure)},
	{"check", checkFigures},
	{"script", one(scriptFigure)},
	{"program", one(programFigure)},
	{"model", one(modelFigure)},
	{"memory", one(memoryFigure)},
	{"sessions", one(sessionsFigure)},
}

// Validate reports an error naming a group in o.Only that is not a
// group, so that a command can refuse it before it measures anything.
func (o Options) Validate() error {
	_, err := o.selected()
	return err
}

// selected reports which groups o.Only asks for, or an error naming one
// that is not a group.
func (o Options) selected() (map[string]bool, error) {
	want := map[string]bool{}
	for _, g := range groups {
		want[g.name] = len(o.Only) == 0
	}
	for _, name := range o.Only {
		if _, ok := want[name]; !ok {
			return nil, failure.Errorf(failure.Invalid, "bench", "no group of figures is named %q; the groups are %s", name, strings.Join(Groups(), ", "))
		}
		want[name] = true
	}
	return want, nil
}

type sizes struct {
	repeats, publications, exchangeRounds, rawRounds, luaLifecycles, trials, memoryTotal int
	sessionsFor                                                                          time.Duration
	checkFor                                                                             time.Duration // each search of checkFigures
}

func (o Options) sizes() sizes {
	if o.Short {
		return sizes{repeats: 3, publications: 20, exchangeRounds: 200, rawRounds: 2_000, luaLifecycles: 200, trials: 200, memoryTotal: 3_000, sessionsFor: 100 * time.Millisecond, checkFor: 100 * time.Millisecond}
	}
	return sizes{repeats: 7, publications: 300, exchangeRounds: 5_000, rawRounds: 200_000, luaLifecycles: 5_000, trials: 100_000, memoryTotal: 100_000, sessionsFor: time.Second, checkFor: 3 * time.Second}
}

// Run measures every figure (or the groups o.Only names) and returns the
// table, in order.
func Run(o Options) ([]Figure, error) {
	want, err := o.selected()
	if err != nil {
		return nil, err
	}
	z := o.sizes()
	raw := repeat(z.repeats, func() (float64, error) { return micros(RawRoundTrip(z.rawRounds)), nil })
	oneLine := repeat(z.repeats, func() (float64, error) { return micros(RawRoundTripOneLine(z.rawRounds)), nil })
	figures := []Figure{goalFigure("raw round trip, one line for both words", oneLine, raw, "raw round trip", goal{})}
	waits := o.Wait
	if len(waits) == 0 {
		waits = []wait.Policy{wait.Hybrid}
	}
	// A policy this machine cannot run (spin on too few cores) leaves out
	// its figures, not the rest of the table: its error comes at the end.
	var waitErrs []error
	for _, w := range waits {
		if !want["wait"] {
			break
		}
		wf, err := waitFigures(w, z, raw, len(waits) > 1 || w != wait.Hybrid)
		if err != nil {
			waitErrs = append(waitErrs, fmt.Errorf("wait %s: %w", w, err))
			continue
		}
		figures = append(figures, wf...)
	}
	for _, g := range groups {
		if g.measure == nil || !want[g.name] {
			continue
		}
		f, err := g.measure(z)
		if err != nil {
			return figures, err
		}
		figures = append(figures, f...)
	}
	return figures, errors.Join(waitErrs...)
}

// repeatErr measures fn n times, stopping at the first error.
func repeatErr(n int, fn func() (float64, error)) (Sample, error) {
	values := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		v, err := fn()
		if err != nil {
			return Sample{}, err
		}
		values = append(values, v)
	}
	return Summarise(values), nil
}

// repeat is repeatErr for measurements that cannot fail.
func repeat(n int, fn func() (float64, error)) Sample {
	s, _ := repeatErr(n, fn)
	return s
}

func ratioFigure(name, unit string, value, baseline Sample, baselineName, goal string, limit float64) Figure {
	f := Figure{Name: name, Unit: unit, Value: value}
	r := value.Median / baseline.Median
	f.compare(baseline, baselineName, r, goal, r <= limit)
	return f
}

// goal is a figure's goal: a ratio to its baseline, in words and as a
// number; a zero limit means the figure is only reported.
type goal struct {
	text  string
	limit float64
}

// Goals of the publication and exchange figures by wait policy: hybrid's
// are the table's first goals, spin's those of a device that polls on its
// own core; block's figures are reported.
var (
	publicationGoals = map[wait.Policy]goal{wait.Hybrid: {"≤ 2×", 2}, wait.Spin: {"≤ 3×", 3}}
	exchangeGoals    = map[wait.Policy]goal{wait.Hybrid: {"≤ 1.5×", 1.5}, wait.Spin: {"≤ 2×", 2}}
)

// waitFigures measures publication latency and the exchange round trip on
// a real-time fabric of wait policy w, against the raw round trip, and the
// processor time the process spent per session of the publication runs
// (every thread's, user and system): what the policy's latency costs.
// named says to name the policy in the figures' names.
func waitFigures(w wait.Policy, z sizes, raw Sample, named bool) ([]Figure, error) {
	rt, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Wait: w})
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	suffix := ""
	if named {
		suffix = " (wait " + w.String() + ")"
	}
	before := processTime()
	start := time.Now()
	pub, err := publicationFigure(rt, z, raw, suffix, publicationGoals[w])
	if err != nil {
		return nil, err
	}
	cpu, wall := processTime()-before, time.Since(start)
	perSession := micros(cpu) / float64(z.publications)
	cost := Figure{Name: "processor time per session" + suffix, Unit: "µs", Value: Sample{Median: perSession, Low: perSession, High: perSession, N: 1},
		Ratio: float64(cpu) / float64(wall), Goal: "report (ratio: cores busy)"}
	exch, err := exchangeFigure(rt, z, raw, suffix, exchangeGoals[w])
	return []Figure{pub, exch, cost}, err
}

// processTime is the processor time the process has used, every thread's,
// user and system.
func processTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// goalFigure compares value with baseline against g, or only reports the
// ratio when g has no limit.
func goalFigure(name string, value, baseline Sample, baselineName string, g goal) Figure {
	if g.limit == 0 {
		f := Figure{Name: name, Unit: "µs", Value: value, Goal: "report"}
		f.Baseline, f.BaselineName, f.Ratio = &baseline, baselineName, value.Median/baseline.Median
		return f
	}
	return ratioFigure(name, "µs", value, baseline, baselineName, g.text, g.limit)
}

func publicationFigure(rt *devices.Fabric, z sizes, raw Sample, suffix string, g goal) (Figure, error) {
	v, err := repeatErr(z.publications, func() (float64, error) {
		d, err := PublicationLatency(rt)
		return micros(d), err
	})
	return goalFigure("publication latency"+suffix, v, raw, "raw round trip", g), err
}

func exchangeFigure(rt *devices.Fabric, z sizes, raw Sample, suffix string, g goal) (Figure, error) {
	v, err := repeatErr(z.repeats, func() (float64, error) {
		d, err := ExchangeRoundTrip(rt, z.exchangeRounds)
		return micros(d), err
	})
	return goalFigure("exchange round trip"+suffix, v, raw, "raw round trip", g), err
}

func luaFigure(z sizes) (Figure, error) {
	var fromLua, fromGo []float64
	for i := 0; i < z.repeats; i++ {
		l, g, err := LuaOverhead(z.luaLifecycles)
		if err != nil {
			return Figure{}, err
		}
		fromLua, fromGo = append(fromLua, micros(l)), append(fromGo, micros(g))
	}
	return ratioFigure("Lua overhead (sim lifecycle)", "µs", Summarise(fromLua), Summarise(fromGo), "same lifecycle from Go", "≤ 1.25×", 1.25), nil
}

// trialFigure is the campaign's rate on one core: built-in trials per
// second on one worker, as residentlua campaign runs them, on one core
// (OnOneCore).
func trialFigure(z sizes) (Figure, error) {
	v, err := repeatErr(z.repeats, func() (float64, error) {
		return OnOneCore(func() (float64, error) { return RunBuiltinTrials(z.trials/z.repeats+1, 1) })
	})
	f := Figure{Name: "built-in trials, one core", Unit: "trials/s", Value: v, Goal: "≥ 20,000 trials/s"}
	met := v.Median >= 20_000
	f.Met = &met
	return f, err
}

// parallelFigure is the campaign's speed-up with all cores: built-in trials
// per second on Workers() workers against one worker.
func parallelFigure(z sizes) (Figure, error) {
	return speedupFigure(z, "built-in trials", 0.8, RunBuiltinTrials)
}

// ceilingFigures are the machine's own speed-up with all cores on work
// that shares nothing: loops of arithmetic in registers (SpinWork), on
// Workers() goroutines against one, with no memory, lock or allocation.
// Two kinds, because a machine's cores can share more than they seem to:
// one dependency chain waits on each result (latency-bound) and leaves
// the core's execution ports mostly idle, so it scales even where
// hardware threads share a core; four independent chains keep the ports
// busy (port-bound), as compiled code such as a trial does, and scale
// only as far as the cores are really the process's own: the fairer
// ceiling for a campaign (docs/performance.md compares them).
func ceilingFigures(z sizes) ([]Figure, error) {
	var out []Figure
	for _, chains := range []int{1, 4} {
		name := "CPU-bound loop, 1 dependency chain (ceiling)"
		if chains > 1 {
			name = fmt.Sprintf("CPU-bound loop, %d independent chains (ceiling)", chains)
		}
		f, err := speedupFigure(z, name, 0, func(n, workers int) (float64, error) {
			return SpinWork(n, workers, chains), nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// SpinWork runs n units of register-only arithmetic (10–30 µs each) on
// workers goroutines and returns the units per second: each unit runs
// xorshift steps in one dependency chain, or in four independent ones
// (any chains above 1) that a core can run side by side.
func SpinWork(n, workers, chains int) float64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	sums := make([]struct {
		v uint64
		_ [56]byte // a cache line each: the workers share nothing
	}, workers)
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, b, c, d := uint64(w+1), uint64(w+3), uint64(w+5), uint64(w+7)
			for next.Add(1) <= int64(n) {
				if chains == 1 {
					for range 20_000 {
						a = xorshift(a)
					}
					continue
				}
				for range 12_000 {
					a, b, c, d = xorshift(a), xorshift(b), xorshift(c), xorshift(d)
				}
			}
			sums[w].v = a ^ b ^ c ^ d
		}()
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

func xorshift(x uint64) uint64 {
	x ^= x << 13
	x ^= x >> 7
	return x ^ x<<17
}

// speedupFigure measures trials per second on Workers() workers against
// one worker on one core (the baseline column, OnOneCore), each worker
// running as many trials as the one worker does, so that both runs last
// about as long on a machine that scales; the goal is factor × cores, or
// none for a factor of 0.
func speedupFigure(z sizes, what string, factor float64, run func(n, workers int) (float64, error)) (Figure, error) {
	n := z.trials/z.repeats + 1
	var one, many []float64
	for i := 0; i < z.repeats; i++ {
		a, err := OnOneCore(func() (float64, error) { return run(n, 1) })
		if err != nil {
			return Figure{}, err
		}
		b, err := run(n*Workers(), Workers())
		if err != nil {
			return Figure{}, err
		}
		one, many = append(one, a), append(many, b)
	}
	v, base := Summarise(many), Summarise(one)
	f := Figure{Name: fmt.Sprintf("%s, %d workers", what, Workers()), Unit: "trials/s", Value: v}
	r := v.Median / base.Median
	if factor == 0 {
		f.Unit, f.Baseline, f.BaselineName, f.Ratio, f.Goal = "units/s", &base, "one worker", r, "report"
		return f, nil
	}
	goal := factor * float64(Workers())
	f.compare(base, "one worker", r, fmt.Sprintf("≥ %.1f× (%.1f × cores)", goal, factor), r >= goal)
	return f, nil
}

func modelFigure(z sizes) (Figure, error) {
	cfg := devices.Config{Timing: timing.Published()}
	// The figures exactly, without the published stalls: the real run and
	// the simulated one draw theirs from other seeds, and the ratio is of
	// the tool's overhead, not of two draws.
	cfg.Timing.Stall = 0
	cfg.Mode = devices.RealTime
	real, err := devices.NewFabric(cfg)
	if err != nil {
		return Figure{}, err
	}
	defer real.Close()
	cfg.Mode, cfg.Seed = devices.Simulated, 1
	sim, err := devices.NewFabric(cfg)
	if err != nil {
		return Figure{}, err
	}
	defer sim.Close()
	var reals, modeled []float64
	for i := 0; i < z.repeats*3; i++ {
		r, m, err := ModelOverhead(real, sim, 10)
		if err != nil {
			return Figure{}, err
		}
		reals, modeled = append(reals, micros(r)), append(modeled, micros(m))
	}
	return ratioFigure("model overhead (published, rounds 10)", "µs", Summarise(reals), Summarise(modeled), "modeled minimum", "≤ 1.10×", 1.10), nil
}

func memoryFigure(z sizes) (Figure, error) {
	first := z.memoryTotal / 100
	a, b, warm, err := ResidentAfterSessions(first, z.memoryTotal)
	if err != nil {
		return Figure{}, err
	}
	mib := func(n int64) Sample { v := float64(n) / (1 << 20); return Sample{Median: v, Low: v, High: v, N: 1} }
	return ratioFigure(fmt.Sprintf("resident memory after %d sessions", z.memoryTotal), "MiB", mib(b), mib(a), fmt.Sprintf("after %d; both past %d that fill the event ring", first, warm), "≤ 1.10×", 1.10), nil
}

func sessionsFigure(z sizes) (Figure, error) {
	rt, err := devices.NewFabric(devices.Config{Mode: devices.RealTime})
	if err != nil {
		return Figure{}, err
	}
	defer rt.Close()
	v, err := repeatErr(z.repeats, func() (float64, error) { return SessionsPerSecond(rt, z.sessionsFor/time.Duration(z.repeats)) })
	return Figure{Name: "real-time sessions (rounds 1, ideal)", Unit: "sessions/s", Value: v, Goal: "report"}, err
}
