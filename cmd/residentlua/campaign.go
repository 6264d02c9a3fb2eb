package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/internal/gctune"
	"github.com/residentlua/residentlua/internal/resultfile"
	"github.com/residentlua/residentlua/internal/seeds"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
	"github.com/residentlua/residentlua/luacampaign"
	"github.com/residentlua/residentlua/plot"
	"github.com/residentlua/residentlua/plot/campaignplot"
)

// The exit statuses of residentlua campaign (and campaign merge), which a
// job scheduler's dependencies and a script can tell apart.
const (
	campaignPassed     = 0 // the campaign completed, and no trial failed
	campaignFailures   = 1 // the campaign completed, and found failures
	campaignIncomplete = 2 // it did not complete: see the statuses above 1 in docs/campaigns.md
)

// campaignOptions is the command line of residentlua campaign.
type campaignOptions struct {
	cfg         campaign.Config
	script      string            // the trial script; empty for the built-in trial
	outPath     string            // --out: one JSON line per trial
	summaryPath string            // --summary: the Summary's JSON
	plotPath    string            // --plot: the measurements' pictures
	tracePath   string            // --trace, with --replay
	eventsPath  string            // --events: every trial's sessions as one trace
	replay      uint64            // --replay SEED; 0 for none
	shardAuto   bool              // --shard auto: the shard from a Slurm job array's variables
	shards      int               // --shards N (the shard from JOB_COMPLETION_INDEX)
	force       bool              // --force: replace result files that do not look like them
	arg         luaapi.ScriptArgs // --arg k=v ...: the trial script's arguments
	given       []string
	merge       []string
	help        bool
}

// campaignUsage is what residentlua campaign --help prints.
const campaignUsage = `usage: residentlua campaign [SCRIPT] [options]
       residentlua campaign merge A.json B.json ... [--summary FILE] [--plot FILE]
Runs N seeded trials (trial i with seed S+i) of the built-in protocol
trial, or of SCRIPT's function trial(t), and prints their summary.
  --trials N          trials of the campaign (default 1000)
  --workers W         trials run at once (default: the number of cores), at
                      most 1024 and what memory allows (8 MiB a worker)
  --seed S            seed of trial 0 (default 1)
  --trial-timeout D   wall time a script's trial may take, such as 90s or
                      10m (default 60s; 0: no limit); one that takes longer
                      is stopped and counted as a "timeout" failure
  --out FILE          write one JSON line per trial (.jsonl)
  --summary FILE      write the summary as JSON (what merge reads)
  --plot FILE         draw each measurement's distribution (a CDF, one line
                      per outcome) into FILE, .svg or .png; with several
                      measurements, a file each: c.svg gives c_NAME.svg
  --force             let the files above replace files that do not look
                      like them (a .lua file, say)
  --arg K=V           an argument of the trial script, which reads it as
                      t.args.K (a number, true, false or a string) and sees
                      arg as a script does; give one --arg for each
  --replay SEED       run the trial of that seed alone, with its report
  --trace FILE        with --replay: write the trial's timeline
  --events FILE       write every trial's sessions as one trace (JSON
                      Lines), which residentlua validate checks
  --shard K/N         run the trials whose index is K mod N
  --shard auto        the shard of this task of a Slurm job array
                      ($SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT)
  --shards N          the shard is $JOB_COMPLETION_INDEX (a Kubernetes
                      Indexed Job)
Exit status: 0 when every trial passed; 1 when the campaign completed and
found failures; 2 or more when it did not complete (130 after Ctrl-C, 143
after SIGTERM). See docs/campaigns.md.
`

// campaignValued lists campaign's options: true for those that take a value.
var campaignValued = map[string]bool{
	"trials": true, "workers": true, "seed": true, "trial-timeout": true, "out": true, "summary": true,
	"plot": true, "replay": true, "trace": true, "events": true, "shard": true, "shards": true, "force": false,
	"arg": true,
}

// parseCampaignArgs reads the words after "campaign".
func parseCampaignArgs(args []string) (*campaignOptions, error) {
	o := &campaignOptions{cfg: campaign.Config{Trials: 1000, Version: versionLine()}}
	if len(args) > 0 && args[0] == "merge" {
		return o, o.parseMergeArgs(args[1:])
	}
	script, help, err := parseSubcommandArgs("campaign", "trial script", args, campaignValued, o.set)
	if err != nil {
		return nil, err
	}
	o.help, o.script = help, script
	if o.arg.Words != nil && o.script == "" {
		return nil, &usageError{"--arg goes with a trial script, which reads its values as t.args; the built-in trial takes none"}
	}
	if o.cfg.Workers == 0 {
		o.cfg.Workers = min(runtime.NumCPU(), maxWorkers())
	}
	if o.tracePath != "" && o.replay == 0 {
		return nil, &usageError{"--trace goes with --replay SEED: a campaign's trials are replayed one at a time"}
	}
	if o.replay != 0 {
		for _, name := range o.given {
			switch name {
			case "plot":
				return nil, &usageError{"--plot draws a campaign's measurements; a replay of one trial has none to draw"}
			case "out", "summary", "shard", "shards", "workers", "events":
				return nil, &usageError{fmt.Sprintf("--%s does not go with --replay: a replay runs one trial and prints its report (--trace writes its timeline)", name)}
			}
		}
	}
	return o, nil
}

// parseMergeArgs reads the words after "campaign merge".
func (o *campaignOptions) parseMergeArgs(args []string) error {
	files := map[string]*string{"--summary": &o.summaryPath, "--plot": &o.plotPath}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, attached := strings.Cut(a, "=")
		switch dst := files[name]; {
		case dst != nil && attached:
			*dst = value
		case dst != nil && i+1 < len(args):
			i++
			*dst = args[i]
		case dst != nil:
			return &usageError{fmt.Sprintf("campaign merge: '%s' needs argument", a)}
		case a == "--force":
			o.force = true
		case a == "--help" || a == "-h":
			o.help = true
		case strings.HasPrefix(a, "-"):
			return &usageError{fmt.Sprintf("campaign merge: unrecognized option '%s'", a)}
		default:
			o.merge = append(o.merge, a)
		}
	}
	if len(o.merge) == 0 && !o.help {
		return &usageError{"campaign merge: give the summary files to merge"}
	}
	return nil
}

// set records one option of campaign.
func (o *campaignOptions) set(name, value string) error {
	var err error
	o.given = append(o.given, name)
	switch name {
	case "trials":
		o.cfg.Trials, err = positive(name, value)
	case "workers":
		o.cfg.Workers, err = workerCount(value)
	case "shards":
		o.shards, err = positive(name, value)
	case "seed":
		o.cfg.Seed, err = seedValue(name, value)
	case "replay":
		o.replay, err = seedValue(name, value)
	case "trial-timeout":
		err = o.setTrialTimeout(value)
	case "shard":
		err = o.setShard(value)
	case "out":
		o.outPath = value
	case "summary":
		o.summaryPath = value
	case "plot":
		o.plotPath = value
	case "trace":
		o.tracePath = value
	case "events":
		o.eventsPath = value
	case "force":
		o.force = true
	case "arg":
		err = addScriptArg(&o.arg, "--arg", value)
	}
	return err
}

// positive reads a whole number from 1.
func positive(name, value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 {
		return 0, &usageError{fmt.Sprintf("--%s %q: give a whole number from 1", name, value)}
	}
	return n, nil
}

// workerMemory is the memory a worker is given room for: its Lua state with
// the script loaded, its fabric's event ring and its summary (about 5.5 MB
// measured with scripts/campaign.lua), with room to spare.
const workerMemory = 8 << 20

// workerCap is the most workers a campaign runs, however much memory
// there is.
const workerCap = 1024

// maxWorkers is the most workers whose memory fits in the memory budget
// (lua51.DefaultMemoryLimit: half the machine's memory, less under ulimit),
// and at most workerCap.
func maxWorkers() int {
	return int(min(workerCap, max(1, lua51.DefaultMemoryLimit()/workerMemory)))
}

// workerCount reads --workers, refusing more workers than maxWorkers.
func workerCount(value string) (int, error) {
	n, err := positive("workers", value)
	if err != nil {
		return 0, err
	}
	if most := maxWorkers(); n > most {
		why := fmt.Sprintf("each worker needs room for about %d MiB, and the memory budget of %d MiB (half the machine's memory, less under ulimit) holds %d", workerMemory>>20, lua51.DefaultMemoryLimit()>>20, most)
		if most == workerCap {
			why = fmt.Sprintf("a campaign runs at most %d workers", workerCap)
		}
		return 0, &usageError{fmt.Sprintf("--workers %d: %s; give at most %d (more workers than cores run no faster)", n, why, most)}
	}
	return n, nil
}

// seedValue reads a seed, from 1 to 2^53-1.
func seedValue(name, value string) (uint64, error) {
	n, err := strconv.ParseUint(value, 10, 64)
	if err != nil || n == 0 || n > seeds.Max {
		return 0, &usageError{fmt.Sprintf("--%s %q: give a whole number from 1 to 2^53-1", name, value)}
	}
	return n, nil
}

// maxTrialTimeout bounds --trial-timeout as the Lua API bounds every
// duration: about 31 years.
const maxTrialTimeout = 1e9 * time.Second

// setTrialTimeout reads --trial-timeout: a Go duration, 0 for no limit.
func (o *campaignOptions) setTrialTimeout(value string) error {
	d, err := time.ParseDuration(value)
	if value == "0" {
		d, err = 0, nil
	}
	if err != nil || d < 0 {
		return &usageError{fmt.Sprintf("--trial-timeout %q: give a duration such as 90s or 10m, or 0 for no limit", value)}
	}
	if d > maxTrialTimeout {
		return &usageError{fmt.Sprintf("--trial-timeout %q: give at most 1e9 seconds (about 31 years), or 0 for no limit", value)}
	}
	o.cfg.TrialTimeout = d
	if d == 0 {
		o.cfg.TrialTimeout = -1
	}
	return nil
}

// setShard reads --shard K/N, or --shard auto.
func (o *campaignOptions) setShard(value string) error {
	if value == "auto" {
		o.shardAuto = true
		return nil
	}
	k, n, ok := strings.Cut(value, "/")
	kn, err1 := strconv.Atoi(k)
	nn, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || nn < 1 || kn < 0 || kn >= nn {
		return &usageError{fmt.Sprintf("--shard %q: give K/N with 0 <= K < N, such as 0/4, or auto", value)}
	}
	o.cfg.Shard, o.cfg.Shards = kn, nn
	return nil
}

// shardFromEnv sets the shard from a scheduler's variables when the
// command line asks for it: --shard auto reads a Slurm job array's
// (SLURM_ARRAY_TASK_ID, less SLURM_ARRAY_TASK_MIN when set, of
// SLURM_ARRAY_TASK_COUNT), --shards N a Kubernetes Indexed Job's
// (JOB_COMPLETION_INDEX). Otherwise those variables change nothing: a
// campaign run inside an array task is the whole campaign, and standard
// error says so.
func (o *campaignOptions) shardFromEnv() error {
	id, count := os.Getenv("SLURM_ARRAY_TASK_ID"), os.Getenv("SLURM_ARRAY_TASK_COUNT")
	switch {
	case o.shardAuto && o.shards != 0:
		return &usageError{"--shard auto (a Slurm job array) and --shards N (a Kubernetes Indexed Job): give one"}
	case o.shardAuto:
		k, err1 := strconv.Atoi(id)
		n, err2 := strconv.Atoi(count)
		base := 0
		if m := os.Getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
			base, _ = strconv.Atoi(m)
		}
		k -= base
		if err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
			return fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%q of SLURM_ARRAY_TASK_COUNT=%q is not a shard; run it as a task of a Slurm job array given as --array=0-N, or give --shard K/N", id, count)
		}
		o.cfg.Shard, o.cfg.Shards = k, n
	case o.shards != 0:
		idx := os.Getenv("JOB_COMPLETION_INDEX")
		k, err := strconv.Atoi(idx)
		if idx == "" || err != nil || k < 0 || k >= o.shards {
			return fmt.Errorf("--shards %d: JOB_COMPLETION_INDEX is %q; a Kubernetes Indexed Job of %d completions sets it from 0 to %d (or give --shard K/N)", o.shards, idx, o.shards, o.shards-1)
		}
		o.cfg.Shard, o.cfg.Shards = k, o.shards
	case id != "" && o.cfg.Shards == 0 && o.replay == 0:
		fmt.Fprintf(os.Stderr, "%s: note: SLURM_ARRAY_TASK_ID is set, but this runs the whole campaign; give --shard auto to run this array task's shard\n", progName)
	}
	return nil
}

// checkOutputs checks --out, --summary, --plot and --trace before anything
// runs, as the interpreter checks its files (and --plot's picture format),
// against each other and the files the command reads.
func (o *campaignOptions) checkOutputs() error {
	if o.plotPath != "" {
		if err := plot.CheckFormat(o.plotPath); err != nil {
			return &usageError{fmt.Sprintf("--plot %s", strings.TrimPrefix(err.Error(), "plot: "))}
		}
	}
	return resultfile.Checks{
		Outputs: []resultfile.File{{Option: "--out", Path: o.outPath, Kind: resultfile.JSONLines}, {Option: "--summary", Path: o.summaryPath, Kind: resultfile.JSONObject},
			{Option: "--plot", Path: o.plotPath, Kind: resultfile.Picture}, {Option: "--trace", Path: o.tracePath, Kind: resultfile.JSONObject},
			{Option: "--events", Path: o.eventsPath, Kind: resultfile.JSONLines}},
		Inputs:      append([]string{o.script}, o.merge...),
		Force:       o.force,
		ForceOption: "--force",
	}.Check()
}

// runCampaign is residentlua campaign; it returns the exit status.
func runCampaign(args []string) int {
	o, err := parseCampaignArgs(args)
	if err == nil && !o.help {
		err = o.shardFromEnv()
	}
	if err == nil && !o.help {
		err = o.checkOutputs()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", progName, err)
		if isUsage(err) {
			fmt.Fprint(os.Stderr, campaignUsage)
		}
		return campaignIncomplete
	}
	switch {
	case o.help:
		fmt.Print(campaignUsage)
		return campaignPassed
	case o.merge != nil:
		return o.runMerge()
	case o.replay != 0:
		return o.runReplay()
	}
	defer gctune.ForBatch(lua51.DefaultMemoryLimit())()
	return o.runTrials()
}

// runners is what the campaign's trials run: the script's trial(t), or the
// built-in trial; opts says where they print and report their fabrics.
func (o *campaignOptions) runners(opts luacampaign.Options) campaign.Runners {
	if o.script == "" {
		return campaign.Builtin(opts.OnFabric)
	}
	opts.Args = o.arg
	return luacampaign.Script(o.script, opts)
}

// complain prints a failure of the command and returns the status of a
// campaign that did not complete.
func complain(err error) int {
	fmt.Fprintf(os.Stderr, "%s: %v\n", progName, err)
	return campaignIncomplete
}

// runTrials runs the campaign: progress on a terminal, then the files,
// then the summary on stdout. The first Ctrl-C (or SIGTERM) stops it: the
// trials in flight are interrupted, and what was taken is written and
// printed; a second ends the process at once, leaving no partial file.
func (o *campaignOptions) runTrials() int {
	var out *jsonlFile
	if o.outPath != "" {
		var err error
		if out, err = createJSONL(o.outPath); err != nil {
			return complain(fmt.Errorf("--out: %w", err))
		}
		defer out.abandon()
		// Only the file needs the trials in order; without it each
		// worker keeps its own summary.
		o.cfg.OnTrial = out.add
	}
	var events *eventsFile
	if o.eventsPath != "" {
		var err error
		if events, err = newEventsFile(o.eventsPath); err != nil {
			return complain(fmt.Errorf("--events: %w", err))
		}
	}
	o.cfg.Runners = o.runners(luacampaign.Options{OnFabric: events.hook()})
	prog := newProgress(o.cfg, isTerminal(os.Stderr))
	o.cfg.Progress = &prog.counts
	intr := newInterrupter()
	start := time.Now()
	sum, err := campaign.Run(intr.arm(), o.cfg)
	interrupted := intr.disarm()
	prog.stop()
	if err != nil {
		return complain(err)
	}
	elapsed := time.Since(start)
	status := o.writeResults(sum, out)
	if events != nil {
		release := resultfile.Hold()
		if err := events.write(); err != nil {
			status = complain(fmt.Errorf("--events: %w", err))
		}
		release()
	}
	for _, w := range sum.Warnings {
		fmt.Fprintf(os.Stderr, "%s: warning: %s\n", progName, w)
	}
	if err := printText(sum.Text()); err != nil {
		status = complain(err)
	}
	fmt.Fprintf(os.Stderr, "%s: %s in %s (%.0f trials a second)\n", progName, plural(sum.Trials, "trial", "trials"), elapsed.Round(time.Millisecond), float64(sum.Trials)/elapsed.Seconds())
	switch {
	case sum.StopReason != "":
		fmt.Fprintf(os.Stderr, "%s: the campaign stopped itself: %s\n", progName, sum.StopReason)
		status = campaignIncomplete
	case sum.Stopped():
		fmt.Fprintf(os.Stderr, "%s: interrupted: stopped after %d of %d trials, and %s interrupted; the summary and the files hold them\n",
			progName, sum.Trials-sum.Interrupted(), sum.Planned, plural(sum.Interrupted(), "trial", "trials"))
		status = intr.interruptedStatus()
	case interrupted:
		status = intr.interruptedStatus() // the signal came as the last trial ended
	case status == campaignPassed && sum.Vacuous() != "":
		fmt.Fprintf(os.Stderr, "%s: nothing checked: %s\n", progName, sum.Vacuous())
		status = campaignIncomplete
	case status == campaignPassed && (sum.Failed() > 0 || sum.Violations > 0):
		status = campaignFailures
	}
	return status
}

// writeResults writes --out, --summary and --plot, a signal waiting until
// they are written; it returns campaignIncomplete when one could not be.
func (o *campaignOptions) writeResults(sum *campaign.Summary, out *jsonlFile) int {
	release := resultfile.Hold()
	defer release()
	status := campaignPassed
	if out != nil {
		if err := out.commit(); err != nil {
			status = complain(fmt.Errorf("--out: %w", err))
		}
	}
	if o.summaryPath != "" {
		if err := writeSummary(o.summaryPath, sum); err != nil {
			status = complain(fmt.Errorf("--summary: %w", err))
		}
	}
	if o.plotPath != "" && !drawPlots(context.Background(), o.plotPath, sum) {
		status = campaignIncomplete
	}
	return status
}

// printText prints the summary on standard output. A failure to (a closed
// pipe, a full disk) is an error: nothing else says what the run found.
func printText(text string) error {
	if _, err := io.WriteString(os.Stdout, text); err != nil {
		return fmt.Errorf("cannot print the summary on standard output: %v (the files named by the options are written)", resultfile.Cause(err))
	}
	return nil
}

// plural is n with the noun, singular for 1: "1 trial", "2 trials".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// writeSummary writes the summary's JSON as a result file.
func writeSummary(path string, s *campaign.Summary) error {
	b, err := s.JSON()
	if err != nil {
		return err
	}
	return resultfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// runReplay runs one trial alone and prints its report (with --trace, its
// timeline too). The status is 1 when the trial failed.
func (o *campaignOptions) runReplay() int {
	var rec *traceRecorder
	opts := luacampaign.Options{Stdout: os.Stdout}
	if o.tracePath != "" {
		rec = newTraceRecorder(o.tracePath)
		opts.OnFabric = rec.attach
	}
	o.cfg.Runners = o.runners(opts)
	intr := newInterrupter()
	t, err := campaign.Replay(intr.arm(), o.cfg, o.replay)
	interrupted := intr.disarm()
	if err != nil {
		return complain(err)
	}
	what := "built-in trial"
	if o.script != "" {
		what = "trial of " + o.script
	}
	status := campaignPassed
	if rec != nil {
		release := resultfile.Hold()
		if err := rec.write(); err != nil {
			status = complain(fmt.Errorf("--trace: %w", err))
		}
		release()
	}
	text := fmt.Sprintf("%s, index %d, seed %d: %s\n", what, t.Index, t.Seed, t.Outcome)
	if t.Report != "" {
		text += strings.TrimRight(t.Report, "\n") + "\n"
	}
	if err := printText(text); err != nil {
		return complain(err)
	}
	switch {
	case interrupted:
		return intr.interruptedStatus()
	case status == campaignPassed && t.Failed:
		return campaignFailures
	}
	return status
}

// runMerge merges summary files, writes the result with --summary and
// --plot, and prints it. The status is 1 when the merged campaign has
// failures, and 2 when it is not complete: a shard missing, or stopped.
// The first Ctrl-C (or SIGTERM) stops the pictures after the one being
// drawn: the summary is written and printed, what was drawn said, and the
// status is 130 (143); a second ends the process at once, leaving no
// partial file.
func (o *campaignOptions) runMerge() int {
	intr := newInterrupter()
	ctx := intr.arm()
	merged := &campaign.Summary{}
	var stopped []string
	for _, path := range o.merge {
		f, err := os.Open(path)
		if err != nil {
			return complain(fmt.Errorf("campaign merge: %s: %v", path, resultfile.Cause(err)))
		}
		s, err := campaign.Decode(bufio.NewReader(f))
		f.Close()
		if err == nil {
			merged, err = campaign.Merge(merged, s)
		}
		if err != nil {
			return complain(fmt.Errorf("campaign merge: %s: %w", path, err))
		}
		if s.Stopped() {
			stopped = append(stopped, fmt.Sprintf("%s (%s) stopped after %d of %d trials", shardsOf(s), path, s.Trials-s.Interrupted(), s.Planned))
		}
	}
	status := campaignPassed
	release := resultfile.Hold()
	written := ""
	if o.summaryPath != "" {
		if err := writeSummary(o.summaryPath, merged); err != nil {
			status = complain(fmt.Errorf("--summary: %w", err))
		} else {
			written = " and written to " + o.summaryPath
		}
	}
	if o.plotPath != "" && !drawPlots(ctx, o.plotPath, merged) {
		status = campaignIncomplete
	}
	release()
	interrupted := intr.disarm()
	if err := printText(merged.Text()); err != nil {
		status = complain(err)
	}
	if interrupted {
		fmt.Fprintf(os.Stderr, "%s: campaign merge: interrupted: the merge of %s is printed%s\n", progName, plural(len(o.merge), "summary", "summaries"), written)
		return intr.interruptedStatus()
	}
	var incomplete []string
	if sh := merged.Shard; sh != nil {
		var missing []int
		for k := range sh.Of {
			if !slices.Contains(sh.Have, k) {
				missing = append(missing, k)
			}
		}
		incomplete = append(incomplete, fmt.Sprintf("%s of %d missing", campaign.ShardWords(missing), sh.Of))
	}
	incomplete = append(incomplete, stopped...)
	switch {
	case len(incomplete) > 0:
		fmt.Fprintf(os.Stderr, "%s: campaign merge: the campaign is incomplete: %s\n", progName, strings.Join(incomplete, "; "))
		return campaignIncomplete
	case status == campaignPassed && merged.Vacuous() != "":
		fmt.Fprintf(os.Stderr, "%s: campaign merge: nothing checked: %s\n", progName, merged.Vacuous())
		return campaignIncomplete
	case status == campaignPassed && (merged.Failed() > 0 || merged.Violations > 0):
		return campaignFailures
	}
	return status
}

// shardsOf names the shards a summary holds: "shard 2", "shards 0 and 1",
// "the whole campaign".
func shardsOf(s *campaign.Summary) string {
	if s.Shard == nil {
		return "the whole campaign"
	}
	return campaign.ShardWords(s.Shard.Have)
}

// drawPlots draws the summary's measurements for --plot and names the
// files drawn on standard error; it reports whether all went well. Once
// ctx ends it draws no more, and says how many it drew.
func drawPlots(ctx context.Context, path string, s *campaign.Summary) bool {
	if len(s.Measurements) == 0 {
		fmt.Fprintf(os.Stderr, "%s: --plot: no measurement was recorded, so there is nothing to draw\n", progName)
		return true
	}
	paths := campaignplot.Paths(s, path)
	names := slices.Sorted(maps.Keys(paths))
	for i, name := range names {
		if ctx.Err() != nil {
			fmt.Fprintf(os.Stderr, "%s: --plot: interrupted: drew %d of %d pictures; %s and the %d after it were not drawn\n", progName, i, len(names), paths[name], len(names)-i-1)
			return false
		}
		err := resultfile.WritePicture(paths[name], func(file string) error { return campaignplot.DrawMeasurement(s, name, file) })
		if err != nil {
			complain(fmt.Errorf("--plot: %s: %w", paths[name], err))
			return false
		}
		fmt.Fprintf(os.Stderr, "%s: --plot: drew %s\n", progName, paths[name])
	}
	return true
}

// jsonlFile streams one JSON line per trial into a result file, completed
// by commit.
type jsonlFile struct {
	f   *resultfile.Output
	w   *bufio.Writer
	err error // the first write error
}

func createJSONL(path string) (*jsonlFile, error) {
	f, err := resultfile.Create(path)
	if err != nil {
		return nil, err
	}
	return &jsonlFile{f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// add writes t's line.
func (j *jsonlFile) add(t campaign.Trial) {
	if j.err != nil {
		return
	}
	b, err := json.Marshal(t)
	if err == nil {
		b = append(b, '\n')
		_, err = j.w.Write(b)
	}
	j.err = err
}

// commit flushes the file and completes it.
func (j *jsonlFile) commit() error {
	err := j.err
	if err == nil {
		err = j.w.Flush()
	}
	f := j.f
	j.f = nil
	if err != nil {
		f.Discard()
		return resultfile.Cause(err)
	}
	return f.Commit()
}

// abandon gives the file up unless commit completed it.
func (j *jsonlFile) abandon() {
	if j.f != nil {
		j.f.Discard()
	}
}

// progress keeps one line on a terminal's standard error up to date:
// trials done of the total, the rate, the time left and the failures.
type progress struct {
	counts   campaign.Progress
	total    int
	start    time.Time
	tick     *time.Ticker
	stopped  chan struct{}
	finished sync.WaitGroup
}

// newProgress starts the line's updates when on is true, showing it at
// once and then five times a second (so that even a campaign that ends
// within the first tick shows it); otherwise the progress counts and shows
// nothing.
func newProgress(cfg campaign.Config, on bool) *progress {
	p := &progress{total: cfg.Planned(), start: time.Now(), stopped: make(chan struct{})}
	if !on {
		return p
	}
	p.tick = time.NewTicker(200 * time.Millisecond)
	p.show()
	p.finished.Go(func() {
		for {
			select {
			case <-p.tick.C:
				p.show()
			case <-p.stopped:
				fmt.Fprint(os.Stderr, "\r\x1b[K") // the summary takes the line's place
				return
			}
		}
	})
	return p
}

// show rewrites the line in place.
func (p *progress) show() {
	done, failures := p.counts.Counts()
	elapsed := time.Since(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed
	}
	eta := "?"
	if done > 0 {
		eta = time.Duration(float64(p.total-done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(os.Stderr, "\r%d/%d trials  %.0f trials/s  ETA %s  %s\x1b[K", done, p.total, rate, eta, plural(failures, "failure", "failures"))
}

// stop ends the updates and clears the line.
func (p *progress) stop() {
	if p.tick == nil {
		return
	}
	p.tick.Stop()
	close(p.stopped)
	p.finished.Wait()
}
