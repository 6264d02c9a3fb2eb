package trial

import "testing"

// BenchmarkRun runs the default trial (the campaign's built-in one) as Run
// does, each trial with a result of its own and its host operations' lines.
func BenchmarkRun(b *testing.B) {
	b.ReportAllocs()
	for i := range b.N {
		if r := Run(Config{Seed: uint64(i) + 1}); !r.OK() {
			b.Fatalf("seed %d failed:\n%s", i+1, r.Report())
		}
	}
}

// BenchmarkRunInto runs it as a campaign's worker does: one result reused,
// no lines.
func BenchmarkRunInto(b *testing.B) {
	b.ReportAllocs()
	var r Result
	for i := range b.N {
		if RunInto(Config{Seed: uint64(i) + 1, NoOps: true}, &r); !r.OK() {
			b.Fatalf("seed %d failed", i+1)
		}
	}
}
