package engine

// Simulated time is reproducible: the same seed and the
// same host operations give the same events, byte for byte, faults
// included; and the seed is what decides probabilistic faults.

import (
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// probabilisticFaults are fault chains that draw from the fabric's generator at
// every site that takes one.
var probabilisticFaults = map[fault.Site]string{
	fault.GPUDispatch:       "15%error(x)->20%delay(4us)",
	fault.NPUDispatch:       "10%error(y)->20%delay(7us)",
	fault.GPURun:            "3%crash(c)->3%hang->30%delay(3us)",
	fault.NPURun:            "3%crash(d)->30%delay(3us)->2%ignore_abort",
	exchange.NPUDrain:       "3%skip",
	fault.GPUComplete:       "5%error(g)",
	fault.NPUComplete:       "5%error(n)",
	fault.HostPublish:       "3%skip->3%error(p)",
	fault.MemoryAlloc:       "3%error(m)",
	exchange.PayloadCorrupt: "5%flip",
}

// runRecord is what one scripted run produced.
type runRecord struct {
	digest   uint64
	count    uint64
	events   []string
	outcomes []string
	oracle   []string
	faults   int // fault events that fired
}

// recordScript makes a simulated fabric with seed and published timing, installs
// faults, and runs a fixed sequence of host operations over several
// sessions of different shapes: submit (in an order fixed by the session's
// index), start or abort, wait, close, and reset the devices after a
// quarantine.
func recordScript(t *testing.T, seed uint64, faults map[fault.Site]string) runRecord {
	t.Helper()
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: seed, Timing: timing.Published(), EventCapacity: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Seed() != seed {
		t.Fatalf("Seed() = %d, want %d", f.Seed(), seed)
	}
	o := oracle.New(f)
	defer o.Stop()
	for _, site := range fault.Sites() {
		if term, ok := faults[site]; ok {
			if err := f.Faults().Set(site, term); err != nil {
				t.Fatalf("Set(%v, %q): %v", site, term, err)
			}
		}
	}
	gpu, npu := f.First(devices.GPU), f.First(devices.NPU)
	var rec runRecord
	for i := range 12 {
		cfg := exchangeConfig(1+i*3, 1+i%4, 8<<(i%5), []devices.Command{devices.PM4, devices.AQL}[i%2])
		var steps []string
		s, err := newExchangeSession(gpu, npu, cfg)
		steps = append(steps, "new="+errWord(err))
		if err != nil {
			rec.outcomes = append(rec.outcomes, outcomeLine(i, nil, steps))
			continue
		}
		first, second := s.SubmitGPU, s.SubmitNPU
		if i%3 == 1 {
			first, second = second, first
		}
		e1 := first()
		e2 := second()
		steps = append(steps, "submit="+errWord(e1)+","+errWord(e2))
		if i%5 == 4 {
			steps = append(steps, "abort="+errWord(s.Abort()))
		} else {
			steps = append(steps, "start="+errWord(s.Start()))
		}
		if s.Decision() != 0 {
			ok, err := s.Wait(time.Duration(1+i%3) * 10 * time.Millisecond)
			steps = append(steps, "wait="+map[bool]string{true: "done", false: "open"}[ok]+"/"+errWord(err))
		}
		out := s.CloseWithin(t.Context(), 20*time.Millisecond)
		steps = append(steps, "close="+out.String(), "state="+s.State().String())
		rec.outcomes = append(rec.outcomes, outcomeLine(i, s, steps))
		if out == Quarantined {
			gpu.Reset()
			npu.Reset()
		}
		// Let the (virtual) clock run between sessions.
		f.Advance(time.Duration(i) * time.Microsecond)
	}
	if st := f.Budget().State(); st.Charged != 0 {
		t.Errorf("seed %d: %d bytes still charged after the script", seed, st.Charged)
	}
	for _, v := range o.Violations() {
		rec.oracle = append(rec.oracle, v.Error())
	}
	rec.digest = f.Events().Digest()
	rec.count = f.Events().Count()
	all := f.Events().Events(nil)
	rec.events = formatEvents(f, all)
	for _, e := range all {
		if e.Kind == event.EvFault {
			rec.faults++
		}
	}
	if uint64(len(rec.events)) != rec.count {
		t.Fatalf("the stream kept %d of %d events; raise EventCapacity", len(rec.events), rec.count)
	}
	return rec
}

// wantSameRecord requires that two records are identical.
func wantSameRecord(t *testing.T, what string, a, b runRecord) {
	t.Helper()
	if i := firstDiff(a.events, b.events); i >= 0 {
		get := func(evs []string) string {
			if i < len(evs) {
				return evs[i]
			}
			return "(end)"
		}
		t.Errorf("%s: the event streams differ at event %d:\n  first:  %s\n  second: %s", what, i+1, get(a.events), get(b.events))
	}
	if a.digest != b.digest || a.count != b.count {
		t.Errorf("%s: digests %#x (%d events) and %#x (%d events) differ", what, a.digest, a.count, b.digest, b.count)
	}
	if i := firstDiff(a.outcomes, b.outcomes); i >= 0 {
		t.Errorf("%s: outcomes differ:\n  %s\n  %s", what, strings.Join(a.outcomes, "\n  "), strings.Join(b.outcomes, "\n  "))
	}
}

// TestDeterminismSameSeedSameEvents: two runs of the same script with the
// same seed give byte-identical event streams and the same outcomes, with
// no faults and with probabilistic faults at every site.
func TestDeterminismSameSeedSameEvents(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		faults map[fault.Site]string
	}{
		{"no faults", nil},
		{"probabilistic delays", map[fault.Site]string{fault.NPURun: "30%delay(3us)", fault.GPURun: "30%delay(2us)", fault.GPUDispatch: "50%delay(5us)"}},
		{"probabilistic faults everywhere", probabilisticFaults},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, seed := range []uint64{1, 424242, 1 << 40} {
				a := recordScript(t, seed, c.faults)
				b := recordScript(t, seed, c.faults)
				wantSameRecord(t, "same seed "+c.name, a, b)
				if a.count < 100 {
					t.Errorf("seed %d: only %d events; the script did too little to compare", seed, a.count)
				}
				for _, v := range append(a.oracle, b.oracle...) {
					t.Errorf("seed %d: oracle: %s", seed, v)
				}
				if (a.faults == 0) != (c.faults == nil) {
					t.Errorf("seed %d: %d faults fired with chains %v", seed, a.faults, c.faults)
				}
				if c.faults == nil {
					for _, o := range a.outcomes {
						if !strings.Contains(o, "close=retired") {
							t.Errorf("seed %d without faults: %s, want every session retired", seed, o)
						}
					}
				}
			}
		})
	}
}

// TestDeterminismSeedDecidesFaults: with probabilistic faults, different
// seeds give different runs (streams and outcomes), and a seed replays its
// own run.
func TestDeterminismSeedDecidesFaults(t *testing.T) {
	t.Parallel()
	const seeds = 20
	var digests []uint64
	var outcomes []string
	byDigest := map[uint64]runRecord{}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := recordScript(t, seed*7919, probabilisticFaults)
		for _, v := range r.oracle {
			t.Errorf("seed %d: oracle: %s", seed*7919, v)
		}
		digests = append(digests, r.digest)
		outcomes = append(outcomes, strings.Join(r.outcomes, "\n"))
		byDigest[r.digest] = r
	}
	if n := distinct(digests); n < 2 {
		t.Errorf("%d seeds gave %d distinct event digests, want several", seeds, n)
	}
	if n := distinct(outcomes); n < 2 {
		t.Errorf("%d seeds gave %d distinct outcome sets, want several", seeds, n)
	}
	// Replaying the first and the last seed gives their runs again.
	for _, seed := range []uint64{1, seeds} {
		r := recordScript(t, seed*7919, probabilisticFaults)
		if want, ok := byDigest[digests[seed-1]]; !ok || r.digest != digests[seed-1] {
			t.Errorf("seed %d replayed to digest %#x, want %#x", seed*7919, r.digest, digests[seed-1])
		} else {
			wantSameRecord(t, "replay", want, r)
		}
	}
	// The seed alone decides which host-side faults fire, with no device
	// step involved: sixteen GPU submissions under 50%error, per seed.
	var patterns []string
	for seed := uint64(1); seed <= seeds; seed++ {
		a, b := dispatchPattern(t, seed), dispatchPattern(t, seed)
		if a != b {
			t.Errorf("seed %d: dispatch outcomes %s then %s", seed, a, b)
		}
		patterns = append(patterns, a)
	}
	if n := distinct(patterns); n < seeds/2 {
		t.Errorf("%d seeds gave %d distinct patterns of rejected dispatches, want most of them distinct: %v", seeds, n, patterns)
	}
	// Without faults, the seed changes no outcome: only probabilistic
	// faults, the order of simultaneous steps and the published timing's
	// stalls depend on it, and the script's waits outlast the stalls.
	plain := map[string]bool{}
	for seed := uint64(1); seed <= 5; seed++ {
		plain[strings.Join(recordScript(t, seed, nil).outcomes, "\n")] = true
	}
	if len(plain) != 1 {
		t.Errorf("without faults, 5 seeds gave %d different outcome sets, want 1", len(plain))
	}
}

// dispatchPattern submits the GPU participant of sixteen sessions under
// gpu.dispatch=50%error on a fabric seeded with seed, and returns which
// were rejected ("x") and which accepted (".").
func dispatchPattern(t *testing.T, seed uint64) string {
	t.Helper()
	w := newWorld(t, devices.Simulated, seed)
	setFault(t, w.f, fault.GPUDispatch, "50%error(coin)")
	var b strings.Builder
	for range 16 {
		s := newSession(t, w.f, exchangeConfig(1, 1, 8, devices.AQL))
		if err := s.SubmitGPU(); err != nil {
			wantErrMentions(t, "SubmitGPU", err, failure.Device, "coin")
			b.WriteByte('x')
		} else {
			b.WriteByte('.')
		}
		if out := s.Close(); out != Retired {
			t.Fatalf("Close = %v, want retired", out)
		}
	}
	wantNoViolations(t, w.o)
	return b.String()
}
