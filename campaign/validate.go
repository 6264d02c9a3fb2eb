package campaign

import (
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/residentlua/residentlua/internal/seeds"
)

// validate says what in s no run could have written, or nil: every count
// of a summary follows from the others, so a file edited by hand, damaged,
// joined with another or written by another program is refused rather
// than merged into a wrong result.
func (s *Summary) validate() error {
	if err := s.validateCampaign(); err != nil {
		return err
	}
	if err := s.validateCounts(); err != nil {
		return err
	}
	if err := s.validateFailures(); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(s.Measurements)) {
		if err := s.validateMeasurement(name, s.Measurements[name]); err != nil {
			return fmt.Errorf("measurement %q: %w", name, err)
		}
	}
	return nil
}

// validateCampaign checks what names the campaign: its seeds, its script's
// digests and its shard set, and the trials planned for that set.
func (s *Summary) validateCampaign() error {
	switch {
	case s.Campaign < 1:
		return fmt.Errorf("a campaign of %d trials", s.Campaign)
	case s.Seed < 1 || s.Seed > seeds.Max || uint64(s.Campaign-1) > seeds.Max-s.Seed:
		return fmt.Errorf("seeds %d..%d are not within 1..2^53-1", s.Seed, s.Seed+uint64(s.Campaign)-1)
	}
	if err := s.validateTrials(); err != nil {
		return err
	}
	planned := s.Campaign
	if sh := s.Shard; sh != nil {
		switch {
		case sh.Of < 2 || len(sh.Have) == 0 || len(sh.Have) >= sh.Of:
			return fmt.Errorf("its shard set holds %d of %d shards; a shard set holds some but not all of at least 2", len(sh.Have), sh.Of)
		case !slices.IsSorted(sh.Have) || slices.ContainsFunc(sh.Have, func(k int) bool { return k < 0 || k >= sh.Of }):
			return fmt.Errorf("its shard set %v of %d is not shards K of N with 0 <= K < N, in order", sh.Have, sh.Of)
		case len(slices.Compact(slices.Clone(sh.Have))) != len(sh.Have):
			return fmt.Errorf("its shard set %v names a shard twice", sh.Have)
		}
		planned = 0
		for _, k := range sh.Have {
			planned += (&Config{Trials: s.Campaign, Shard: k, Shards: sh.Of}).Planned()
		}
	}
	if s.Planned != planned {
		return fmt.Errorf("%d trials planned, where its shards of a campaign of %d hold %d", s.Planned, s.Campaign, planned)
	}
	if s.Trials < 0 || s.Trials > s.Planned {
		return fmt.Errorf("%d trials of %d planned", s.Trials, s.Planned)
	}
	return nil
}

// validateTrials checks what names the trials: a script with the digests
// of its bytes and its trial_fabric, a Go trial's name, or neither (the
// built-in trial).
func (s *Summary) validateTrials() error {
	switch {
	case s.Script != "" && s.Func != "":
		return fmt.Errorf("both a script (%q) and a Go trial (%q)", s.Script, s.Func)
	case s.Script == "" && (s.ScriptSHA256 != "" || s.TrialFabricSHA256 != ""):
		return errors.New("digests of a script, but no script")
	case s.Script != "" && (!isDigest(s.ScriptSHA256) || !isDigest(s.TrialFabricSHA256)):
		return errors.New("a script without the SHA-256 digests of its bytes and its trial_fabric (64 hexadecimal digits each)")
	case s.Script == "" && s.FilesSHA256 != nil:
		return errors.New("digests of files a script read, but no script")
	case s.Script == "" && s.Args != nil:
		return errors.New("arguments of a script, but no script")
	}
	for _, a := range s.Args {
		if !utf8.ValidString(a) || !strings.Contains(a, "=") {
			return fmt.Errorf("args holds %q, not a script's argument name=value", a)
		}
	}
	for path, d := range s.FilesSHA256 {
		if path == "" || !utf8.ValidString(path) || !isDigest(d) {
			return fmt.Errorf("files_sha256 holds %q: %q, not a path a script read and the SHA-256 of its bytes (64 hexadecimal digits)", path, d)
		}
	}
	return CheckName("Go trial", s.Func)
}

// isDigest reports whether d is a SHA-256 in hex.
func isDigest(d string) bool {
	b, err := hex.DecodeString(d)
	return err == nil && len(b) == 32
}

// validateCounts checks the counts: never negative, names as a trial may
// give them, the outcomes adding up to the trials.
func (s *Summary) validateCounts() error {
	total := 0
	for _, c := range []struct {
		what   string
		counts map[string]int
	}{{"outcome", s.Outcomes}, {"sessions", s.Sessions}, {"fired", s.Fired}} {
		what, counts := c.what, c.counts
		for _, name := range slices.Sorted(maps.Keys(counts)) {
			if err := CheckName(what, name); err != nil {
				return err
			}
			if counts[name] < 0 {
				return fmt.Errorf("%s %q counts %d", what, name, counts[name])
			}
			if what == "outcome" {
				total += counts[name]
			}
		}
	}
	switch {
	case total != s.Trials:
		return fmt.Errorf("the outcomes count %d trials, where it holds %d", total, s.Trials)
	case s.Violations < s.Outcomes[OutcomeViolation]:
		return fmt.Errorf("%d violations, fewer than the %d trials whose outcome is one", s.Violations, s.Outcomes[OutcomeViolation])
	case s.Reach != nil:
		return s.Reach.validate(s.Trials, s.Seed, s.Campaign)
	}
	return nil
}

// validateFailures checks that the failures are the trials whose outcomes
// are failures', one each, in the order of their seeds, each of a trial
// the summary holds, with the command that replays it.
func (s *Summary) validateFailures() error {
	want := map[string]int{}
	for outcome, n := range s.Outcomes {
		if s.failing(outcome) {
			want[outcome] = n
		}
	}
	got := map[string]int{}
	for i, f := range s.Failures {
		switch {
		case !s.failing(f.Outcome):
			return fmt.Errorf("failure of seed %d has outcome %q, which is not a failure's", f.Seed, f.Outcome)
		case !s.holds(f.Seed):
			return fmt.Errorf("failure of seed %d: not a trial of this summary", f.Seed)
		case i > 0 && f.Seed <= s.Failures[i-1].Seed:
			return fmt.Errorf("failure of seed %d is listed after seed %d: failures are listed once each, by seed", f.Seed, s.Failures[i-1].Seed)
		case f.Replay != s.replayCommand(f.Seed):
			return fmt.Errorf("failure of seed %d: its replay is not the command that replays it (%s)", f.Seed, s.replayCommand(f.Seed))
		}
		got[f.Outcome]++
	}
	if !maps.Equal(got, want) {
		return fmt.Errorf("it lists failures %v, where its outcomes count %v", got, want)
	}
	return nil
}

// holds reports whether the trial of seed is one of the summary's shards.
func (s *Summary) holds(seed uint64) bool {
	if seed < s.Seed || seed-s.Seed >= uint64(s.Campaign) {
		return false
	}
	return s.Shard == nil || slices.Contains(s.Shard.Have, int((seed-s.Seed)%uint64(s.Shard.Of)))
}

// validateMeasurement checks one measurement: a name as Trial.Record takes it,
// exact minimum and maximum within what Trial.Record takes and in the
// histogram's lowest and highest buckets, whole numbers when it says so,
// and histograms by outcome of the summary's outcomes. (UnmarshalJSON
// checked that the histograms hold its count.)
func (s *Summary) validateMeasurement(name string, m *Measurement) error {
	if m == nil {
		return errors.New("null where a measurement belongs")
	}
	if err := CheckName("measurement name", name); err != nil {
		return err
	}
	switch {
	case m.Count < 1:
		return fmt.Errorf("%d values", m.Count)
	case !(m.Min >= 0 && m.Min <= m.Max && m.Max <= MaxRecord):
		return fmt.Errorf("min %v and max %v are not 0 <= min <= max <= %g", m.Min, m.Max, float64(MaxRecord))
	case m.Whole && (m.Min != math.Trunc(m.Min) || m.Max != math.Trunc(m.Max)):
		return fmt.Errorf("whole numbers, but min %v and max %v", m.Min, m.Max)
	case !m.hist.ValuesAreEquivalent(m.hist.Min(), histValue(m.Min)) || !m.hist.ValuesAreEquivalent(m.hist.Max(), histValue(m.Max)):
		return fmt.Errorf("min %v and max %v are not in the histogram's lowest and highest buckets", m.Min, m.Max)
	}
	for outcome := range m.byOutcome {
		if s.Outcomes[outcome] == 0 {
			return fmt.Errorf("a histogram of outcome %q, which no trial had", outcome)
		}
	}
	return nil
}
