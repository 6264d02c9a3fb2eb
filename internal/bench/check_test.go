package bench

import (
	"testing"
	"time"
)

// TestCheckFigures measures the checker's three rates in a quick run: the
// Lua exchange is compared with the Go one, and the user's pair with the
// Lua exchange, and each search explores schedules (its pair's programs
// compile and run; a pair whose sessions failed would explore few).
func TestCheckFigures(t *testing.T) {
	figures, err := checkFigures(sizes{repeats: 1, checkFor: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(figures) != 3 {
		t.Fatalf("%d figures, want 3", len(figures))
	}
	for i, base := range []string{"", "the exchange in Go", "the exchange in Lua"} {
		f := figures[i]
		if f.Value.Median <= 0 {
			t.Errorf("%s: %v schedules/s", f.Name, f.Value.Median)
		}
		if f.BaselineName != base || (base != "" && (f.Met == nil || f.Ratio <= 0)) {
			t.Errorf("%s: baseline %q, ratio %v; want %q and a goal", f.Name, f.BaselineName, f.Ratio, base)
		}
	}
}

// TestCheckSearchesRunTheirPairs checks that the pairs of the figures
// run: a search of each makes sessions (a pair whose arguments its buffers
// refused would make none) and breaks nothing.
func TestCheckSearchesRunTheirPairs(t *testing.T) {
	for _, pair := range []CheckPair{CheckGo, CheckLuaExchange, CheckUserPair} {
		rep, err := checkSearch(pair, 300*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Made == 0 || !rep.OK() || rep.ScenarioErrors > 0 || rep.FirstError != "" {
			t.Errorf("pair %d:\n%s", pair, rep.String())
		}
	}
}
