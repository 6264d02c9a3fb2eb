package engine_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/engine/oracle"
)

// pruneBounds are bounds under which the built-in scenario is explored to
// the end without pruning in seconds, and under which the checker finds
// every mutant: one fault, one preemption, and branching only at the first
// 8 choices of a run.
var pruneBounds = check.Bounds{Faults: 1, Preemptions: 1, Steps: 8}

// pruneExchange is the built-in exchange's arguments the pruning is
// checked with: the smallest exchange.
var pruneExchange = check.Exchange{Rounds: 1, Credits: 1}

// TestPruningIsSound explores the built-in scenario with the engine correct
// (each mutant's test binary does the same with the mutant: TestMutantCaught)
// and requires no invariant broken, and the same findings with and without
// pruning (pruningAgrees). Under the race detector it explores it with no
// fault: .ci/run runs it whole without the detector.
func TestPruningIsSound(t *testing.T) {
	t.Parallel()
	bounds := pruneBounds
	if raceEnabled { // a search with a fault takes minutes there
		bounds.Faults = -1
	}
	if found := pruningAgrees(t, bounds); len(found) > 0 {
		t.Errorf("with the engine correct the checker found %v", found)
	}
}

// pruningAgrees explores the built-in scenario under bounds once with the
// state hashing that prunes runs and once without (Options.NoPrune), and
// requires the same invariants broken, with counterexamples of the same
// length, and the same set of final outcomes (how each session ended, what
// was left, what the oracle found): pruning a run that reached a state
// explored before loses nothing. It returns what was found, as "invariant
// N in M steps".
func pruningAgrees(t *testing.T, bounds check.Bounds) []string {
	t.Helper()
	var found [2][]string
	var ends [2]map[string]bool
	for i, noPrune := range []bool{false, true} {
		ends[i] = map[string]bool{}
		rep := check.Check(context.Background(), pruneExchange.Scenario(recordingEnds(ends[i])), check.Options{Bounds: bounds, NoPrune: noPrune})
		if !rep.Exhausted {
			t.Fatalf("not exhausted:\n%s", rep.String())
		}
		for _, cx := range rep.Counterexamples {
			found[i] = append(found[i], fmt.Sprintf("invariant %d in %d steps", cx.Invariant, cx.Length()))
		}
		t.Logf("no pruning %v: %d schedules, %d states, %d final outcomes, %v", noPrune, rep.Schedules, rep.States, len(ends[i]), rep.Elapsed.Round(1e6))
	}
	if !slices.Equal(found[0], found[1]) {
		t.Errorf("with pruning the checker found %v, without %v", found[0], found[1])
	}
	for _, d := range []struct{ in, notIn int }{{0, 1}, {1, 0}} {
		for _, end := range slices.Sorted(maps.Keys(ends[d.in])) {
			if !ends[d.notIn][end] {
				t.Errorf("a final outcome found only %s pruning:\n%s", [...]string{"with", "without"}[d.in], end)
			}
		}
	}
	return found[0]
}

// recordingEnds is the built-in scenario, recording into ends how each run
// ended: for each session, its decisions, its checks and how its close
// ended; the quarantines and the bytes left after the reset; and the
// invariants an oracle of its own found.
func recordingEnds(ends map[string]bool) check.Scenario {
	return func(h *check.Host) {
		f := h.Fabric()
		o := oracle.New(f)
		o.Liveness(check.LongEnough)
		var order []uint64
		words := map[uint64]*strings.Builder{}
		cancel := f.Events().Subscribe(func(e *event.Event) {
			w := words[e.Session]
			switch e.Kind {
			case "startup":
				order = append(order, e.Session)
				words[e.Session] = &strings.Builder{}
			case oracle.EvDecide, oracle.EvPoison, oracle.EvCheck, "close":
				fmt.Fprintf(w, " %s:%d/%d", e.Kind, e.A, e.B)
			}
		})
		check.Builtin(h)
		cancel()
		o.Stop()
		var b strings.Builder
		for i, id := range order {
			fmt.Fprintf(&b, "s%d:%s\n", i+1, words[id])
		}
		var broken []int
		for _, v := range o.Violations() {
			if !slices.Contains(broken, v.Invariant) {
				broken = append(broken, v.Invariant)
			}
		}
		slices.Sort(broken)
		fmt.Fprintf(&b, "quarantines %d, charged %d, invariants broken %v", len(f.Quarantines()), f.Budget().State().Charged, broken)
		ends[b.String()] = true
	}
}
