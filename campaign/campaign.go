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
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/luaapi"
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
	// Script is the path of a Lua trial script; empty runs the built-in
	// trial.
	Script string
	// Shard and Shards select the trials whose index i has i mod Shards ==
	// Shard. Shards 0 or 1 runs them all.
	Shard, Shards int
	// OnTrial, when set, is called with every finished trial, in the order
	// of the indexes, from one goroutine.
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
	if last := c.Seed + uint64(c.Trials) - 1; last > luaapi.MaxSeed || last < c.Seed {
		return c, fmt.Errorf("campaign: seeds %d..%d: the last is above 2^53-1 (%d), which a Lua number holds exactly", c.Seed, last, uint64(luaapi.MaxSeed))
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
	close()
}

// newRunner makes a worker's runner: the built-in trial, or the script
// loaded into a Lua state of its own.
func newRunner(c Config) (runner, error) {
	if c.Script == "" {
		return &builtinRunner{onFabric: c.OnFabric}, nil
	}
	return newLuaRunner(c)
}

// Run runs the campaign's trials (those of cfg's shard) on cfg.Workers
// workers and returns their summary. When ctx is done it starts no more
// trials, waits for those in flight, and returns the summary of what
// finished (Summary.Stopped says so): always the first trials of the
// shard, in order. An error means nothing ran: a bad configuration, or a
// script that cannot be loaded or defines no trial function.
//
// Each worker takes the next index from a shared counter and adds its
// trials to a summary of its own; at the end these are merged, which gives
// the summary of the trials added in index order. As every index taken is
// run to its end, the trials run are always the first ones, even when
// ctx stops the run. Only when cfg.OnTrial is set do the trials also go,
// as Trial values, to one goroutine that calls it in index order.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	planned := cfg.Planned()
	sum := newSummary(cfg, planned)
	workers := make([]*worker, min(cfg.Workers, planned))
	defer func() {
		for _, w := range workers {
			if w != nil {
				w.r.close()
			}
		}
	}()
	var stream chan done
	if cfg.OnTrial != nil {
		stream = make(chan done, 2*len(workers))
	}
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
			workers[k], errs[k] = newWorker(cfg)
			made.Done()
			if !<-begin {
				return
			}
			w := workers[k]
			for ctx.Err() == nil {
				j := int(next.Add(1) - 1)
				if j >= planned {
					return
				}
				i := cfg.Shard + j*cfg.Shards
				w.run(i, cfg.Seed+uint64(i), stream != nil)
				cfg.Progress.count(&w.t)
				if stream != nil {
					w.t.publish()
					stream <- done{j, w.t}
				}
			}
		})
	}
	made.Wait()
	if err := firstError(errs); err != nil {
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
		inOrder(stream, cfg.OnTrial)
	}
	wg.Wait()
	for _, w := range workers {
		sum.merge(w.part, true)
	}
	sum.sortFailures()
	return sum, nil
}

// newWorker makes a worker: its runner, and a summary of its own.
func newWorker(cfg Config) (*worker, error) {
	r, err := newRunner(cfg)
	if err != nil {
		return nil, err
	}
	w := &worker{r: r, part: &Summary{Script: cfg.Script, Seed: cfg.Seed}} // for ReplayCommand
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
// and its trial, which it reuses unless the trials go to OnTrial.
type worker struct {
	r    runner
	part *Summary
	t    Trial
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
// is seed - cfg.Seed), with cfg.OnFabric and cfg.Stdout, and returns it with
// its report.
func Replay(cfg Config, seed uint64) (Trial, error) {
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if seed < cfg.Seed || seed > luaapi.MaxSeed {
		return Trial{}, fmt.Errorf("campaign: replay seed %d: give a trial's seed, from the campaign's seed %d to 2^53-1", seed, cfg.Seed)
	}
	cfg.Trials = int(seed-cfg.Seed) + 1
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Trial{}, err
	}
	r, err := newRunner(cfg)
	if err != nil {
		return Trial{}, err
	}
	defer r.close()
	if b, ok := r.(*builtinRunner); ok {
		b.report = true // a replay prints the trial's whole report
	}
	var t Trial
	t.reset(int(seed-cfg.Seed), seed)
	r.run(&t)
	t.publish()
	return t, nil
}

// errNoTrial is a script without a trial function.
var errNoTrial = errors.New("defines no function trial(t)")
