package campaign

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/residentlua/residentlua/internal/input"
)

// command is the name the replay commands of failures start with.
const command = "residentlua"

// Summary adds up a campaign's trials, or a shard's. It is a function of
// the seeds alone: the same for any number of workers, and Merge of the
// shards' summaries is the summary of a single run.
type Summary struct {
	// Version names the program that ran the campaign (Config.Version).
	Version string `json:"version"`
	// Script is the trial script's path as given; empty for the built-in
	// trial and for a Go trial.
	Script string `json:"script,omitempty"`
	// Func is the name of the Go trial that ran (Func's); empty for the
	// built-in trial and for a script.
	Func string `json:"func,omitempty"`
	// ScriptSHA256 is the SHA-256 of the script's bytes, in hex, and
	// TrialFabricSHA256 that of the canonical text of its trial_fabric
	// (the options of its trials' fabrics); Merge compares these, not
	// the paths.
	ScriptSHA256      string `json:"script_sha256,omitempty"`
	TrialFabricSHA256 string `json:"trial_fabric_sha256,omitempty"`
	// FilesSHA256 is the SHA-256, in hex, of each file the script read a
	// device program or a kernel from, by the path the script gave; Merge
	// refuses summaries where one path has two digests.
	FilesSHA256 map[string]string `json:"files_sha256,omitempty"`
	// Args are the script's named arguments as given ("k=v", the
	// command's --arg), which the replay commands give again; Merge
	// refuses summaries of other arguments.
	Args []string `json:"args,omitempty"`
	// Seed is the campaign's seed S: trial i has seed S+i.
	Seed uint64 `json:"seed"`
	// Campaign is N, the number of trials of the whole campaign.
	Campaign int `json:"campaign"`
	// Shard lists the shards the summary holds, when not all of them.
	Shard *ShardSet `json:"shard,omitempty"`
	// Planned is how many trials the summary was to hold (a shard's
	// share); Trials how many finished. Fewer means the run was stopped.
	Planned int `json:"planned"`
	Trials  int `json:"trials"`
	// Outcomes counts the trials by outcome (see Trial.Outcome).
	Outcomes map[string]int `json:"outcomes"`
	// Sessions and Fired count the built-in trials' sessions by how they
	// ended and the faults fired by "site action".
	Sessions map[string]int `json:"sessions,omitempty"`
	Fired    map[string]int `json:"fired,omitempty"`
	// Reach counts the trials whose sessions came so far (made, decided
	// RUN, retired); nil when no trial counted them (a Go trial's).
	Reach *Reach `json:"reach,omitempty"`
	// Violations is how many violations the oracle found, in every trial.
	Violations int `json:"violations"`
	// Failures lists the failed trials by seed.
	Failures []Failure `json:"failures"`
	// Measurements holds each recorded measurement's distribution, by name.
	Measurements map[string]*Measurement `json:"measurements,omitempty"`
	// StopReason says why the run stopped itself, when it did (too many
	// measurement names); empty when it ran to its end or ctx stopped it.
	StopReason string `json:"-"`
	// Warnings are what the run noticed that makes its results doubtful:
	// trials that ended otherwise when run again on a fresh runner.
	// They are not part of the summary's JSON or text.
	Warnings []string `json:"-"`
}

// ShardSet says which of Of shards a summary holds.
type ShardSet struct {
	Of   int   `json:"of"`
	Have []int `json:"have"`
}

// Failure is a failed trial and the command that replays it alone (none
// for a Go trial: Replay runs it).
type Failure struct {
	Seed    uint64 `json:"seed"`
	Outcome string `json:"outcome"`
	Message string `json:"message"`
	Replay  string `json:"replay"`
}

// newSummary is the empty summary of cfg's shard of planned trials;
// describe names its trials.
func newSummary(cfg Config, planned int) *Summary {
	s := &Summary{Version: cfg.Version, Seed: cfg.Seed, Campaign: cfg.Trials, Planned: planned}
	if cfg.Shards > 1 {
		s.Shard = &ShardSet{Of: cfg.Shards, Have: []int{cfg.Shard}}
	}
	s.normalize()
	return s
}

// normalize gives the summary's maps and lists their empty values, so that
// summaries equal in content are equal in JSON.
func (s *Summary) normalize() {
	if s.Outcomes == nil {
		s.Outcomes = map[string]int{}
	}
	if s.Sessions == nil {
		s.Sessions = map[string]int{}
	}
	if s.Fired == nil {
		s.Fired = map[string]int{}
	}
	if s.Failures == nil {
		s.Failures = []Failure{}
	}
	if s.Measurements == nil {
		s.Measurements = map[string]*Measurement{}
	}
}

// Stopped reports whether the run was stopped before the end of its
// planned trials (Ctrl-C, SIGTERM): it holds fewer, or some were
// interrupted.
func (s *Summary) Stopped() bool { return s.Trials < s.Planned || s.Interrupted() > 0 }

// Interrupted is how many trials the run's stop interrupted.
func (s *Summary) Interrupted() int { return s.Outcomes[OutcomeInterrupted] }

// describe lets r name the trials in s, and checks what it gave.
func (s *Summary) describe(r Runners) error {
	if err := r.Describe(s); err != nil {
		return err
	}
	if err := s.validateTrials(); err != nil {
		return fmt.Errorf("campaign: the runners describe their trials wrongly: %w", err)
	}
	return nil
}

// builtin reports whether the summary's trials are the built-in trial's.
func (s *Summary) builtin() bool { return s.Script == "" && s.Func == "" }

// failing reports whether outcome is a failure's: for a script or a Go
// trial, one the campaign gives (but "interrupted"); for the built-in
// trial any but "ok" and "interrupted".
func (s *Summary) failing(outcome string) bool {
	if outcome == OutcomeInterrupted {
		return false
	}
	if s.builtin() {
		return outcome != "ok"
	}
	return slices.Contains(reservedOutcomes, outcome)
}

// Failed is the number of failed trials.
func (s *Summary) Failed() int { return len(s.Failures) }

// replayCommand is the command that replays the trial of seed alone; none
// for a Go trial, which has no command line.
func (s *Summary) replayCommand(seed uint64) string {
	if s.Func != "" {
		return ""
	}
	words := []string{command, "campaign"}
	if s.Script != "" {
		words = append(words, shellQuote(s.Script))
	}
	for _, a := range s.Args {
		words = append(words, "--arg", shellQuote(a))
	}
	words = append(words, "--seed", strconv.FormatUint(s.Seed, 10), "--trials", strconv.Itoa(s.Campaign), "--replay", strconv.FormatUint(seed, 10))
	return strings.Join(words, " ")
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=+,:@") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// add counts one trial, in any order: each worker adds its trials to a
// summary of its own, and merge adds those up.
func (s *Summary) add(t *Trial) {
	s.Trials++
	s.Outcomes[t.Outcome]++
	addCounts(s.Sessions, t.Sessions)
	addCounts(s.Fired, t.Fired)
	s.Violations += t.Violations
	if t.Reached != ReachUncounted {
		if s.Reach == nil {
			s.Reach = &Reach{}
		}
		s.Reach.add(t.Reached, t.Seed, t.Unreached)
	}
	if t.Failed {
		s.Failures = append(s.Failures, Failure{Seed: t.Seed, Outcome: t.Outcome, Message: t.Message}) // fillReplays gives the replay
	}
	for _, r := range t.records {
		m := s.Measurements[r.name]
		if m == nil {
			m = newMeasurement()
			s.Measurements[r.name] = m
		}
		m.add(r.value, t.Outcome)
	}
}

// Merge adds two summaries of the same campaign (shards, each run once)
// into the summary of both: counts added, histograms merged bucket by
// bucket, failures by seed. The shards of a whole campaign merge into what
// a single run gives, byte for byte. An empty Summary (the zero value)
// merges into the other unchanged. Summaries of different campaigns, or
// that hold the same shard, are refused.
func Merge(a, b *Summary) (*Summary, error) {
	switch {
	case a.Campaign == 0:
		a, b = b, a
	case b.Campaign != 0:
		if err := sameCampaign(a, b); err != nil {
			return nil, err
		}
	}
	out := &Summary{Version: a.Version, Script: a.Script, Func: a.Func, ScriptSHA256: a.ScriptSHA256, TrialFabricSHA256: a.TrialFabricSHA256, Args: slices.Clone(a.Args), Seed: a.Seed, Campaign: a.Campaign}
	if files := len(a.FilesSHA256) + len(b.FilesSHA256); files > 0 {
		out.FilesSHA256 = make(map[string]string, files)
		maps.Copy(out.FilesSHA256, a.FilesSHA256)
		maps.Copy(out.FilesSHA256, b.FilesSHA256) // sameCampaign found no path with two digests
	}
	out.normalize()
	shard, err := mergeShards(a, b)
	if err != nil {
		return nil, err
	}
	out.Shard = shard
	for _, s := range []*Summary{a, b} {
		out.merge(s, false)
	}
	out.sortFailures()
	out.fillReplays()
	return out, nil
}

// fillReplays gives each failure the command that replays it.
func (s *Summary) fillReplays() {
	for i := range s.Failures {
		s.Failures[i].Replay = s.replayCommand(s.Failures[i].Seed)
	}
}

// sameCampaign says why a and b are not summaries of the same campaign: a
// script of other bytes, another trial_fabric or Go trial, version, --seed
// or --trials. The scripts' paths may differ.
func sameCampaign(a, b *Summary) error {
	why := ""
	switch {
	case a.Func != b.Func:
		why = fmt.Sprintf("their Go trials differ (%q and %q)", a.Func, b.Func)
	case a.ScriptSHA256 != b.ScriptSHA256:
		why = "their trial scripts differ (by the SHA-256 of their bytes)"
	case a.TrialFabricSHA256 != b.TrialFabricSHA256:
		why = "their scripts' trial_fabric differ"
	case !slices.Equal(a.Args, b.Args):
		why = fmt.Sprintf("their scripts' arguments differ (--arg %q and %q)", a.Args, b.Args)
	case differentFile(a.FilesSHA256, b.FilesSHA256) != "":
		why = fmt.Sprintf("their scripts read different files %s (by the SHA-256 of their bytes)", differentFile(a.FilesSHA256, b.FilesSHA256))
	case a.Version != b.Version:
		why = fmt.Sprintf("they were made by different versions (%q and %q), whose trials may differ", a.Version, b.Version)
	case a.Seed != b.Seed || a.Campaign != b.Campaign:
		why = "their --seed or --trials differ"
	default:
		return nil
	}
	return fmt.Errorf("campaign: cannot merge different campaigns: %s and %s: %s", a.campaignWords(), b.campaignWords(), why)
}

// differentFile is the first path, in order, that a and b give different
// digests, quoted, or "".
func differentFile(a, b map[string]string) string {
	for _, path := range slices.Sorted(maps.Keys(a)) {
		if d, ok := b[path]; ok && d != a[path] {
			return strconv.Quote(path)
		}
	}
	return ""
}

// sortFailures puts the failures in the order of their seeds, the order a
// single run in index order lists them.
func (s *Summary) sortFailures() {
	slices.SortStableFunc(s.Failures, func(x, y Failure) int { return cmp.Compare(x.Seed, y.Seed) })
}

// trials names the summary's trials: "built-in trials", "trials of x.lua".
func (s *Summary) trials() string {
	switch {
	case s.Script != "":
		return "trials of " + s.Script
	case s.Func != "":
		return "trials of " + s.Func
	}
	return "built-in trials"
}

// campaignWords names a summary's campaign for a message.
func (s *Summary) campaignWords() string {
	return fmt.Sprintf("%d %s from seed %d", s.Campaign, s.trials(), s.Seed)
}

// merge adds o's counts to s (nothing for an empty Summary); the failures
// are left for sortFailures to put in order. With take, o is let go
// afterwards, and a measurement s does not have yet becomes o's own rather
// than a copy (its histograms are about 400 KB each).
func (s *Summary) merge(o *Summary, take bool) {
	s.Planned += o.Planned
	s.Trials += o.Trials
	addCounts(s.Outcomes, o.Outcomes)
	addCounts(s.Sessions, o.Sessions)
	addCounts(s.Fired, o.Fired)
	s.Violations += o.Violations
	if o.Reach != nil {
		if s.Reach == nil {
			s.Reach = &Reach{}
		}
		s.Reach.merge(o.Reach)
	}
	s.Failures = append(s.Failures, o.Failures...)
	for name, m := range o.Measurements {
		switch {
		case s.Measurements[name] != nil:
			s.Measurements[name].merge(m)
		case take:
			s.Measurements[name] = m
		default:
			s.Measurements[name] = newMeasurement()
			s.Measurements[name].merge(m)
		}
	}
}

// mergeShards is the shard set of a and b together: nil once it is every
// shard (or for an empty summary merged with a whole run).
func mergeShards(a, b *Summary) (*ShardSet, error) {
	if b.Campaign == 0 {
		return cloneShards(a.Shard), nil
	}
	if a.Shard == nil || b.Shard == nil {
		return nil, errors.New("campaign: cannot merge a whole campaign's summary with another of the same campaign: the trials would count twice")
	}
	if a.Shard.Of != b.Shard.Of {
		return nil, fmt.Errorf("campaign: cannot merge shards of %d with shards of %d", a.Shard.Of, b.Shard.Of)
	}
	have := slices.Concat(a.Shard.Have, b.Shard.Have)
	slices.Sort(have)
	for i := 1; i < len(have); i++ {
		if have[i] == have[i-1] {
			return nil, fmt.Errorf("campaign: both summaries hold shard %d of %d: the trials would count twice", have[i], a.Shard.Of)
		}
	}
	if len(have) == a.Shard.Of {
		return nil, nil
	}
	return &ShardSet{Of: a.Shard.Of, Have: have}, nil
}

func cloneShards(s *ShardSet) *ShardSet {
	if s == nil {
		return nil
	}
	return &ShardSet{Of: s.Of, Have: slices.Clone(s.Have)}
}

// JSON is the summary as indented JSON with a final newline: map keys
// sorted, so the same summary gives the same bytes.
func (s *Summary) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Decode reads a summary that JSON wrote, and refuses anything a run could
// not have written (validate): the error says "not a campaign summary" and
// why, on one line.
func Decode(r io.Reader) (*Summary, error) {
	b, err := input.ReadAll(r, input.Summary)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(b) {
		// JSON decoders turn each invalid byte into U+FFFD, which would
		// merge names that differ into one.
		return nil, errors.New("not a campaign summary: it is not UTF-8 text")
	}
	var s Summary
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a campaign summary: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a campaign summary: more data follows the summary's JSON value (are two files joined?)")
	}
	s.normalize()
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("not a campaign summary: %w", err)
	}
	return &s, nil
}

// addCounts adds src's counts to dst's.
func addCounts(dst, src map[string]int) {
	for k, n := range src {
		dst[k] += n
	}
}
