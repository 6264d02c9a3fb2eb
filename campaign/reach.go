package campaign

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Reached is how far a trial's sessions came: whether one was made, one
// was decided RUN, and a RUN session retired (each implies the ones
// before). The built-in trial's runner and a script's say it; a Go trial
// does not (ReachUncounted).
type Reached uint8

// How far a trial's sessions came, from nowhere to a retired RUN session.
const (
	ReachUncounted Reached = iota // the runner does not count sessions
	ReachNone                     // the trial tried to make a session and none was made
	ReachMade                     // a session was made, none decided RUN
	ReachDecided                  // a session was decided RUN, none that was retired
	ReachRetired                  // a RUN session retired
)

// reachedNames are the Reached values' names in a --out line.
var reachedNames = [...]string{"", "none", "made", "decided", "retired"}

// MarshalText names r: "none", "made", "decided" or "retired".
func (r Reached) MarshalText() ([]byte, error) {
	if r == ReachUncounted || int(r) >= len(reachedNames) {
		return nil, fmt.Errorf("campaign: no name for reach %d", r)
	}
	return []byte(reachedNames[r]), nil
}

// UnmarshalText reads a name MarshalText wrote.
func (r *Reached) UnmarshalText(b []byte) error {
	for i, name := range reachedNames {
		if i > 0 && string(b) == name {
			*r = Reached(i)
			return nil
		}
	}
	return fmt.Errorf("campaign: %q is not how far a trial's sessions came (none, made, decided or retired)", b)
}

// Reach counts the trials whose sessions came so far: the trials in which
// a session was made, in which one was decided RUN, and in which a RUN
// session retired, so that a reader sees how much of the space the
// trials' programs reached. A campaign in which no trial decided a
// session RUN proved nothing of them (Summary.Vacuous).
type Reach struct {
	// Counted is how many trials said how far their sessions came: every
	// one but those that made no attempt at a session (a script's trial
	// that called no startup).
	Counted int `json:"counted"`
	Made    int `json:"made"`
	Decided int `json:"decided"`
	Retired int `json:"retired"`
	// Reason is why the trial of seed ReasonSeed, the first that decided
	// no session RUN, did not: the first error of making its sessions
	// (its programs' error, say). Empty when every trial decided one.
	Reason     string `json:"reason,omitempty"`
	ReasonSeed uint64 `json:"reason_seed,omitempty"`
}

// add counts a trial that came so far, of seed, which says why when no
// session was decided RUN.
func (r *Reach) add(reached Reached, seed uint64, why string) {
	r.Counted++
	if reached >= ReachMade {
		r.Made++
	}
	if reached >= ReachDecided {
		r.Decided++
	}
	if reached >= ReachRetired {
		r.Retired++
	}
	if reached < ReachDecided && (r.Reason == "" || seed < r.ReasonSeed) {
		if why == "" {
			why = "no session was decided RUN"
			if reached == ReachNone {
				why = "no session was made"
			}
		}
		r.Reason, r.ReasonSeed = bounded(why), seed
	}
}

// merge adds o's counts to r, keeping the reason of the lower seed.
func (r *Reach) merge(o *Reach) {
	r.Counted += o.Counted
	r.Made += o.Made
	r.Decided += o.Decided
	r.Retired += o.Retired
	if o.Reason != "" && (r.Reason == "" || o.ReasonSeed < r.ReasonSeed) {
		r.Reason, r.ReasonSeed = o.Reason, o.ReasonSeed
	}
}

// validate says what in r no run of trials trials could have written.
func (r *Reach) validate(trials int, seed uint64, campaign int) error {
	switch {
	case r.Counted < 0 || r.Counted > trials:
		return fmt.Errorf("reach: %d trials counted of %d", r.Counted, trials)
	case r.Made < 0 || r.Made > r.Counted || r.Decided < 0 || r.Decided > r.Made || r.Retired < 0 || r.Retired > r.Decided:
		return fmt.Errorf("reach: %d made, %d decided RUN and %d retired of %d trials counted: each is at most the one before", r.Made, r.Decided, r.Retired, r.Counted)
	case (r.Reason == "") != (r.Decided == r.Counted):
		return errors.New("reach: a reason must be given exactly when a trial decided no session RUN")
	case !utf8.ValidString(r.Reason) || len(r.Reason) > 2*MaxMessage:
		return errors.New("reach: the reason is not text of a trial's message")
	case r.Reason != "" && (r.ReasonSeed < seed || r.ReasonSeed-seed >= uint64(campaign)):
		return fmt.Errorf("reach: the reason's seed %d is not one of the campaign's", r.ReasonSeed)
	}
	return nil
}

// Vacuous says why the campaign proved nothing of its trials' programs,
// or "": the trials tried to make sessions, and none was decided RUN, so
// no program ran past its startup. It is "" for trials that do not count
// their sessions, for a run stopped before its end, for a shard's summary,
// whose trials are a part of the campaign's (Merge's of every shard says),
// and for the built-in trial, whose random host operations abort many of
// its sessions on purpose: it judges the engine, whose every path its
// counts show, not programs of one's own.
func (s *Summary) Vacuous() string {
	r := s.Reach
	if r == nil || r.Counted == 0 || r.Decided > 0 || s.Stopped() || s.Shard != nil || s.builtin() {
		return ""
	}
	why := "no trial decided a session RUN"
	if r.Made == 0 {
		why = "no trial made a session"
	}
	return fmt.Sprintf("%s: the programs never ran; the first trial's reason (seed %d): %s", why, r.ReasonSeed, r.Reason)
}

// writeReach writes the Reach line of the summary's text.
func (s *Summary) writeReach(b *strings.Builder) {
	r := s.Reach
	if r == nil {
		return
	}
	fmt.Fprintf(b, "sessions reached: a session made in %s, decided RUN in %d, a RUN session retired in %d\n",
		plural(r.Made, "trial", "trials"), r.Decided, r.Retired)
	if why := s.Vacuous(); why != "" {
		fmt.Fprintf(b, "nothing checked: %s\n", why)
	}
}
