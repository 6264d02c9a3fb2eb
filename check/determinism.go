package check

import (
	"fmt"

	"github.com/residentlua/residentlua/devices/choice"
)

// nondeterminism is where a run that replayed the prefix of an earlier run
// left that run's path: a scenario that is not a function of its choices
// (it reads a clock, or keeps something from one run to the next), whose
// search would explore and prune at random.
type nondeterminism struct {
	prefix   []int // the choices replayed
	at       int   // the choice that differed, from 0
	was, now point // how the earlier run and this one met it; now.n 0: this run ended before it
}

// expect compares the i-th choice point p, met while replaying the prefix,
// with how the earlier run met it, and notes the first difference: another
// number or kind of alternatives, or other host operations before it. The
// run then branches no more.
func (r *run) expect(i int, p point) {
	want := r.prefix[i]
	if want.n == 0 || r.diverged != nil { // a replay string's choice: nothing to compare
		return
	}
	if want.n != p.n || want.kind != p.kind || want.hist != p.hist {
		r.diverged = &nondeterminism{prefix: valuesOf(r.prefix), at: i, was: want, now: p}
		r.pruned = true
	}
}

// expectEnd notes a run that ended before it replayed its whole prefix.
func (r *run) expectEnd() {
	if r.diverged == nil && len(r.points) < len(r.prefix) && r.prefix[0].n != 0 {
		r.diverged = &nondeterminism{prefix: valuesOf(r.prefix), at: len(r.points), was: r.prefix[len(r.points)]}
	}
}

// words says what differed; replay is the prefix as a replay string.
func (d *nondeterminism) words(replay string) string {
	var what string
	switch {
	case d.now.n == 0:
		what = fmt.Sprintf("the scenario ended after %s, where the earlier run went on to choice %d", plural(d.at, "choice", "choices"), d.at+1)
	case d.now.n != d.was.n || d.now.kind != d.was.kind:
		what = fmt.Sprintf("choice %d had %s (%s), where the earlier run had %d (%s)",
			d.at+1, plural(d.now.n, "alternative", "alternatives"), kindWords(d.now.kind), d.was.n, kindWords(d.was.kind))
	default:
		what = fmt.Sprintf("the host's operations or their results before choice %d differed from the earlier run's", d.at+1)
	}
	return "scenario is not deterministic: replaying the choices " + replay + " of an earlier run, " + what +
		"; a scenario must be a function of its choices and of what its operations return (no clock such as os.clock or os.time, no input, no randomness of its own)"
}

// kindWords names the kind of a choice.
func kindWords(k choice.Kind) string {
	switch k {
	case 0:
		return "a host choice"
	case choice.Step:
		return "which program steps next"
	case choice.Fault:
		return "whether a fault fires"
	case choice.Landing:
		return "when a release lands"
	case choice.Deadline:
		return "whether a deadline passes"
	}
	return fmt.Sprintf("a choice of kind %d", k)
}

// valuesOf is the values of points.
func valuesOf(points []point) []int {
	out := make([]int, len(points))
	for i, p := range points {
		out[i] = p.value
	}
	return out
}

// pointsOf is a replay string's choices as a prefix: values only.
func pointsOf(values []int) []point {
	out := make([]point, len(values))
	for i, v := range values {
		out[i].value = v
	}
	return out
}
