package campaign

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine/trial"
)

// The outcomes a campaign gives a trial itself. A script's trial may not
// return one of them (ReservedOutcome): they would read as failures, or as
// a stopped run, while counting as neither.
const (
	OutcomeError       = "error"       // trial(t) raised an error
	OutcomeViolation   = "violation"   // the oracle found a violation
	OutcomeFailed      = "failed"      // the trial called t.fail
	OutcomeTimeout     = "timeout"     // the trial ran past its time limit (a failure)
	OutcomeInterrupted = "interrupted" // the run was stopped while the trial ran (not a failure)
)

// reservedOutcomes are the outcomes ReservedOutcome names.
var reservedOutcomes = []string{OutcomeError, OutcomeViolation, OutcomeFailed, OutcomeTimeout, OutcomeInterrupted}

// ReservedOutcome reports whether a script's trial may not return outcome
// because the campaign gives it (OutcomeError and the others).
func ReservedOutcome(outcome string) bool { return slices.Contains(reservedOutcomes, outcome) }

// MaxNameBytes is the longest outcome or measurement name, in bytes.
const MaxNameBytes = 64

// checkName says what is wrong with an outcome's or a measurement's name
// (what says which), or nil: it must be valid UTF-8 of at most
// MaxNameBytes bytes, so that summaries keep each name apart and print it
// as given.
func checkName(what, name string) error {
	switch {
	case !utf8.ValidString(name):
		return fmt.Errorf("%s %q is not valid UTF-8; give a name of text", what, name)
	case len(name) > MaxNameBytes:
		return fmt.Errorf("%s %q is %d bytes long; give a name of at most %d bytes", what, name[:MaxNameBytes]+"...", len(name), MaxNameBytes)
	}
	return nil
}

// Trial is what one trial did: a line of the command's --out file.
type Trial struct {
	// Index is the trial's index in the campaign (from 0); Seed is the
	// campaign's seed plus Index.
	Index int    `json:"index"`
	Seed  uint64 `json:"seed"`
	// Outcome is how the trial ended: what a script's trial(t) returned
	// ("ok" when it returned nothing), or "interrupted" (the run was
	// stopped while it ran), "timeout" (it ran past its time limit),
	// "error" (it raised one), "violation" (the oracle found one) or
	// "failed" (it called t.fail), in that order of precedence. A built-in
	// trial is "ok", "violation", "problem" (a contract break the oracle
	// does not watch) or "unsettled" (something was left held after the
	// trial).
	Outcome string `json:"outcome"`
	// Failed is true when the trial is a failure: an error, a timeout, a
	// violation, t.fail, or a built-in trial that was not ok. An
	// interrupted trial is not one: it did not end.
	Failed bool `json:"failed,omitempty"`
	// Message says why it failed.
	Message string `json:"message,omitempty"`
	// Violations is how many violations the oracle found.
	Violations int `json:"violations,omitempty"`
	// Sessions counts a built-in trial's sessions by how they ended.
	Sessions map[string]int `json:"sessions,omitempty"`
	// Fired counts the faults that fired in a built-in trial, by "site action".
	Fired map[string]int `json:"fired,omitempty"`
	// Records holds the measurements the trial recorded, by name, in the
	// order recorded (t.record; a built-in trial records "elapsed", its
	// fabric time in seconds).
	Records map[string][]float64 `json:"records,omitempty"`
	// Report is the trial in full, for a replay: a built-in trial's
	// host operations, violations and problems; a script trial's message.
	Report string `json:"-"`
	// records holds the measurements as recorded, which the summary adds
	// up; Records is made from them only for those who read it (OnTrial
	// and Replay), so that a worker's trials reuse one slice.
	records []record
}

// record is one recorded measurement.
type record struct {
	name  string
	value float64
}

// reset readies t, a worker's scratch, for the trial of index and seed,
// keeping the storage of its Sessions and records.
func (t *Trial) reset(index int, seed uint64) {
	sessions, records := t.Sessions, t.records[:0]
	clear(sessions)
	*t = Trial{Index: index, Seed: seed, Outcome: "ok", Sessions: sessions, records: records}
}

// clone is a copy of t with storage of its own, its Records filled in.
func (t *Trial) clone() Trial {
	c := *t
	c.Sessions = maps.Clone(t.Sessions)
	c.records = slices.Clone(t.records)
	c.publish()
	return c
}

// record adds a measurement.
func (t *Trial) record(name string, v float64) {
	t.records = append(t.records, record{name, v})
}

// publish gives t storage of its own for those who keep it (OnTrial and
// Replay): Fired copied from the runner's result, which the next trial
// reuses, and Records filled in from the measurements recorded.
func (t *Trial) publish() {
	if t.Fired != nil {
		t.Fired = maps.Clone(t.Fired)
	}
	if len(t.records) == 0 {
		return
	}
	t.Records = map[string][]float64{}
	for _, r := range t.records {
		t.Records[r.name] = append(t.Records[r.name], r.value)
	}
}

// builtinRunner runs engine/trial's randomized protocol trial.
type builtinRunner struct {
	onFabric func(*devices.Fabric)
	report   bool // write each trial's report (a replay; a campaign needs none, and it costs)
	// res is the result of the trial running, whose maps and slices each
	// trial reuses; a Trial's Fired refers to it until publish copies it.
	res trial.Result
}

func (b *builtinRunner) run(t *Trial) {
	r := &b.res
	trial.RunInto(trial.Config{Seed: t.Seed, OnFabric: b.onFabric, NoOps: !b.report}, r)
	t.Violations = len(r.Violations)
	t.Fired = r.Fired
	countSessions(t, r.Sessions)
	if b.report {
		t.Report = r.Report()
	}
	t.record("elapsed", r.Elapsed.Seconds())
	switch {
	case len(r.Violations) > 0:
		t.Outcome, t.Message = "violation", r.Violations[0].Error()
	case len(r.Problems) > 0:
		t.Outcome, t.Message = "problem", r.Problems[0]
	case !r.Settled:
		t.Outcome, t.Message = "unsettled", "not settled after the resets"
	}
	if t.Outcome != "ok" {
		t.Failed = true
		t.Message += " (" + faultList(r.Faults) + ")"
	}
}

// countSessions counts a built-in trial's sessions by how they ended
// (as trial.Result.Outcomes does) into t.Sessions, which it reuses.
func countSessions(t *Trial, sessions []trial.Session) {
	if t.Sessions == nil {
		t.Sessions = make(map[string]int, 3)
	}
	for _, s := range sessions {
		name := "not made"
		if s.ID != 0 {
			name = s.Outcome.String()
		}
		t.Sessions[name]++
	}
}

func (*builtinRunner) fabricDigest() string { return "" }

func (*builtinRunner) close() {}

// faultList names a built-in trial's armed faults for a failure's message.
func faultList(faults []string) string {
	if len(faults) == 0 {
		return "no faults"
	}
	return "faults " + strings.Join(faults, ", ")
}
