package check

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/engine/oracle"
)

// Counterexample is a schedule that breaks an invariant.
type Counterexample struct {
	Invariant int
	Violation oracle.Violation
	// Steps are the host operations and the choices, in words, up to the
	// operation or choice after which the oracle reported the violation.
	Steps []Step
	// Events are the oracle's events of the session that led to the
	// violation, formatted as a trace prints them.
	Events []string
	// Replay reruns exactly this schedule (Replay, or the command's
	// --replay): the choices, one number each, after the bounds that size
	// the scenario.
	Replay string
}

// Length is how many host operations and choices other than the first
// alternative the counterexample takes: what the search minimises.
func (c Counterexample) Length() int {
	n := 0
	for _, s := range c.Steps {
		if s.Counts() {
			n++
		}
	}
	return n
}

// String prints the counterexample: the violation, the steps, the events
// and the replay string.
func (c Counterexample) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v\n", c.Violation)
	fmt.Fprintf(&b, "shortest schedule found: %d host operations and choices (first alternatives, marked -, not counted):\n", c.Length())
	for _, s := range c.Steps {
		fmt.Fprintf(&b, "  %v\n", s)
	}
	b.WriteString("events that led to it:\n")
	for _, e := range c.Events {
		b.WriteString("  " + e + "\n")
	}
	fmt.Fprintf(&b, "replay: %s\n", c.Replay)
	return b.String()
}

// String prints the report: the figures, then each counterexample.
func (r *Report) String() string {
	var b strings.Builder
	misuse := "on"
	if r.Bounds.Misuse <= 0 {
		misuse = "off"
	}
	if r.Pair.Name != "" {
		fmt.Fprintf(&b, "pair: %s (digest %s)\n", r.Pair.Name, r.Pair.Digest)
	}
	fmt.Fprintf(&b, "bounds: faults <= %d, preemptions <= %d, steps <= %d, sessions <= %d, misuse %s\n",
		r.Bounds.Faults, r.Bounds.Preemptions, r.Bounds.Steps, r.Bounds.Sessions, misuse)
	if r.NoPrune {
		b.WriteString("without pruning: no state hashed\n")
	}
	state := "exhausted"
	switch {
	case r.Nondeterministic != "":
		state = "not exhausted (stopped: the scenario is not deterministic)"
	case !r.Exhausted:
		state = "not exhausted (stopped)"
	}
	fmt.Fprintf(&b, "%s, %s, %d pruned, %d at the step bound; bounded space %s in %v\n",
		plural(r.Schedules, "schedule", "schedules"), plural(r.States, "distinct state", "distinct states"), r.Pruned, r.Truncated, state, r.Elapsed.Round(1e6))
	fmt.Fprintf(&b, "the programs reached: a session made in %s, decided RUN in %d, a RUN session retired in %d\n",
		plural(r.Made, "schedule", "schedules"), r.Decided, r.Retired)
	if r.StatesFull {
		fmt.Fprintf(&b, "the search remembered %s, its most, and no more after: it pruned less from then on\n", plural(r.States, "distinct state", "distinct states"))
	}
	if r.ScenarioErrors > 0 {
		fmt.Fprintf(&b, "the scenario itself failed in %s; the first: %s\n", plural(r.ScenarioErrors, "run", "runs"), r.ScenarioError)
	}
	if r.Nondeterministic != "" {
		b.WriteString(r.Nondeterministic + "\n")
	}
	switch v := r.Vacuous(); {
	case v != "":
		b.WriteString("nothing checked: " + v + "\n")
	case r.OK():
		b.WriteString("no invariant broken\n")
	}
	for _, c := range r.Counterexamples {
		b.WriteString("\n" + c.String())
	}
	return b.String()
}

// describe reruns a violating run in words. A rerun that leaves the path
// of the run it describes (its choices met otherwise), or that does not
// break the invariant, shows the scenario or its programs not
// deterministic: that is noted (explorer.diverged), and the
// counterexample returned has no violation.
func (x *explorer) describe(f found) Counterexample {
	x.target = f.invariant
	prefix := f.points
	if prefix == nil {
		prefix = pointsOf(f.values)
	}
	r := x.execute(context.Background(), prefix, true)
	cx := Counterexample{Invariant: f.invariant, Replay: x.replayString(f.values)}
	switch {
	case r.diverged != nil:
		if x.diverged == "" {
			x.diverged = r.diverged.words(cx.Replay)
		}
		return Counterexample{}
	case messageOf(r.violations, f.invariant) == "":
		if x.diverged == "" {
			x.diverged = fmt.Sprintf("the programs or the scenario are not deterministic: the schedule %s broke invariant %d in the search (%s), and the same choices, met the same way, broke nothing when rerun; the first difference is the violation itself (a program that reads a clock, collectgarbage(\"count\") or memory of an earlier run, say)", cx.Replay, f.invariant, f.message)
		}
		return Counterexample{}
	}
	n := len(r.trace)
	if r.violationLen >= 0 && r.violationStep >= 0 {
		n = r.violationStep
	}
	cx.Steps = r.trace[:n]
	for _, v := range r.violations {
		if v.Invariant == f.invariant {
			cx.Violation = v
			cx.Events = FormatEvents(v.Events)
			break
		}
	}
	return cx
}

// FormatEvents prints events one to a line, as a counterexample (and the
// command's --replay) shows them: time, actor, session, kind and fields.
func FormatEvents(events []event.Event) []string {
	names := func(a event.Actor) string {
		if a == event.HostActor {
			return "host"
		}
		return [...]string{"?", "gpu0", "npu0"}[min(int(a), 2)]
	}
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Format(names)
	}
	return out
}

// replayString is "f<faults>", then "s<sessions>" and "m0" (misuse off)
// where they are not the defaults, then "p" and the pair's digest
// (Options.Pair) when it has one, then ":" and the choices joined by dots:
// the bounds that decide how many alternatives the built-in scenario's
// host choices have, the programs and arguments that made the schedule,
// then the schedule.
func (x *explorer) replayString(values []int) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = strconv.Itoa(v)
	}
	head := "f" + strconv.Itoa(x.bounds.Faults)
	if x.bounds.Sessions != defaultSessions {
		head += "s" + strconv.Itoa(x.bounds.Sessions)
	}
	if x.bounds.Misuse <= 0 {
		head += "m0"
	}
	if x.pair.Digest != "" {
		head += "p" + x.pair.Digest
	}
	return head + ":" + strings.Join(parts, ".")
}

// replayHead is the head of a replay string:
// f<faults>[s<sessions>][m<misuse>][p<digest>].
var replayHead = regexp.MustCompile(`^f(-?[0-9]+)(?:s(-?[0-9]+))?(?:m(-?[0-9]+))?(?:p([0-9a-f]{8}))?$`)

// ParseReplay reads a replay string into the bounds it fixes (Faults, and
// Sessions and Misuse when it gives them), each in the range Bounds.Set
// allows, the digest of the pair that made it ("" when it names none,
// Options.Pair) and its choices: what a tool that keeps the
// counterexamples a report printed reads back.
func ParseReplay(s string) (b Bounds, digest string, values []int, err error) {
	head, tail, ok := strings.Cut(s, ":")
	if !ok {
		return b, "", nil, fmt.Errorf("replay %q has no ':'; give the string a counterexample printed, such as f1:3.0.1", s)
	}
	m := replayHead.FindStringSubmatch(head)
	if m == nil {
		return b, "", nil, fmt.Errorf("replay %q does not begin with f<faults>; give the string a counterexample printed", s)
	}
	for i, name := range []string{"faults", "sessions", "misuse"} {
		if m[i+1] == "" {
			continue // not given: the default
		}
		v, err := strconv.Atoi(m[i+1])
		if err != nil {
			err = fmt.Errorf("%s %s is out of range", name, m[i+1])
		} else {
			err = b.Set(name, v)
		}
		if err != nil {
			return b, "", nil, fmt.Errorf("replay %q: %v; give the string a counterexample printed", s, err)
		}
	}
	if tail != "" {
		for _, p := range strings.Split(tail, ".") {
			v, err := strconv.Atoi(p)
			if err != nil || v < 0 {
				return b, "", nil, fmt.Errorf("replay %q has %q where a choice (a number from 0) belongs", s, p)
			}
			values = append(values, v)
		}
	}
	return b, m[4], values, nil
}

// Replay reruns the one schedule a replay string names and reports it: the
// steps in words (all of them, to the end of the scenario) and every
// violation. onFabric, when not nil, is called with the run's fabric
// before the scenario starts (to record a trace). The run sees ctx
// (Host.Context): when ctx ends first, the replay is an error.
func Replay(ctx context.Context, scenario Scenario, replay string, onFabric func(*devices.Fabric)) (*Replayed, error) {
	return ReplayPair(ctx, scenario, Pair{}, replay, onFabric)
}

// ReplayPair is Replay of a scenario that runs pair (Options.Pair): a
// replay string that another pair made is refused, naming both.
func ReplayPair(ctx context.Context, scenario Scenario, pair Pair, replay string, onFabric func(*devices.Fabric)) (*Replayed, error) {
	b, digest, values, err := ParseReplay(replay)
	if err != nil {
		return nil, err
	}
	if digest != pair.Digest {
		return nil, fmt.Errorf("replay %q was made by %s, not by %s; replay it with the programs and arguments that printed it", replay, pairWords(digest, ""), pairWords(pair.Digest, pair.Name))
	}
	x := &explorer{scenario: scenario, bounds: b.withDefaults(), onFabric: onFabric, pair: pair}
	r := x.execute(ctx, pointsOf(values), true)
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("replay %q interrupted before the end of the scenario (%v)", replay, ctx.Err())
	case r.badChoice >= 0:
		return nil, fmt.Errorf("replay %q: choice %d is %d but has only %s there; replay it with the scenario and bounds that printed it", replay, r.badChoice+1, values[r.badChoice], plural(r.points[r.badChoice].n, "alternative", "alternatives"))
	case len(r.points) < len(values):
		return nil, fmt.Errorf("replay %q has %s but the scenario made only %d; replay it with the scenario that printed it", replay, plural(len(values), "choice", "choices"), len(r.points))
	}
	return &Replayed{Steps: r.trace, Violations: r.violations}, nil
}

// pairWords names a pair in a refusal: none when digest is empty, else
// its name (when known) and digest.
func pairWords(digest, name string) string {
	switch {
	case digest == "":
		return "a scenario that records no pair"
	case name == "":
		return "the programs whose digest is " + digest
	}
	return name + " (digest " + digest + ")"
}

// Replayed is one replayed schedule.
type Replayed struct {
	Steps      []Step
	Violations []oracle.Violation
}

// plural is n with the noun, singular for 1: "1 schedule", "2 schedules".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
