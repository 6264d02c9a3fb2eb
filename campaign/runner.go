package campaign

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// A Runner runs trials one at a time: each worker of a campaign has one of
// its own, which Config.Runners made, and every trial of that worker runs
// in it.
type Runner interface {
	// Run runs the trial whose Index and Seed t holds (the rest of t
	// reset, its Outcome "ok") and records in t what the trial did: its
	// Outcome, Failed and Message, its Violations, its measurements
	// (Trial.Record) and its Report. ctx ends when the run is stopped or
	// the trial runs past its time limit (Config.TrialTimeout): an error
	// returned once it has ended makes the trial "interrupted" or
	// "timeout", and any other error a failure of outcome "error" whose
	// message is the error's text.
	Run(ctx context.Context, t *Trial) error
	// Close lets the runner's resources go; no trial runs on it after.
	Close()
}

// Runners makes the runners of a campaign's trials and says what the
// trials are: Builtin's run the built-in protocol trial, Func's a trial
// written in Go, and package luacampaign's a Lua trial script.
type Runners interface {
	// NewRunner makes a runner for a campaign of seed (Config.Seed): one
	// for each worker, from every worker's goroutine at once, one for
	// Replay, and one for each trial run again. ctx ends when the run is
	// stopped, or when making the runner takes longer than a trial may;
	// an error returned once it has ended is reported as that stop.
	NewRunner(ctx context.Context, seed uint64) (Runner, error)
	// Describe sets the fields of s that say what the trials are, once
	// the workers' runners are made and again once the trials have run:
	// Func for a trial written in Go; Script, ScriptSHA256,
	// TrialFabricSHA256 and FilesSHA256 (the files read so far) for a
	// trial script; none for the built-in trial. An error means that no
	// trial can run.
	Describe(s *Summary) error
}

// worker is one of Run's workers (or the runner of Replay, or of a trial
// run again): its runner, the time limit of its trials, the measurement
// names it has admitted, the summary of its trials, its trial, which it
// reuses unless the trials go to OnTrial, and the trials it keeps to run
// again (sampleOf).
type worker struct {
	r       Runner
	base    context.Context // the run's: the context of trials without a time limit
	limit   *trialLimit     // nil for the built-in trial, which is bounded by its construction
	timeout time.Duration   // the limit's, for the messages of trials that pass it
	replay  bool            // the runner of Replay: a stopped trial's report says what the stop raised
	names   *workerNames
	part    *Summary
	t       Trial
	kept    []Trial
}

// newWorker makes a worker of cfg's campaign: its runner, made under the
// time limit of a trial, and a summary of its own.
func newWorker(ctx context.Context, cfg Config, names *nameSet) (*worker, error) {
	w := &worker{base: ctx, timeout: cfg.TrialTimeout, names: &workerNames{set: names, known: map[string]bool{}},
		part: &Summary{Seed: cfg.Seed, Campaign: cfg.Trials}}
	limit := newTrialLimit(ctx, cfg.TrialTimeout)
	made := limit.start()
	r, err := cfg.Runners.NewRunner(made, cfg.Seed)
	if err != nil {
		err = w.stopped(made, err)
	}
	limit.stop()
	if err != nil {
		limit.close()
		return nil, err
	}
	w.r = r
	if _, builtin := r.(*builtinRunner); builtin {
		limit.close()
	} else {
		w.limit = limit
	}
	w.part.normalize()
	return w, nil
}

// stopped is the error of making the runner, err, or, when ctx ended, the
// error that says why it did: no trial had begun.
func (w *worker) stopped(ctx context.Context, err error) error {
	switch stoppedBy(ctx) {
	case OutcomeTimeout:
		return fmt.Errorf("the trials' runner (a script's top level) ran past the time limit of %v of wall time (--trial-timeout) before any trial ran, and was stopped: a script's top level should only define things; or give a longer --trial-timeout", w.timeout)
	case OutcomeInterrupted:
		return errors.New("the run was stopped (Ctrl-C or SIGTERM) while the trials' runner was made (a script's top level ran), before any trial ran")
	}
	return err
}

// run runs the trial of index and seed into w.t and adds it to w's
// summary; fresh gives the trial storage of its own (OnTrial keeps it).
func (w *worker) run(index int, seed uint64, fresh bool) {
	if fresh {
		w.t = Trial{}
	}
	w.t.reset(index, seed, w.names)
	w.trial(&w.t)
	w.part.add(&w.t)
}

// trial runs t on w's runner, under the trial's time limit, and records
// what an error the runner returns makes of it.
func (w *worker) trial(t *Trial) {
	ctx := w.base
	if w.limit != nil {
		ctx = w.limit.start()
		defer w.limit.stop()
	}
	if err := w.r.Run(ctx, t); err != nil {
		w.failed(ctx, t, err)
	}
	if !w.replay {
		t.Message, t.Report = bounded(t.Message), bounded(t.Report)
	}
}

// MaxMessage is the most bytes of a trial's message (and report) a
// campaign keeps; a replay of the trial keeps them whole.
const MaxMessage = 4096

// bounded is s cut to MaxMessage bytes, at a character's start, with what
// it was cut from.
func bounded(s string) string {
	if len(s) <= MaxMessage {
		return s
	}
	cut := MaxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s\n... (cut to %d of its %d bytes; the trial's replay prints it whole)", s[:cut], cut, len(s))
}

// failed records t, whose runner returned err: stopped when ctx ended (the
// run was stopped, or the trial ran past its time limit), otherwise a
// failure of outcome "error" whose report, unless the runner wrote one, is
// its message.
func (w *worker) failed(ctx context.Context, t *Trial, err error) {
	if how := stoppedBy(ctx); how != "" {
		t.Outcome, t.Failed = how, how == OutcomeTimeout
		t.Message = w.stopMessage(how)
		t.Report = t.Message
		if w.replay {
			t.Report += "\n" + err.Error()
		}
		return
	}
	t.Outcome, t.Failed, t.Message = OutcomeError, true, err.Error()
	if t.Report == "" {
		t.Report = t.Message
	}
}

// stopMessage says why a trial was stopped: how is OutcomeTimeout or
// OutcomeInterrupted.
func (w *worker) stopMessage(how string) string {
	if how == OutcomeTimeout {
		return fmt.Sprintf("the trial ran past its time limit of %v of wall time (--trial-timeout) and was stopped", w.timeout)
	}
	return "the run was stopped (Ctrl-C or SIGTERM) while this trial ran"
}

// close lets the worker's runner and time limit go.
func (w *worker) close() {
	w.r.Close()
	if w.limit != nil {
		w.limit.close()
	}
}
