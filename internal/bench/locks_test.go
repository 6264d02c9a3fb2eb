package bench

import (
	"cmp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// lockSite is where contended lock delay was spent: the lock's release
// (the stack's first frame: sync.(*Mutex).Unlock for a Go mutex,
// runtime.unlock for one of the runtime's own, such as the garbage
// collector's) and the innermost frame of the project's code under it.
// lockSite is a contended lock (the first frame of its stack) and the
// project's function that reached it; afterGC marks sync.Pool's own lock,
// which a Pool takes only in its first use on a processor after a garbage
// collection emptied it (pinSlow): the collector's work, as the runtime's
// locks are.
type lockSite struct {
	lock, caller string
	afterGC      bool
}

// lockDelays runs fn with every contended lock recorded and returns the
// delay (in cycles) fn's run added to each lock site, largest first, and
// the total.
func lockDelays(fn func()) (sites []lockSite, delays []int64, total int64) {
	before := mutexProfile()
	old := runtime.SetMutexProfileFraction(1)
	fn()
	runtime.SetMutexProfileFraction(old)
	bySite := map[lockSite]int64{}
	for stack, cycles := range mutexProfile() {
		if d := cycles - before[stack]; d > 0 {
			bySite[siteOf(stack)] += d
			total += d
		}
	}
	for s := range bySite {
		sites = append(sites, s)
	}
	slices.SortFunc(sites, func(a, b lockSite) int { return cmp.Compare(bySite[b], bySite[a]) })
	for _, s := range sites {
		delays = append(delays, bySite[s])
	}
	return sites, delays, total
}

// mutexProfile is the process's mutex profile: cycles by stack.
func mutexProfile() map[[32]uintptr]int64 {
	n, _ := runtime.MutexProfile(nil)
	records := make([]runtime.BlockProfileRecord, n+64)
	n, _ = runtime.MutexProfile(records)
	out := map[[32]uintptr]int64{}
	for _, r := range records[:n] {
		out[r.Stack0] += r.Cycles
	}
	return out
}

func siteOf(stack [32]uintptr) lockSite {
	var s lockSite
	frames := runtime.CallersFrames(slices.DeleteFunc(stack[:], func(pc uintptr) bool { return pc == 0 }))
	for {
		f, more := frames.Next()
		if s.lock == "" {
			s.lock = f.Function
		}
		s.afterGC = s.afterGC || f.Function == "sync.(*Pool).pinSlow"
		if strings.HasPrefix(f.Function, "github.com/residentlua/residentlua/") {
			s.caller = strings.TrimPrefix(f.Function, "github.com/residentlua/residentlua/")
			return s
		}
		if !more {
			s.caller = "(outside the project)"
			return s
		}
	}
}

// TestTrialsTakeNoProcessWideLock runs parallel trials (at least two
// workers) with the mutex profile on: no lock that the project's code
// takes may account for more than 5% of the contended delay. Each trial
// has a fabric of its own, so its locks are its own; a lock that shows up
// here is shared by every trial of the process and serialises a campaign
// on many cores. The runtime's own locks (the garbage
// collector's) are reported, not judged: their share falls with what
// trials allocate; so is sync.Pool's, which it takes only after a
// collection (lockSite.afterGC; under load in CI it once reached 73 %, in
// campaign/trial.Run's workspaces.Get). A lock whose delay is under minDelay cycles a trial
// (some 20 ns, under a thousandth of a trial) delays nothing worth the
// name whatever its share of a tiny total, and is not judged either. Run
// with -v for the top entries.
func TestTrialsTakeNoProcessWideLock(t *testing.T) {
	const minDelay = 50 // cycles a trial
	n := 20_000
	if testing.Short() {
		n = 4_000
	}
	workers := max(Workers(), 2)
	sites, delays, total := lockDelays(func() { RunTrials(1, n, workers) })
	t.Logf("%d trials on %d workers: contended delay %d cycles (%.0f per trial)", n, workers, total, float64(total)/float64(n))
	for i, s := range sites {
		share := float64(delays[i]) / float64(total)
		if i < 8 {
			t.Logf("%5.1f%%  %s in %s", 100*share, s.lock, s.caller)
		}
		if share > 0.05 && delays[i] > minDelay*int64(n) && !strings.HasPrefix(s.lock, "runtime.") && !s.afterGC && s.caller != "(outside the project)" {
			t.Errorf("%s in %s holds %.1f%% of the contended delay, over 5%%: a lock shared by every trial", s.lock, s.caller, 100*share)
		}
	}
}
