// Package campaign runs fault campaigns: N seeded trials of the protocol on
// W workers, trial i with seed S+i, added up into a Summary that is a
// function of the seeds alone, whatever the number of workers and however
// the trials are split into shards (whose summaries Merge adds back into
// the one a single run gives).
//
// A trial is either the built-in one (engine/trial's randomized protocol
// trial) or a Lua trial script: a script that defines a global function
// trial(t), run by each worker in a Lua state of its own with the resident
// module open (see docs/campaigns.md).
package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/internal/seeds"
)

// Config says which trials a campaign runs and how.
type Config struct {
	// Trials is N, the number of trials of the whole campaign (of every
	// shard together); at least 1.
	Trials int
	// Workers is how many trials run at once, each worker with its own Lua
	// state; 0 means runtime.NumCPU().
	Workers int
	// Seed is S: trial i (from 0) has seed S+i. 0 means 1.
	Seed uint64
	// Script is the path of a Lua trial script ("-" for standard input);
	// empty runs the built-in trial. It is read once, whatever the
	// number of workers.
	Script string
	// Shard and Shards select the trials whose index i has i mod Shards ==
	// Shard. Shards 0 or 1 runs them all.
	Shard, Shards int
	// TrialTimeout is the wall time a script's trial may take: one that
	// takes longer is stopped and recorded as a "timeout" failure. 0 means
	// DefaultTrialTimeout; negative, no limit. (The built-in trial is
	// bounded by its construction.)
	TrialTimeout time.Duration
	// MaxMeasurements is how many distinct measurement names the run
	// records: a trial that records one more fails, and the run stops
	// (Summary.StopReason says why). 0 means DefaultMaxMeasurements.
	MaxMeasurements int
	// Version names the program that runs the campaign; the summary
	// records it, and Merge refuses summaries of other versions.
	Version string
	// OnTrial, when set, is called with every finished trial, in the order
	// of the indexes, from one goroutine. While it runs behind, the workers
	// wait rather than keep finished trials without limit.
	OnTrial func(Trial)
	// Progress, when set, counts the trials as they finish, in any order
	// (a progress line needs no stream in index order).
	Progress *Progress
	// OnFabric, when set, is called with every fabric a trial makes, before
	// the trial uses it (a replay's --trace).
	OnFabric func(*devices.Fabric)
	// Stdout receives what a trial script prints; nil discards it.
	Stdout io.Writer
}

// Progress counts a running campaign's finished trials and failures; every
// worker adds to it, and any goroutine may read it.
type Progress struct {
	trials, failures atomic.Int64
}

// Counts is how many trials have finished, and how many of them failed.
func (p *Progress) Counts() (trials, failures int) {
	return int(p.trials.Load()), int(p.failures.Load())
}

// count counts a finished trial.
func (p *Progress) count(t *Trial) {
	if p == nil {
		return
	}
	p.trials.Add(1)
	if t.Failed {
		p.failures.Add(1)
	}
}

// withDefaults checks c and fills in its defaults.
func (c Config) withDefaults() (Config, error) {
	if c.Trials < 1 {
		return c, fmt.Errorf("campaign: %d trials: give at least 1", c.Trials)
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if last := c.Seed + uint64(c.Trials) - 1; last > seeds.Max || last < c.Seed {
		return c, fmt.Errorf("campaign: seeds %d..%d: the last is above 2^53-1 (%d), which a Lua number holds exactly", c.Seed, last, uint64(seeds.Max))
	}
	if c.Shards <= 1 {
		c.Shard, c.Shards = 0, 1
	}
	if c.Shard < 0 || c.Shard >= c.Shards {
		return c, fmt.Errorf("campaign: shard %d of %d: give a shard from 0 to %d", c.Shard, c.Shards, c.Shards-1)
	}
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.TrialTimeout == 0 {
		c.TrialTimeout = DefaultTrialTimeout
	}
	if c.MaxMeasurements <= 0 {
		c.MaxMeasurements = DefaultMaxMeasurements
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	return c, nil
}

// Planned is how many of the campaign's trials the shard runs.
func (c Config) Planned() int {
	if c.Shards <= 1 {
		return c.Trials
	}
	if c.Shard >= c.Trials {
		return 0
	}
	return (c.Trials-c.Shard-1)/c.Shards + 1
}

// runner runs trials one at a time; each worker has its own.
type runner interface {
	// run runs the trial whose Index and Seed t holds (the rest reset),
	// into t.
	run(t *Trial)
	// fabricDigest is the digest of the trial fabric's options (the
	// script's trial_fabric), "" for the built-in trial.
	fabricDigest() string
	close()
}

// newRunner makes a worker's runner: the built-in trial, or the script
// loaded into a Lua state of its own, whose trials stop when ctx ends.
func newRunner(ctx context.Context, c Config, s *script, names *nameSet) (runner, error) {
	if s == nil {
		return &builtinRunner{onFabric: c.OnFabric}, nil
	}
	return newLuaRunner(ctx, c, s, names)
}

// maxPending bounds the trials that have finished but wait for OnTrial
// behind a slower one (about 4 KB each): beyond it the workers wait. It
// grows with the workers, so that each can run ahead a little.
func maxPending(workers int) int { return 4096 + 4*workers }

// Run runs the campaign's trials (those of cfg's shard) on cfg.Workers
// workers and returns their summary. When ctx is done it starts no more
// trials and stops those in flight (a script's trial at its next
// instruction or wait; they are recorded as "interrupted"), and returns
// the summary of what was taken: always the first trials of the shard, in
// order (Summary.Stopped says so). An error means nothing ran: a bad
// configuration, or a script that cannot be read or loaded, defines no
// trial function or a bad trial_fabric.
//
// Each worker takes the next index from a shared counter and adds its
// trials to a summary of its own; at the end these are merged, which gives
// the summary of the trials added in index order. As every index taken is
// run to its end, the trials run are always the first ones, even when
// ctx stops the run. Only when cfg.OnTrial is set do the trials also go,
// as Trial values, to one goroutine that calls it in index order.
//
// With more than one worker, a few of the last trials are run again
// afterwards, each in a fresh Lua state, and Summary.Warnings says so when
// they end otherwise: the script keeps state from one trial to the next.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	var src *script
	if cfg.Script != "" {
		if src, err = readScript(cfg.Script); err != nil {
			return nil, fmt.Errorf("campaign: %w", err)
		}
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	names := newNameSet(cfg.MaxMeasurements, stop)
	planned := cfg.Planned()
	sum := newSummary(cfg, planned, src)
	workers := make([]*worker, min(cfg.Workers, planned))
	defer func() {
		for _, w := range workers {
			if w != nil {
				w.r.close()
			}
		}
	}()
	var stream chan done
	var slots chan struct{} // a token for each trial taken and not yet given to OnTrial
	if cfg.OnTrial != nil {
		stream = make(chan done, 2*len(workers))
		slots = make(chan struct{}, maxPending(len(workers)))
	}
	sampled := sampleOf(planned, len(workers))
	// Each worker makes its runner and summary on its own goroutine, so
	// that what it writes on every trial comes from its own processor's
	// memory: made by one goroutine, the workers' maps and records lay
	// side by side, and 16 workers wrote into each other's cache lines.
	// None starts a trial before all are made: a script that cannot be
	// loaded runs nothing.
	var made sync.WaitGroup
	made.Add(len(workers))
	errs := make([]error, len(workers))
	begin := make(chan bool)
	var next atomic.Int64
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			workers[k], errs[k] = newWorker(ctx, cfg, src, names)
			made.Done()
			if !<-begin {
				return
			}
			w := workers[k]
			for ctx.Err() == nil {
				if slots != nil {
					select {
					case slots <- struct{}{}:
					case <-ctx.Done():
						return
					}
				}
				j := int(next.Add(1) - 1)
				if j >= planned {
					return
				}
				i := cfg.Shard + j*cfg.Shards
				w.run(i, cfg.Seed+uint64(i), stream != nil)
				cfg.Progress.count(&w.t)
				if sampled(j) {
					w.kept = append(w.kept, w.t.clone())
				}
				if stream != nil {
					w.t.publish()
					stream <- done{j, w.t}
				}
			}
		})
	}
	made.Wait()
	err = firstError(errs)
	if err == nil {
		err = sameFabric(workers)
	}
	if err != nil {
		close(begin) // a closed channel reads false: every worker returns
		wg.Wait()
		return nil, err
	}
	if len(workers) > 0 {
		sum.TrialFabricSHA256 = workers[0].r.fabricDigest()
	}
	for range workers {
		begin <- true
	}
	if stream != nil {
		go func() {
			wg.Wait()
			close(stream)
		}()
		inOrder(stream, func(t Trial) {
			cfg.OnTrial(t)
			<-slots
		})
	}
	wg.Wait()
	var kept []Trial
	for _, w := range workers {
		sum.merge(w.part, true)
		kept = append(kept, w.kept...)
	}
	sum.sortFailures()
	if err := names.overflow(); err != nil {
		sum.StopReason = err.Error()
	}
	if len(workers) > 1 && ctx.Err() == nil {
		cfg.OnFabric, cfg.Stdout = nil, io.Discard
		sum.Warnings = recheck(ctx, cfg, src, names, kept)
	}
	return sum, nil
}

// sameFabric checks that every worker's script gave the same
// trial_fabric: one that depends on the time or the environment would
// make the trials of different workers differ.
func sameFabric(workers []*worker) error {
	for _, w := range workers[min(1, len(workers)):] {
		if w.r.fabricDigest() != workers[0].r.fabricDigest() {
			return errors.New("campaign: the script's trial_fabric came out differently in two workers' Lua states: it must follow from the script alone (not the time, the environment or a file)")
		}
	}
	return nil
}

// recheckTrials is how many of the last trials a run with more than one
// worker runs again on fresh Lua states.
const recheckTrials = 3

// sampleOf says which trials, by index j among the shard's, a run of
// planned trials on that many workers runs again: the last recheckTrials,
// which ran after the most trials on their worker. None with one worker.
func sampleOf(planned, workers int) func(j int) bool {
	return func(j int) bool { return workers > 1 && j >= planned-recheckTrials }
}

// recheck runs each kept trial again, each on a fresh runner, and returns a
// warning when one ends otherwise: its script keeps state from one trial to
// the next, so the summary depends on how the trials fell to the workers.
// Trials that were stopped (a timeout, an interrupted run) are not compared.
func recheck(ctx context.Context, cfg Config, src *script, names *nameSet, kept []Trial) []string {
	var differ []string
	for _, was := range kept {
		if was.Outcome == OutcomeTimeout || was.Outcome == OutcomeInterrupted {
			continue
		}
		r, err := newRunner(ctx, cfg, src, names)
		if err != nil {
			return nil // the script loaded in every worker: only a stop gets here
		}
		var again Trial
		again.reset(was.Index, was.Seed)
		r.run(&again)
		r.close()
		again.publish()
		if again.Outcome == OutcomeTimeout || again.Outcome == OutcomeInterrupted {
			continue
		}
		if d := difference(&was, &again); d != "" {
			differ = append(differ, fmt.Sprintf("seed %d %s", was.Seed, d))
		}
	}
	if len(differ) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("trials run again, each in a fresh Lua state, ended otherwise than in the campaign (%s): "+
		"the script likely keeps state from one trial to the next (a global or an upvalue that trial(t) changes), "+
		"so the summary depends on how the trials fell to the workers; keep a trial's state in locals of trial(t)",
		strings.Join(differ, "; "))}
}

// difference says how a trial run again differs from the first run, or "".
func difference(was, again *Trial) string {
	switch {
	case was.Outcome != again.Outcome:
		return fmt.Sprintf("returned %q, then %q", was.Outcome, again.Outcome)
	case was.Message != again.Message:
		return fmt.Sprintf("failed with %q, then %q", was.Message, again.Message)
	case was.Violations != again.Violations:
		return fmt.Sprintf("found %d violations, then %d", was.Violations, again.Violations)
	case !maps.EqualFunc(was.Records, again.Records, slices.Equal[[]float64]) ||
		!maps.Equal(was.Sessions, again.Sessions) || !maps.Equal(was.Fired, again.Fired):
		return "recorded other measurements"
	}
	return ""
}

// newWorker makes a worker: its runner, and a summary of its own.
func newWorker(ctx context.Context, cfg Config, src *script, names *nameSet) (*worker, error) {
	r, err := newRunner(ctx, cfg, src, names)
	if err != nil {
		return nil, err
	}
	w := &worker{r: r, part: &Summary{Script: cfg.Script, Seed: cfg.Seed, Campaign: cfg.Trials}} // for ReplayCommand
	w.part.normalize()
	return w, nil
}

// firstError is the first error of errs that is not nil.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// worker is one of Run's workers: its runner, the summary of its trials,
// its trial, which it reuses unless the trials go to OnTrial, and the
// trials it keeps to run again (sampleOf).
type worker struct {
	r    runner
	part *Summary
	t    Trial
	kept []Trial
}

// run runs the trial of index and seed into w.t and adds it to w's
// summary; fresh gives the trial storage of its own (OnTrial keeps it).
func (w *worker) run(index int, seed uint64, fresh bool) {
	if fresh {
		w.t = Trial{}
	}
	w.t.reset(index, seed)
	w.r.run(&w.t)
	w.part.add(&w.t)
}

// done is a finished trial and its index among the shard's trials.
type done struct {
	j int
	t Trial
}

// inOrder calls onTrial with the trials of results in the order of their
// indexes, whatever order they finish in, so that the stream is the same
// for any number of workers.
func inOrder(results <-chan done, onTrial func(Trial)) {
	pending := map[int]Trial{}
	want := 0
	for d := range results {
		pending[d.j] = d.t
		for t, ok := pending[want]; ok; t, ok = pending[want] {
			delete(pending, want)
			want++
			onTrial(t)
		}
	}
}

// Replay runs the one trial of cfg's campaign whose seed is seed (its index
// is seed - cfg.Seed, within cfg.Trials), with cfg.OnFabric and
// cfg.Stdout, and returns it with its report: a script trial's error with
// its traceback, and every trial's measurements. ctx stops it as it stops
// a campaign's trials.
func Replay(ctx context.Context, cfg Config, seed uint64) (Trial, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Trial{}, err
	}
	if last := cfg.Seed + uint64(cfg.Trials) - 1; seed < cfg.Seed || seed > last {
		return Trial{}, fmt.Errorf("campaign: replay seed %d is not a trial of the campaign, whose seeds are %d..%d (--seed %d, --trials %d); give one of those, or the campaign's --seed and --trials", seed, cfg.Seed, last, cfg.Seed, cfg.Trials)
	}
	var src *script
	if cfg.Script != "" {
		if src, err = readScript(cfg.Script); err != nil {
			return Trial{}, fmt.Errorf("campaign: %w", err)
		}
	}
	r, err := newRunner(ctx, cfg, src, newNameSet(cfg.MaxMeasurements, nil))
	if err != nil {
		return Trial{}, err
	}
	defer r.close()
	switch r := r.(type) {
	case *builtinRunner:
		r.report = true // a replay prints the trial's whole report
	case *luaRunner:
		r.report = true
	}
	var t Trial
	t.reset(int(seed-cfg.Seed), seed)
	r.run(&t)
	t.publish()
	t.Report = strings.TrimLeft(strings.TrimRight(t.Report, "\n")+recordsReport(t.Records), "\n")
	return t, nil
}

// recordsReport lists a trial's measurements for its report: one line
// each, the values in the order recorded.
func recordsReport(records map[string][]float64) string {
	if len(records) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nmeasurements:")
	for _, name := range slices.Sorted(maps.Keys(records)) {
		values := make([]string, len(records[name]))
		for i, v := range records[name] {
			values[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		fmt.Fprintf(&b, "\n  %s: %s", name, strings.Join(values, ", "))
	}
	return b.String()
}

// errNoTrial is a script without a trial function.
var errNoTrial = errors.New("defines no function trial(t)")
