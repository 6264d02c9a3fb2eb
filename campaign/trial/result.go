package trial

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
)

// Session is what became of one session of a trial.
type Session struct {
	// ID is the session's id in events, 0 when it could not be made.
	ID uint64
	// Args are the arguments the session's pair drew, in words ("2
	// rounds, 1 credit, 64-byte slots on aql" for the built-in exchange);
	// empty with Config.NoOps, as the operations' lines are.
	Args string
	// Outcome is how Close ended it, 0 when it could not be made.
	Outcome engine.Outcome
	// Decision is the decision published (RUN or ABORT), StartupWait for
	// none.
	Decision oracle.Decision
	// Verified is true when a RUN session retired and its programs' checks
	// passed.
	Verified bool
	// Err is why the session could not be made, empty when it was.
	Err string
}

// Result is the outcome of Run.
type Result struct {
	// Seed replays the trial: in simulated time, Run with the same
	// configuration and seed gives the same events, byte for byte.
	Seed uint64
	// Faults lists the fault chains armed, as "site=chain".
	Faults []string
	// Ops lists the host operations made, in order, each with what it returned.
	Ops []string
	// Sessions lists the sessions, in the order they were opened.
	Sessions []Session
	// ErrorKinds counts the errors host operations returned, by kind ("busy",
	// "device", "publish", "budget", ...).
	ErrorKinds map[string]int
	// Fired counts the faults that fired, by "site action".
	Fired map[string]int
	// Paths counts protocol paths the trial went through, seen in its
	// events: "reject after peer accepted", "poisoned", "check passed",
	// "check failed", "quarantine released".
	Paths map[string]int
	// Violations lists what the oracle found, CheckSettled included.
	Violations []oracle.Violation
	// Problems lists contract breaks the oracle does not watch: a session
	// that did not end retired or quarantined, a second submit or an early
	// Wait that was not Busy, a Start that succeeded with a participant
	// missing, a RUN session retired unverified, a quarantine the fabric
	// does not list, memory or devices still held after every device was
	// reset.
	Problems []string
	// Settled is true when every session ended retired or quarantined and,
	// after every device was reset, no quarantine is left, no device is
	// occupied and nothing is charged to the budget.
	Settled bool
	// Budget is the fabric's budget after the resets.
	Budget memory.BudgetState
	// Events is how many events the trial emitted; Digest hashes them all.
	Events, Digest uint64
	// Elapsed is the fabric time the trial took (virtual in simulated time).
	Elapsed time.Duration
}

// reset empties r for the trial of seed, keeping its maps and the storage
// of its slices for the trial's own.
func (r *Result) reset(seed uint64) {
	maps := [...]map[string]int{r.ErrorKinds, r.Fired, r.Paths}
	for i, m := range maps {
		if m == nil {
			maps[i] = map[string]int{}
		}
		clear(maps[i])
	}
	*r = Result{Seed: seed, Faults: r.Faults[:0], Ops: r.Ops[:0], Sessions: r.Sessions[:0],
		ErrorKinds: maps[0], Fired: maps[1], Paths: maps[2], Problems: r.Problems[:0]}
}

// OK reports whether the trial found nothing wrong: no violation, no
// problem, and everything settled.
func (r Result) OK() bool {
	return len(r.Violations) == 0 && len(r.Problems) == 0 && r.Settled
}

// Outcomes counts the trial's sessions by how they ended: "retired",
// "quarantined", or "not made" when making the session failed.
func (r Result) Outcomes() map[string]int {
	out := map[string]int{}
	for _, s := range r.Sessions {
		out[s.outcomeName()]++
	}
	return out
}

func (s Session) outcomeName() string {
	if s.ID == 0 {
		return "not made"
	}
	return s.Outcome.String()
}

// String summarises the trial in one line, seed first, so that a failure
// can be replayed.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: ", r.Seed)
	for i, s := range r.Sessions {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.outcomeName())
	}
	fmt.Fprintf(&b, "; faults [%s]; %s, %s, settled=%v", strings.Join(r.Faults, " "), plural(len(r.Violations), "violation"), plural(len(r.Problems), "problem"), r.Settled)
	return b.String()
}

// Report is the trial in full, for a person replaying a failure: the
// summary, the faults, every host operation, every violation with the
// events that led to it, and every problem.
func (r Result) Report() string {
	var b strings.Builder
	b.WriteString(r.String() + "\n")
	b.WriteString("host operations:\n")
	for _, op := range r.Ops {
		b.WriteString("  " + op + "\n")
	}
	for _, v := range r.Violations {
		b.WriteString("violation: " + v.Error() + "\n")
		for _, e := range v.Events {
			b.WriteString("    " + e.Format(actorName) + "\n")
		}
	}
	for _, p := range r.Problems {
		b.WriteString("problem: " + p + "\n")
	}
	return b.String()
}

// actorName names the actors of a trial's fabric, which has the
// default devices.
func actorName(a event.Actor) string {
	switch a {
	case event.HostActor:
		return "host"
	case 1:
		return "gpu0"
	case 2:
		return "npu0"
	}
	return fmt.Sprintf("device%d", a)
}

// Stats adds up trials, for campaigns and benchmarks.
type Stats struct {
	// Trials is how many trials were added; Failed how many were not OK.
	Trials, Failed int
	// Outcomes counts sessions by how they ended (see Result.Outcomes).
	Outcomes map[string]int
	// ErrorKinds counts errors returned to the host, by kind.
	ErrorKinds map[string]int
	// Fired counts faults that fired, by "site action".
	Fired map[string]int
	// Paths counts protocol paths the trials went through (see Result.Paths).
	Paths map[string]int
	// Violations counts violations by invariant number.
	Violations map[int]int
	// FailedSeeds lists the seeds of the first failed trials (at most 20).
	FailedSeeds []uint64
	// Elapsed is the fabric time of every trial added up.
	Elapsed time.Duration
}

// Add counts one trial.
func (s *Stats) Add(r Result) {
	if s.Outcomes == nil {
		s.Outcomes, s.ErrorKinds, s.Fired, s.Paths, s.Violations = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, map[int]int{}
	}
	s.Trials++
	if !r.OK() {
		s.Failed++
		if len(s.FailedSeeds) < 20 {
			s.FailedSeeds = append(s.FailedSeeds, r.Seed)
		}
	}
	addCounts(s.Outcomes, r.Outcomes())
	addCounts(s.ErrorKinds, r.ErrorKinds)
	addCounts(s.Fired, r.Fired)
	addCounts(s.Paths, r.Paths)
	for _, v := range r.Violations {
		s.Violations[v.Invariant]++
	}
	s.Elapsed += r.Elapsed
}

// String lists the figures, keys sorted.
func (s *Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d failed; sessions %s; errors %s; faults fired %s; paths %s; violations %s",
		plural(s.Trials, "trial"), s.Failed, counts(s.Outcomes), counts(s.ErrorKinds), counts(s.Fired), counts(s.Paths), counts(s.Violations))
	if len(s.FailedSeeds) > 0 {
		fmt.Fprintf(&b, "; failed seeds %v", s.FailedSeeds)
	}
	return b.String()
}

// plural is "1 noun" or "n nouns".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// counts formats m as "{k=n ...}", keys sorted by their printed names.
func counts[K comparable](m map[K]int) string {
	keys := make([]string, 0, len(m))
	byName := map[string]int{}
	for k, n := range m {
		name := fmt.Sprint(k)
		keys = append(keys, name)
		byName[name] = n
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, byName[k])
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// addCounts adds src's counts to dst's.
func addCounts(dst, src map[string]int) {
	for k, n := range src {
		dst[k] += n
	}
}
