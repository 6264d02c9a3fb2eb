package fault

import "testing"

// BenchmarkParse parses a chain of three faults, as each of a campaign's
// trials arms a few: its allocations per chain are a row of the benchmark
// table in docs/performance.md.
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		chain, err := Parse(GPURun, "2*off->30%1*crash(trial)->hang")
		if err != nil || len(chain) != 3 {
			b.Fatalf("Parse made %v, %v; want a chain of three", chain, err)
		}
	}
}

// BenchmarkHit is a fault point's hit, with nothing configured and with a
// chain that fires half the time, as every device step and host operation
// of a trial makes: its allocations (none) are a row of the benchmark table
// in docs/performance.md.
func BenchmarkHit(b *testing.B) {
	b.Run("nothing configured", func(b *testing.B) {
		p := NewPlane(1)
		b.ReportAllocs()
		for b.Loop() {
			if f := p.Hit(GPUDispatch); f.Action != None {
				b.Fatalf("an empty plane fired %v", f.Action)
			}
		}
	})
	b.Run("firing", func(b *testing.B) {
		p := NewPlane(1)
		if err := p.Set(GPUDispatch, "50%error(busy)->delay(1ms)"); err != nil {
			b.Fatal(err)
		}
		fired := 0
		b.ReportAllocs()
		for b.Loop() {
			if p.Hit(GPUDispatch).Action != None {
				fired++
			}
		}
		if fired == 0 {
			b.Fatal("the chain never fired")
		}
	})
}
