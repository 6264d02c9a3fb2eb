package bench

import (
	"slices"
	"testing"
)

// TestRawRoundTripDrawsNewThreads checks that every raw round trip runs on
// two threads made for it, so that a run's repeats each draw their own
// placement instead of all taking one pair's: no thread serves two calls.
func TestRawRoundTripDrawsNewThreads(t *testing.T) {
	var seen []int
	for call := range 6 {
		d, threads := rawRoundTrip(200, call%2 == 1)
		if d <= 0 {
			t.Fatalf("call %d: round trip %v, want a positive duration", call, d)
		}
		if threads[0] == threads[1] {
			t.Fatalf("call %d: both sides ran on thread %d; each needs its own", call, threads[0])
		}
		for _, id := range threads {
			if slices.Contains(seen, id) {
				t.Fatalf("call %d ran on thread %d, which an earlier call used (threads so far %v): each call must draw new threads", call, id, seen)
			}
			seen = append(seen, id)
		}
	}
}
