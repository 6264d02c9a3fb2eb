package bench

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/wait"
)

// The publication and exchange figures of each wait policy are measured on
// a fabric of that policy, named after it, against spin's goals or, for
// block, only reported. Spinning needs GOMAXPROCS of three (two devices and
// the host); on fewer CPUs the threads take turns, which is slow but
// measures all the same.
func TestWaitFigures(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(3, runtime.GOMAXPROCS(0))))
	z := Options{Short: true}.sizes()
	z.publications, z.repeats, z.exchangeRounds = 5, 2, 50
	raw := Summarise([]float64{0.1})
	for _, tc := range []struct {
		wait               wait.Policy
		named              bool
		pubName, pubGoal   string
		exchName, exchGoal string
	}{
		{wait.Hybrid, false, "publication latency", "≤ 2×", "exchange round trip", "≤ 1.5×"},
		{wait.Spin, true, "publication latency (wait spin)", "≤ 3×", "exchange round trip (wait spin)", "≤ 2×"},
		{wait.Block, true, "publication latency (wait block)", "report", "exchange round trip (wait block)", "report"},
	} {
		figures, err := waitFigures(tc.wait, z, raw, tc.named)
		if err != nil {
			t.Fatalf("%s: %v", tc.wait, err)
		}
		if len(figures) != 3 {
			t.Fatalf("%s: %d figures, want publication, exchange and processor time", tc.wait, len(figures))
		}
		pub, exch, cost := figures[0], figures[1], figures[2]
		wantCost := "processor time per session" + strings.TrimPrefix(tc.pubName, "publication latency")
		if cost.Name != wantCost || cost.Value.Median <= 0 || cost.Ratio <= 0 || cost.Met != nil {
			t.Errorf("%s: processor time figure %+v; want %q, a positive time per session and busy cores, only reported", tc.wait, cost, wantCost)
		}
		for _, c := range []struct {
			f          Figure
			name, goal string
		}{{pub, tc.pubName, tc.pubGoal}, {exch, tc.exchName, tc.exchGoal}} {
			if c.f.Name != c.name || c.f.Goal != c.goal || (c.f.Met == nil) != (c.goal == "report") {
				t.Errorf("%s: figure %q, goal %q, met %v; want %q, goal %q", tc.wait, c.f.Name, c.f.Goal, c.f.Met, c.name, c.goal)
			}
			if c.f.Value.N == 0 || c.f.Value.Median <= 0 || c.f.Baseline == nil || c.f.Ratio <= 0 {
				t.Errorf("%s: %s is not a measurement beside the raw round trip: %+v", tc.wait, c.f.Name, c.f)
			}
		}
	}
}

// BenchmarkPublicationByWait measures publication under each wait policy
// beside the raw round trip: the median over the sessions, in how many
// sessions a device began its program only after the decision, so that
// the latency includes its start, and the median of each kind of session
// that there was: where the time of a publication goes. Spin runs
// only where GOMAXPROCS gives each device and the host a core.
func BenchmarkPublicationByWait(b *testing.B) {
	for _, w := range wait.Policies() {
		b.Run(w.String(), func(b *testing.B) {
			f := waitFabric(b, w)
			var total, waiting, late []float64
			for range b.N {
				d, start, err := publication(f)
				if err != nil {
					b.Fatal(err)
				}
				total = append(total, float64(d))
				if start > 0 {
					late = append(late, float64(d))
				} else {
					waiting = append(waiting, float64(d))
				}
			}
			b.ReportMetric(Summarise(total).Median, "ns/publication-p50")
			b.ReportMetric(float64(len(late))/float64(b.N), "late-starts/publication")
			if len(waiting) > 0 {
				b.ReportMetric(Summarise(waiting).Median, "ns/publication-both-waiting-p50")
			}
			if len(late) > 0 {
				b.ReportMetric(Summarise(late).Median, "ns/publication-late-start-p50")
			}
			reportRaw(b)
		})
	}
}

// BenchmarkExchangeByWait measures the exchange's round trip per
// generation under each wait policy beside the raw round trip, and how
// many events a generation emits.
func BenchmarkExchangeByWait(b *testing.B) {
	const rounds = 2000
	for _, w := range wait.Policies() {
		b.Run(w.String(), func(b *testing.B) {
			f := waitFabric(b, w)
			var total time.Duration
			before := f.Events().Count()
			for range b.N {
				d, err := ExchangeRoundTrip(f, rounds)
				if err != nil {
					b.Fatal(err)
				}
				total += d
			}
			b.ReportMetric(float64(total)/float64(b.N), "ns/generation")
			b.ReportMetric(float64(f.Events().Count()-before)/float64(b.N*rounds), "events/generation")
			reportRaw(b)
		})
	}
}

// reportRaw reports both raw round trips, measured after the benchmark's
// own figures: ns/raw, the floor the goals are ratios to, and
// ns/raw-one-line.
func reportRaw(b *testing.B) {
	b.ReportMetric(float64(RawRoundTrip(100_000)), "ns/raw")
	b.ReportMetric(float64(RawRoundTripOneLine(100_000)), "ns/raw-one-line")
}

// BenchmarkEventEmit is the cost of one event, uncontended: the stream's
// lock, a clock read, the ring write and the digest.
func BenchmarkEventEmit(b *testing.B) {
	f := waitFabric(b, wait.Hybrid)
	for range b.N {
		f.Events().Emit(event.HostActor, 0, event.EvHostStore, 1, 2, "")
	}
}

// waitFabric is a real-time fabric of policy w for a benchmark, skipping
// it where the machine cannot spin.
func waitFabric(b *testing.B, w wait.Policy) *devices.Fabric {
	b.Helper()
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Wait: w})
	if err != nil {
		b.Skip(err)
	}
	b.Cleanup(f.Close)
	b.ResetTimer()
	return f
}
