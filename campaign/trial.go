package campaign

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"unicode/utf8"
)

// The outcomes a campaign gives a trial itself, for the readers of
// Trial.Outcome. A trial may not give itself one of them
// (ReservedOutcomes): they would read as failures, or as a stopped run,
// while counting as neither.
const (
	OutcomeError       = "error"       // the trial raised or returned an error
	OutcomeViolation   = "violation"   // the oracle found a violation
	OutcomeFailed      = "failed"      // the trial failed itself (t.fail, Trial.Failed)
	OutcomeTimeout     = "timeout"     // the trial ran past its time limit (a failure)
	OutcomeInterrupted = "interrupted" // the run was stopped while the trial ran (not a failure)
)

// reservedOutcomes are the outcomes ReservedOutcomes lists.
var reservedOutcomes = []string{OutcomeError, OutcomeViolation, OutcomeFailed, OutcomeTimeout, OutcomeInterrupted}

// ReservedOutcomes lists the outcomes a campaign gives a trial itself,
// which a trial may not give itself: OutcomeError and the others.
func ReservedOutcomes() []string { return slices.Clone(reservedOutcomes) }

// maxNameBytes is the longest outcome or measurement name, in bytes.
const maxNameBytes = 64

// CheckName says what is wrong with an outcome's or a measurement's name,
// what saying which ("measurement name"), or nil: it must be valid UTF-8 of
// at most 64 bytes, so that summaries keep each name apart and print it as
// given. Trial.Record and Func's trials check their names with it.
func CheckName(what, name string) error {
	switch {
	case !utf8.ValidString(name):
		return fmt.Errorf("%s %q is not valid UTF-8; give a name of text", what, name)
	case len(name) > maxNameBytes:
		return fmt.Errorf("%s %q is %d bytes long; give a name of at most %d bytes", what, name[:maxNameBytes]+"...", len(name), maxNameBytes)
	}
	return nil
}

// Trial is what one trial did: a line of the command's --out file. A
// Runner fills it in; Func's trials and Lua trial scripts give their
// outcome, failure and measurements as Func says.
type Trial struct {
	// Index is the trial's index in the campaign (from 0); Seed is the
	// campaign's seed plus Index.
	Index int    `json:"index"`
	Seed  uint64 `json:"seed"`
	// Outcome is how the trial ended: the name the trial gave ("ok" when
	// it gave none), or "interrupted" (the run was stopped while it ran),
	// "timeout" (it ran past its time limit), "error" (it raised or
	// returned one), "violation" (the oracle found one) or "failed" (it
	// failed itself), in that order of precedence. A built-in trial is
	// "ok", "violation", "problem" (a contract break the oracle does not
	// watch) or "unsettled" (something was left held after the trial).
	Outcome string `json:"outcome"`
	// Failed is true when the trial is a failure: an error, a timeout, a
	// violation, a trial that failed itself, or a built-in trial that was
	// not ok. An interrupted trial is not one: it did not end.
	Failed bool `json:"failed,omitempty"`
	// Message says why it failed.
	Message string `json:"message,omitempty"`
	// Violations is how many violations the oracle found.
	Violations int `json:"violations,omitempty"`
	// Sessions counts a built-in trial's sessions by how they ended.
	Sessions map[string]int `json:"sessions,omitempty"`
	// Reached says how far the trial's sessions came, for a runner that
	// counts them: the built-in trial's, and a script's once its trial
	// called startup.
	Reached Reached `json:"reached,omitempty"`
	// Unreached is why no session of the trial was decided RUN, when none
	// was: the first error of making one (its programs' error, say).
	Unreached string `json:"-"`
	// Fired counts the faults that fired in a built-in trial, by "site action".
	Fired map[string]int `json:"fired,omitempty"`
	// Records holds the measurements the trial recorded, by name, in the
	// order recorded (Record; a built-in trial records "elapsed", its
	// fabric time in seconds).
	Records map[string][]float64 `json:"records,omitempty"`
	// Report is the trial in full, for a replay: a built-in trial's
	// host operations, violations and problems; a script trial's message
	// (and an error's traceback).
	Report string `json:"-"`
	// records holds the measurements as recorded, which the summary adds
	// up; Records is made from them only for those who read it (OnTrial
	// and Replay), so that a worker's trials reuse one slice.
	records []record
	// names admits the names of the measurements; nil outside a run.
	names *workerNames
}

// record is one recorded measurement.
type record struct {
	name  string
	value float64
}

// reset readies t, a worker's scratch, for the trial of index and seed,
// keeping the storage of its Sessions and records; names admits its
// measurements' names.
func (t *Trial) reset(index int, seed uint64, names *workerNames) {
	sessions, records := t.Sessions, t.records[:0]
	clear(sessions)
	*t = Trial{Index: index, Seed: seed, Outcome: "ok", Sessions: sessions, records: records, names: names}
}

// clone is a copy of t with storage of its own, its Records filled in.
func (t *Trial) clone() Trial {
	c := *t
	c.Sessions = maps.Clone(t.Sessions)
	c.records = slices.Clone(t.records)
	c.publish()
	return c
}

// MaxRecord is the largest value Record takes: a billion seconds (or a
// billion of a count), whose nanoseconds still fit the histograms.
const MaxRecord = 1e9

// Record adds a measurement to the trial: value, from 0 to MaxRecord
// (seconds, for a time; a count otherwise), under name, of at most 64
// bytes of UTF-8 (CheckName), one of at most Config.MaxMeasurements names
// in the run. The error says what was wrong, and nothing is recorded; the
// first name beyond the limit also stops the run (Summary.StopReason).
func (t *Trial) Record(name string, value float64) error {
	if math.IsNaN(value) || value < 0 || value > MaxRecord {
		return fmt.Errorf("measurement %q: %v is not a value from 0 to %g", name, value, float64(MaxRecord))
	}
	if err := t.names.admit(name); err != nil {
		return err
	}
	t.records = append(t.records, record{name, value})
	return nil
}

// publish gives t storage of its own for those who keep it (OnTrial and
// Replay): Fired copied from the runner's result, which the next trial
// reuses, and Records filled in from the measurements recorded.
func (t *Trial) publish() {
	t.names = nil
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
