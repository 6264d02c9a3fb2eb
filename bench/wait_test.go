package bench

import (
	"runtime"
	"testing"

	"github.com/residentlua/residentlua/devices"
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
		wait               devices.WaitPolicy
		named              bool
		pubName, pubGoal   string
		exchName, exchGoal string
	}{
		{devices.WaitHybrid, false, "publication latency", "≤ 2×", "exchange round trip", "≤ 1.5×"},
		{devices.WaitSpin, true, "publication latency (wait spin)", "≤ 3×", "exchange round trip (wait spin)", "≤ 2×"},
		{devices.WaitBlock, true, "publication latency (wait block)", "report", "exchange round trip (wait block)", "report"},
	} {
		pub, exch, err := waitFigures(tc.wait, z, raw, tc.named)
		if err != nil {
			t.Fatalf("%s: %v", tc.wait, err)
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
