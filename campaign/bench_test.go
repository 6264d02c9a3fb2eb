package campaign_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/residentlua/residentlua/campaign"
)

// BenchmarkBuiltin runs the built-in trial's campaign on one worker and on
// GOMAXPROCS workers: trials a second, and with -cpuprofile where the
// campaign's own work (the summary, in index order) goes.
func BenchmarkBuiltin(b *testing.B) {
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(map[bool]string{true: "one-worker", false: "all-workers"}[workers == 1], func(b *testing.B) {
			benchCampaign(b, campaign.Config{Trials: b.N, Workers: workers, Seed: 1})
		})
	}
}

// BenchmarkGoTrial is BenchmarkBuiltin for a trial written in Go that does
// next to nothing: what the campaign itself costs a trial.
func BenchmarkGoTrial(b *testing.B) {
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(map[bool]string{true: "one-worker", false: "all-workers"}[workers == 1], func(b *testing.B) {
			benchCampaign(b, campaign.Config{Runners: sessions, Trials: b.N, Workers: workers, Seed: 1})
		})
	}
}

// BenchmarkScript is BenchmarkBuiltin for the trial script of testdata.
func BenchmarkScript(b *testing.B) {
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(map[bool]string{true: "one-worker", false: "all-workers"}[workers == 1], func(b *testing.B) {
			benchCampaign(b, campaign.Config{Runners: kinds()["Lua"], Trials: b.N, Workers: workers, Seed: 1})
		})
	}
}

func benchCampaign(b *testing.B, cfg campaign.Config) {
	b.ReportAllocs()
	sum, err := campaign.Run(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	if sum.Violations != 0 || len(sum.Failures) != 0 {
		b.Fatalf("%d violations, %d failures", sum.Violations, len(sum.Failures))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trials/s")
}
