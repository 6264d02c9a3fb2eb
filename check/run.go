package check

import (
	"slices"
	"strconv"
	"strings"

	"github.com/residentlua/residentlua/devices/choice"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
)

// run is one execution of the scenario: it replays a prefix of choices,
// then takes each choice's first alternative, and records every choice
// point so that the search can backtrack. It is the fabric's Chooser.
type run struct {
	x        *explorer
	host     *Host
	prefix   []point // the choices to replay: values, and how an earlier run met them
	points   []point
	describe bool
	trace    []Step // with describe: operations and choices in words

	length      int // host operations and choices other than the first alternative so far
	preemptions int
	faults      int
	pruned      bool // reached an explored state, or broke the invariant sought: branch no more
	truncated   bool // reached the step bound

	hist          program.StateHash // the host's history: its choices, operations and events
	broken        []int             // invariants broken so far, in order
	violationLen  int               // length when the first sought violation was seen; -1 before
	violationAt   int               // choice points made by then
	violationStep int               // with describe: steps recorded by then
	violations    []oracle.Violation
	race          func()          // during a wait that a close may race, called at each step and deadline choice
	badChoice     int             // the first replayed choice out of range; -1 if none
	failed        string          // the scenario's own error, if it failed
	diverged      *nondeterminism // the replay of the prefix met a choice the earlier run did not
	firstErr      string          // the first error of making a session, in words
}

// noteError keeps the first error of making a session (name is the
// session's name): what a search that made none reports.
func (r *run) noteError(name string, err error) {
	if r.firstErr == "" {
		msg, _, _ := strings.Cut(err.Error(), "\n") // not a traceback: the report says where
		r.firstErr = name + ": " + msg
	}
}

// reach is how far the run's sessions came: whether one was made, one
// decided RUN, and a RUN session retired (a Wait saw both programs retire,
// or its close released its memory).
func (r *run) reach() (made, decided, retired bool) {
	for _, s := range r.host.sessions {
		made = true
		if s.Decision() != oracle.StartupRun {
			continue
		}
		decided = true
		if st := s.State(); st == engine.StateRetired || st == engine.StateClosed {
			retired = true
		}
	}
	return made, decided, retired
}

// point is one choice point of a run: how many alternatives, which was
// taken (rank in the order they are tried, and value), whether the search
// may try others, and the alternative that continues the last program;
// then what the replay of the run's prefix must meet again: the kind of
// the choice (0 for the host's) and the host's history before it. A point
// of a replay string has n 0: nothing is known of it but its value.
type point struct {
	n, rank, value, cont int
	free                 bool
	kind                 choice.Kind
	hist                 uint64
}

// choicePoint is a choice about to be made: a device choice (kind set) or
// a host choice (host says what).
type choicePoint struct {
	n      int
	kind   choice.Kind
	host   string
	label  func(int) string // a host choice's alternatives in words, or nil
	choice choice.Choice
}

// Step is one entry of a counterexample: a host operation and its result,
// or a choice in words.
type Step struct {
	Host bool   // a host operation (or host choice) rather than a choice of the fabric
	Text string // "s1:start() = ok", "npu0 polls before the npu0 xdna release lands"
	// First is set on a choice that took its first alternative, the one
	// the search tries first (for the step order: the program that stepped
	// last goes on). Such choices do not count in a counterexample's length.
	First bool
}

// String is the step as a report lists it: "-" for a first alternative
// ("*" otherwise), "host" for a host operation, then its text.
func (s Step) String() string {
	who, mark := "      ", "*"
	if s.Host {
		who = "host  "
	}
	if s.First {
		mark = "-"
	}
	return mark + " " + who + s.Text
}

// Counts reports whether the step counts in a counterexample's length: a
// host operation, or a choice other than the first alternative.
func (s Step) Counts() bool { return !s.First }

// Choose makes a choice of the fabric (choice.Chooser).
func (r *run) Choose(c choice.Choice) int {
	if c.Kind == choice.Step || c.Kind == choice.Deadline {
		if r.race != nil {
			r.race()
		}
		// A deadline choice and the step choice after it meet the same
		// state: the kind tells them apart, for they have other
		// alternatives (one would prune the other, unexplored).
		r.visit(visitChoice + uint64(c.Kind))
	}
	return r.choose(choicePoint{n: c.N, kind: c.Kind, choice: c}, c.Continuing())
}

// choose takes the next choice: the prefix's value, else the first
// alternative; cont is the alternative that preempts nothing (-1: none).
func (r *run) choose(cp choicePoint, cont int) int {
	r.checkViolation(cp.kind != 0)
	i := len(r.points)
	p := point{n: cp.n, cont: cont, free: r.branches(cp, cont, i), kind: cp.kind, hist: r.hist.Sum()}
	if i < len(r.prefix) {
		r.expect(i, p)
		p.value = r.prefix[i].value
		if p.value >= cp.n { // a replay string of another scenario
			if r.badChoice < 0 {
				r.badChoice = i
			}
			p.value = valueOf(0, cont)
		}
		p.rank = rankOf(p.value, cont)
	} else {
		p.value = valueOf(0, cont)
	}
	r.points = append(r.points, p)
	if p.rank != 0 {
		r.length++ // a choice other than the first alternative counts
	}
	if cont >= 0 && p.value != cont {
		r.preemptions++
	}
	if cp.kind == choice.Fault && p.value == 1 {
		r.faults++
	}
	if cp.kind == 0 {
		r.hist.Add(uint64(p.value))
	}
	if r.describe {
		step := r.words(cp, p.value)
		step.First = p.rank == 0
		r.trace = append(r.trace, step)
	}
	return p.value
}

// branches reports whether the search may try other alternatives at the
// i-th choice point.
func (r *run) branches(cp choicePoint, cont, i int) bool {
	b := r.x.bounds
	switch {
	case r.pruned:
		return false
	case i >= b.Steps:
		r.truncated = true
		return false
	case b.Length > 0 && r.length >= b.Length:
		return false
	case cont >= 0 && r.preemptions >= b.Preemptions:
		return false
	case cp.kind == choice.Fault && r.faults >= b.Faults:
		return false
	}
	return true
}

// rankOf and valueOf map between an alternative and its rank in the order
// the search tries them: the one that preempts nothing first, then the
// others in order.
func rankOf(value, cont int) int {
	switch {
	case cont < 0 || value > cont:
		return value
	case value == cont:
		return 0
	}
	return value + 1
}

func valueOf(rank, cont int) int {
	switch {
	case cont < 0 || rank > cont:
		return rank
	case rank == 0:
		return cont
	}
	return rank - 1
}

// words says what a choice took.
func (r *run) words(cp choicePoint, value int) Step {
	switch {
	case cp.kind == 0 && cp.label != nil:
		return Step{Host: true, Text: "host chooses " + cp.host + ": " + cp.label(value)}
	case cp.kind == 0:
		return Step{Host: true, Text: "host chooses " + strconv.Itoa(value) + " of " + strconv.Itoa(cp.n) + " for " + cp.host}
	}
	return Step{Text: cp.choice.Describe(value)}
}

// hostOp records a host operation and visits the state it left.
func (r *run) hostOp(text string) {
	r.length++
	r.hist.AddString(text)
	if r.describe {
		r.trace = append(r.trace, Step{Host: true, Text: text})
	}
	if r.violationStep < 0 { // broken during this operation, seen at a choice it made
		r.violationStep = len(r.trace)
	}
	r.checkViolation(false) // one the operation broke counts it
	r.visit(visitHostOp)
}

// observe mixes the host's own events into its history: what the engine's
// host side did and saw (a join that timed out, a publication that failed)
// decides what it does next, as the scenario's choices do.
func (r *run) observe(e *event.Event) {
	if e.Actor != event.HostActor {
		return
	}
	r.hist.AddString(string(e.Kind))
	r.hist.Add(e.Session)
	r.hist.Add(e.A)
	r.hist.Add(e.B)
	r.hist.AddString(e.Detail)
}

// The tags of the points visit hashes: after a host operation, or at a
// choice of the fabric, plus its kind.
const (
	visitHostOp = 1
	visitChoice = 16
)

// visit hashes the state at a point where the run can be pruned (tag says
// which kind of point: two points of the same state and tag have the same
// alternatives and futures) and prunes the run when the state was explored
// before with at least as much of the bounds left. Points the prefix
// replays are not visited: the search is exploring their alternatives.
//
// Nor are points past the step bound: a run there branches no more, and
// only another run past it could be pruned by them, which would not branch
// either; hashing them would only fill memory, a state for every step of
// a long exchange. Nor, once the search is stopped, any point: the run is
// cut, and hashing a large state takes long.
func (r *run) visit(tag uint64) {
	if r.pruned || r.describe || r.x.opts.NoPrune || len(r.points) < len(r.prefix) || len(r.points) >= r.x.bounds.Steps || r.host.ctx.Err() != nil {
		return
	}
	h := r.hist
	h.Add(tag)
	r.host.fabric.HashState(&h)
	for _, s := range r.host.sessions {
		s.HashState(&h)
	}
	r.host.oracle.HashState(&h)
	b := r.x.bounds
	left := budget{steps: b.Steps - len(r.points), preemptions: b.Preemptions - r.preemptions, faults: b.Faults - r.faults, length: 1 << 30}
	if b.Length > 0 {
		left.length = b.Length - r.length
	}
	key := h.Sum()
	for _, seen := range r.x.seen[key] {
		if left.within(seen) {
			r.pruned = true
			return
		}
	}
	if len(r.x.seen) >= r.x.maxStates {
		r.x.statesFull = true // remember no more: prune less, in bounded memory
		return
	}
	r.x.seen[key] = append(r.x.seen[key], left)
}

// checkViolation notes the length at which the oracle first reported the
// invariant sought (any, in the main search), after which the run branches
// no more: its continuations all break it. Seen at a choice of the fabric
// (midOp), the violation happened during the host operation in progress,
// which then counts too: its step is recorded when it returns.
func (r *run) checkViolation(midOp bool) {
	if r.violationLen >= 0 {
		return
	}
	r.broken = r.host.oracle.Broken(r.broken[:0])
	for _, inv := range r.broken {
		if r.x.target == 0 || inv == r.x.target {
			r.violationLen, r.violationAt, r.violationStep = r.length, len(r.points), len(r.trace)
			if midOp {
				r.violationLen, r.violationStep = r.length+1, -1
			}
			r.pruned = true
			return
		}
	}
}

// values is the run's choices up to its violation, or all of them.
func (r *run) values() []int {
	n := len(r.points)
	if r.violationLen >= 0 {
		n = r.violationAt
	}
	return valuesOf(r.points[:n])
}

// backtrack returns the prefix of the next run: the choices up to the last
// point that has an alternative left to try, with that alternative; nil
// when none has.
func (r *run) backtrack() []point {
	for i := len(r.points) - 1; i >= 0; i-- {
		p := r.points[i]
		if !p.free || p.rank+1 >= p.n {
			continue
		}
		next := slices.Clone(r.points[:i+1])
		next[i].value = valueOf(p.rank+1, p.cont)
		return next
	}
	return nil
}
