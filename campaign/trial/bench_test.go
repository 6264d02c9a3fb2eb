package trial

import "testing"

// BenchmarkRun runs the default trial (the campaign's built-in one) as Run
// does, each trial on a fresh world, with a result of its own and its host
// operations' lines.
func BenchmarkRun(b *testing.B) {
	b.ReportAllocs()
	for i := range b.N {
		if r := Run(Config{Seed: uint64(i) + 1}); !r.OK() {
			b.Fatalf("seed %d failed:\n%s", i+1, r.Report())
		}
	}
}

// BenchmarkWorldRun runs it as a campaign's worker does: on one world,
// renewed for each trial, into one result, with no lines.
func BenchmarkWorldRun(b *testing.B) {
	b.ReportAllocs()
	w := NewWorld()
	defer w.Close()
	var r Result
	for i := range b.N {
		if w.Run(Config{Seed: uint64(i) + 1, NoOps: true}, &r); !r.OK() {
			b.Fatalf("seed %d failed", i+1)
		}
	}
}
