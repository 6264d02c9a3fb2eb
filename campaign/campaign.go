// Package campaign runs campaigns of seeded trials: N trials on W workers,
// trial i with seed S+i, added up into a Summary that is a function of the
// seeds alone, whatever the number of workers and however the trials are
// split into shards.
//
// # Running a campaign
//
// Run runs one; what each trial runs is Config.Runners: the built-in
// randomized protocol trial (Builtin, the default), a trial written in Go
// (Func), or a Lua trial script (package luacampaign, which the command
// residentlua campaign runs; see docs/campaigns.md). A campaign of a Go
// trial:
//
//	sum, err := campaign.Run(ctx, campaign.Config{
//		Trials:  1000,
//		Workers: 8,
//		Runners: campaign.Func("dice", func(ctx context.Context, t *campaign.Trial) error {
//			roll := 1 + t.Seed%6
//			if roll == 6 {
//				t.Outcome = "six"
//			}
//			return t.Record("roll", float64(roll))
//		}),
//	})
//	if err != nil { ... }
//	fmt.Print(sum.Text())
//
// Cancelling ctx stops the run with the trials it finished. Config.OnTrial
// sees every trial in index order, and Config.Progress counts them as they
// finish. A trial's time is bounded by Config.TrialTimeout.
//
// # Summaries, shards and replays
//
// A Summary counts the trials by outcome, lists the failures by seed and
// keeps each measurement's distribution (Measurement). Summary.Text prints
// it, Summary.JSON and Decode write and read it, and Merge adds the
// summaries of a campaign's shards (Config.Shard of Config.Shards) into the
// one a single run gives. Replay runs the trial of one seed alone, with its
// report; package plot/campaignplot draws a summary's measurements.
//
// # Trials of one's own
//
// Func's trial is a function of its Trial's seed, which it tells what it
// found; a Runners of one's own makes a Runner for each worker when its
// trials need state of their own (a Lua state, say).
package campaign

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/residentlua/residentlua/internal/seeds"
)

// Config says which trials a campaign runs and how.
type Config struct {
	// Trials is N, the number of trials of the whole campaign (of every
	// shard together); at least 1.
	Trials int
	// Workers is how many trials run at once, each worker with a runner of
	// its own; 0 means runtime.NumCPU().
	Workers int
	// Seed is S: trial i (from 0) has seed S+i. 0 means 1. The last seed
	// must be at most 2^53-1, which a Lua number holds exactly.
	Seed uint64
	// Runners makes the workers' runners, which run the trials; nil runs
	// the built-in trial, as Builtin(nil).
	Runners Runners
	// Shard and Shards select the trials whose index i has i mod Shards ==
	// Shard. Shards 0 or 1 runs them all.
	Shard, Shards int
	// TrialTimeout is the wall time a trial may take, and a runner's
	// making (a script's loading): one that takes longer is stopped and
	// recorded as a "timeout" failure. 0 means 60 seconds; negative, no
	// limit. The built-in trial is bounded by its construction and has
	// none.
	TrialTimeout time.Duration
	// MaxMeasurements is how many distinct measurement names the run
	// records: a trial that records one more fails, and the run stops
	// (Summary.StopReason says why). 0 means 1000. Each name costs its
	// histograms' memory on every worker, so a trial that records a new
	// name each time would exhaust the machine.
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
}

// defaultTrialTimeout is Config.TrialTimeout when it is 0.
const defaultTrialTimeout = 60 * time.Second

// defaultMaxMeasurements is Config.MaxMeasurements when it is 0.
const defaultMaxMeasurements = 1000

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
	if c.Runners == nil {
		c.Runners = Builtin(nil)
	}
	if c.TrialTimeout == 0 {
		c.TrialTimeout = defaultTrialTimeout
	}
	if c.MaxMeasurements <= 0 {
		c.MaxMeasurements = defaultMaxMeasurements
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

// maxPending bounds the trials that have finished but wait for OnTrial
// behind a slower one (about 4 KB each): beyond it the workers wait. It
// grows with the workers, so that each can run ahead a little.
func maxPending(workers int) int { return 4096 + 4*workers }

// Run runs the campaign's trials (those of cfg's shard) on cfg.Workers
// workers and returns their summary. When ctx is done it starts no more
// trials and stops those in flight (they are recorded as "interrupted"),
// and returns the summary of what was taken: always the first trials of
// the shard, in order (Summary.Stopped says so). An error means nothing
// ran: a bad configuration, or runners that could not be made (a script
// that cannot be read or loaded, say).
//
// Each worker takes the next index from a shared counter and adds its
// trials to a summary of its own; at the end these are merged, which gives
// the summary of the trials added in index order. As every index taken is
// run to its end, the trials run are always the first ones, even when
// ctx stops the run. Only when cfg.OnTrial is set do the trials also go,
// as Trial values, to one goroutine that calls it in index order.
//
// With more than one worker, a few of the last trials of a Go function or
// a script are run again afterwards, each on a fresh runner, and
// Summary.Warnings says so when they end otherwise: the trials keep state
// from one to the next. The built-in trial's are not: its worker's world
// is renewed for every trial (trial.World), as a fresh one.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	names := newNameSet(cfg.MaxMeasurements, stop)
	planned := cfg.Planned()
	sum := newSummary(cfg, planned)
	workers := make([]*worker, min(cfg.Workers, planned))
	defer func() {
		for _, w := range workers {
			if w != nil {
				w.close()
			}
		}
	}()
	var stream chan done
	var slots chan struct{} // a token for each trial taken and not yet given to OnTrial
	if cfg.OnTrial != nil {
		stream = make(chan done, 2*len(workers))
		slots = make(chan struct{}, maxPending(len(workers)))
	}
	_, builtin := cfg.Runners.(builtinRunners)
	sampled := sampleOf(planned, len(workers), builtin)
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
			workers[k], errs[k] = newWorker(ctx, cfg, names)
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
		err = sum.describe(cfg.Runners)
	}
	if err != nil {
		close(begin) // a closed channel reads false: every worker returns
		wg.Wait()
		return nil, err
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
	if err := sum.describe(cfg.Runners); err != nil { // again, with what the trials read
		return nil, err
	}
	var kept []Trial
	for _, w := range workers {
		sum.merge(w.part, true)
		kept = append(kept, w.kept...)
	}
	sum.sortFailures()
	sum.fillReplays()
	if err := names.overflow(); err != nil {
		sum.StopReason = err.Error()
	}
	if len(workers) > 1 && ctx.Err() == nil {
		sum.Warnings = sum.recheck(ctx, cfg, names, kept)
	}
	return sum, nil
}

// recheckTrials is how many of the last trials a run with more than one
// worker runs again on fresh runners.
const recheckTrials = 3

// sampleOf says which trials, by index j among the shard's, a run of
// planned trials on that many workers runs again: the last recheckTrials,
// which ran after the most trials on their worker. None with one worker,
// and none of the built-in trial, which renews its world for each.
func sampleOf(planned, workers int, builtin bool) func(j int) bool {
	return func(j int) bool { return workers > 1 && !builtin && j >= planned-recheckTrials }
}

// recheck runs each kept trial again, each on a fresh runner, and returns a
// warning when one ends otherwise: the trials keep state from one to the
// next, so the summary depends on how they fell to the workers. Trials
// that were stopped (a timeout, an interrupted run) are not compared.
func (s *Summary) recheck(ctx context.Context, cfg Config, names *nameSet, kept []Trial) []string {
	var differ []string
	for _, was := range kept {
		if was.Outcome == OutcomeTimeout || was.Outcome == OutcomeInterrupted {
			continue
		}
		w, err := newWorker(ctx, cfg, names)
		if err != nil {
			return nil // the runners were made for every worker: only a stop gets here
		}
		var again Trial
		again.reset(was.Index, was.Seed, w.names)
		w.trial(&again)
		w.close()
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
	// A script's trials run in Lua states, a Go function's on fresh runners.
	fresh, keeps, advice := "on a fresh runner", "the trial function likely keeps state from one trial to the next (a variable outside it that it changes)", "keep a trial's state in the function's locals"
	if s.Script != "" {
		fresh, keeps, advice = "in a fresh Lua state", "the script likely keeps state from one trial to the next (a global or an upvalue that trial(t) changes)", "keep a trial's state in locals of trial(t)"
	}
	return []string{fmt.Sprintf("trials run again, each %s, ended otherwise than in the campaign (%s): %s, so the summary depends on how the trials fell to the workers; %s",
		fresh, strings.Join(differ, "; "), keeps, advice)}
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

// firstError is the first error of errs that is not nil.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
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
// is seed - cfg.Seed, within cfg.Trials) on a runner of its own, and
// returns it with its report: what the runner says the trial did (the
// built-in trial's host operations, a script's error with its traceback),
// then every measurement. ctx stops it as it stops a campaign's trials.
func Replay(ctx context.Context, cfg Config, seed uint64) (Trial, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Trial{}, err
	}
	if last := cfg.Seed + uint64(cfg.Trials) - 1; seed < cfg.Seed || seed > last {
		return Trial{}, fmt.Errorf("campaign: replay seed %d is not a trial of the campaign, whose seeds are %d..%d (--seed %d, --trials %d); give one of those, or the campaign's --seed and --trials", seed, cfg.Seed, last, cfg.Seed, cfg.Trials)
	}
	w, err := newWorker(ctx, cfg, newNameSet(cfg.MaxMeasurements, nil))
	if err != nil {
		return Trial{}, err
	}
	defer w.close()
	w.replay = true
	if b, ok := w.r.(*builtinRunner); ok {
		b.report = true // a replay prints the trial's whole report
	}
	var t Trial
	t.reset(int(seed-cfg.Seed), seed, w.names)
	w.trial(&t)
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
