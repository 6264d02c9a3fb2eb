package bench

import (
	"math"
	"slices"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/programs/exchange"
)

// TestRunShort runs the quick table as CI does: all 17 figures (the model
// checker's three among them) are measured and finite. No goal is enforced here; goals are for cmd/residentbench. -only
// measures the groups it names and no other, the raw round trip first.
func TestRunShort(t *testing.T) {
	figures, err := Run(Options{Short: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(figures) != 17 {
		t.Fatalf("%d figures, want 17", len(figures))
	}
	for _, f := range figures {
		if f.Value.N == 0 || math.IsNaN(f.Value.Median) || math.IsInf(f.Value.Median, 0) || f.Value.Median <= 0 {
			t.Errorf("%s: value %+v is not a measurement", f.Name, f.Value)
		}
		if f.Baseline != nil && (f.Ratio <= 0 || math.IsNaN(f.Ratio)) {
			t.Errorf("%s: ratio %v is not a ratio", f.Name, f.Ratio)
		}
	}
	only, err := Run(Options{Short: true, Only: []string{"model"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range only {
		names = append(names, f.Name)
	}
	if want := []string{"raw round trip, one line for both words", "model overhead (published, rounds 10)"}; !slices.Equal(names, want) {
		t.Errorf("-only model measured %q, want %q", names, want)
	}
}

// TestParallelTrialsMatchSerial: one worker per core gives the same per-seed
// results as one worker.
func TestParallelTrialsMatchSerial(t *testing.T) {
	serial, _ := RunTrials(1, 64, 1)
	parallel, _ := RunTrials(1, 64, 4)
	if !slices.Equal(serial, parallel) {
		t.Fatalf("per-seed digests differ between serial and parallel runs:\n%v\n%v", serial, parallel)
	}
	if slices.Equal(serial[:32], serial[32:]) {
		t.Fatalf("different seeds gave identical trials; the comparison proves nothing")
	}
}

func BenchmarkRawRoundTrip(b *testing.B) {
	b.ReportMetric(float64(RawRoundTrip(b.N).Nanoseconds()), "ns/roundtrip")
	b.ReportMetric(float64(RawRoundTripOneLine(b.N).Nanoseconds()), "ns/roundtrip-one-line")
}

func BenchmarkPublicationLatency(b *testing.B) {
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var total float64
	for i := 0; i < b.N; i++ {
		d, err := PublicationLatency(f)
		if err != nil {
			b.Fatal(err)
		}
		total += float64(d.Nanoseconds())
	}
	b.ReportMetric(total/float64(b.N), "ns/publication")
}

func BenchmarkLuaLifecycle(b *testing.B) {
	l, g, err := LuaOverhead(b.N)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(l.Nanoseconds()), "ns/lua-lifecycle")
	b.ReportMetric(float64(g.Nanoseconds()), "ns/go-lifecycle")
}

func BenchmarkStandardTrial(b *testing.B) {
	_, perSecond := RunTrials(1, b.N, 1)
	b.ReportMetric(perSecond, "trials/s")
}

func BenchmarkExchangeRoundTrip(b *testing.B) {
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	d, err := ExchangeRoundTrip(f, max(b.N, 2))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(d.Nanoseconds()), "ns/generation")
}

func BenchmarkParallelTrials(b *testing.B) {
	_, perSecond := RunTrials(1, b.N, Workers())
	b.ReportMetric(perSecond, "trials/s")
}

func BenchmarkScriptTrials(b *testing.B) {
	b.ReportAllocs()
	perSecond, err := RunScriptTrials(b.N, Workers())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(perSecond, "trials/s")
}

// BenchmarkProgramTrials runs the "Lua-program trials, one core" figure's
// trials on one worker: the exchange's Lua programs, and the built-in
// exchange from the same trial script (the figure's baseline).
func BenchmarkProgramTrials(b *testing.B) {
	for _, lua := range []bool{true, false} {
		b.Run(map[bool]string{true: "lua", false: "builtin"}[lua], func(b *testing.B) {
			b.ReportAllocs()
			perSecond, err := OnOneCore(func() (float64, error) { return RunProgramTrials(b.N, 1, lua) })
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(perSecond, "trials/CPU-s")
		})
	}
}

func BenchmarkModelOverhead(b *testing.B) {
	cfg := devices.Config{Mode: devices.RealTime, Timing: timing.Published()}
	// The figures exactly, without the published stalls: the real run and
	// the simulated one draw theirs from other seeds, and the ratio is of
	// the tool's overhead, not of two draws.
	cfg.Timing.Stall = 0
	real, err := devices.NewFabric(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer real.Close()
	cfg.Mode, cfg.Seed = devices.Simulated, 1
	sim, err := devices.NewFabric(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	var r, m float64
	for i := 0; i < b.N; i++ {
		rd, md, err := ModelOverhead(real, sim, 10)
		if err != nil {
			b.Fatal(err)
		}
		r, m = r+float64(rd.Nanoseconds()), m+float64(md.Nanoseconds())
	}
	b.ReportMetric(r/m, "real/modeled")
}

func BenchmarkRealTimeSession(b *testing.B) {
	f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for i := 0; i < b.N; i++ {
		if _, _, err := lifecycle(f, exchange.Default()); err != nil {
			b.Fatal(err)
		}
	}
}
