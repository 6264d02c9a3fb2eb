package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/luaapi"
	"github.com/residentlua/residentlua/plot"
)

// campaignOptions is the command line of residentlua campaign.
type campaignOptions struct {
	cfg         campaign.Config
	outPath     string // --out: one JSON line per trial
	summaryPath string // --summary: the Summary's JSON
	plotPath    string // --plot: the measurements' pictures
	tracePath   string // --trace, with --replay
	replay      uint64 // --replay SEED; 0 for none
	shardGiven  bool   // --shard K/N
	shards      int    // --shards N (the shard from JOB_COMPLETION_INDEX)
	merge       []string
	help        bool
}

// campaignUsage is what residentlua campaign --help prints.
const campaignUsage = `usage: residentlua campaign [SCRIPT] [options]
       residentlua campaign merge A.json B.json ... [--summary FILE] [--plot FILE]
Runs N seeded trials (trial i with seed S+i) of the built-in protocol
trial, or of SCRIPT's function trial(t), and prints their summary.
  --trials N        trials of the campaign (default 1000)
  --workers W       trials run at once (default: the number of cores)
  --seed S          seed of trial 0 (default 1)
  --out FILE        write one JSON line per trial (.jsonl)
  --summary FILE    write the summary as JSON (what merge reads)
  --plot FILE       draw each measurement's distribution (a CDF, one line
                    per outcome) into FILE, .svg or .png; with several
                    measurements, a file each: c.svg gives c_NAME.svg
  --replay SEED     run the trial of that seed alone, with its report
  --trace FILE      with --replay: write the trial's timeline
  --shard K/N       run the trials whose index is K mod N
  --shards N        the shard is $JOB_COMPLETION_INDEX (a Kubernetes Indexed
                    Job); a Slurm job array's shard is read from
                    $SLURM_ARRAY_TASK_ID and $SLURM_ARRAY_TASK_COUNT
See docs/campaigns.md.
`

// parseCampaignArgs reads the words after "campaign".
func parseCampaignArgs(args []string) (*campaignOptions, error) {
	o := &campaignOptions{cfg: campaign.Config{Trials: 1000}}
	if len(args) > 0 && args[0] == "merge" {
		return o, o.parseMergeArgs(args[1:])
	}
	script, help, err := parseSubcommandArgs("campaign", "trial script", args, o.set)
	if err != nil {
		return nil, err
	}
	o.help, o.cfg.Script = help, script
	if o.tracePath != "" && o.replay == 0 {
		return nil, &usageError{"--trace goes with --replay SEED: a campaign's trials are replayed one at a time"}
	}
	if o.plotPath != "" && o.replay != 0 {
		return nil, &usageError{"--plot draws a campaign's measurements; a replay of one trial has none to draw"}
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
			return &usageError{fmt.Sprintf("'%s' needs argument", a)}
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
	switch name {
	case "trials":
		o.cfg.Trials, err = positive(name, value)
	case "workers":
		o.cfg.Workers, err = positive(name, value)
	case "shards":
		o.shards, err = positive(name, value)
	case "seed":
		o.cfg.Seed, err = seedValue(name, value)
	case "replay":
		o.replay, err = seedValue(name, value)
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
	default:
		err = &usageError{fmt.Sprintf("campaign: unrecognized option '--%s'", name)}
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

// seedValue reads a seed, from 1 to 2^53-1.
func seedValue(name, value string) (uint64, error) {
	n, err := strconv.ParseUint(value, 10, 64)
	if err != nil || n == 0 || n > luaapi.MaxSeed {
		return 0, &usageError{fmt.Sprintf("--%s %q: give a whole number from 1 to 2^53-1", name, value)}
	}
	return n, nil
}

// setShard reads --shard K/N.
func (o *campaignOptions) setShard(value string) error {
	k, n, ok := strings.Cut(value, "/")
	kn, err1 := strconv.Atoi(k)
	nn, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || nn < 1 || kn < 0 || kn >= nn {
		return &usageError{fmt.Sprintf("--shard %q: give K/N with 0 <= K < N, such as 0/4", value)}
	}
	o.cfg.Shard, o.cfg.Shards, o.shardGiven = kn, nn, true
	return nil
}

// shardFromEnv sets the shard from a scheduler's variables when --shard
// was not given: a Slurm job array (SLURM_ARRAY_TASK_ID, less
// SLURM_ARRAY_TASK_MIN when set, of SLURM_ARRAY_TASK_COUNT), or a
// Kubernetes Indexed Job (JOB_COMPLETION_INDEX, of --shards N).
func (o *campaignOptions) shardFromEnv() error {
	if o.shardGiven {
		return nil
	}
	if id, count := os.Getenv("SLURM_ARRAY_TASK_ID"), os.Getenv("SLURM_ARRAY_TASK_COUNT"); id != "" && count != "" && o.shards == 0 {
		k, err1 := strconv.Atoi(id)
		n, err2 := strconv.Atoi(count)
		base := 0
		if m := os.Getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
			base, _ = strconv.Atoi(m)
		}
		k -= base
		if err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
			return fmt.Errorf("SLURM_ARRAY_TASK_ID=%s of SLURM_ARRAY_TASK_COUNT=%s: not a shard (give the array as --array=0-%d, or --shard K/N)", id, count, max(n, 1)-1)
		}
		o.cfg.Shard, o.cfg.Shards = k, n
		return nil
	}
	if o.shards == 0 {
		return nil
	}
	idx := os.Getenv("JOB_COMPLETION_INDEX")
	k, err := strconv.Atoi(idx)
	if idx == "" || err != nil || k < 0 || k >= o.shards {
		return fmt.Errorf("--shards %d: JOB_COMPLETION_INDEX is %q; a Kubernetes Indexed Job of %d completions sets it from 0 to %d (or give --shard K/N)", o.shards, idx, o.shards, o.shards-1)
	}
	o.cfg.Shard, o.cfg.Shards = k, o.shards
	return nil
}

// checkOutputs checks --out, --summary, --plot and --trace before anything
// runs, as the interpreter checks --trace and --stats (and --plot's
// picture format). The pictures of several measurements go next to --plot's
// file, in its directory, which this checks too.
func (o *campaignOptions) checkOutputs() error {
	if o.plotPath != "" {
		if err := plot.CheckFormat(o.plotPath); err != nil {
			return &usageError{fmt.Sprintf("--plot %s", strings.TrimPrefix(err.Error(), "plot: "))}
		}
	}
	return checkOutputFiles([]outputFile{{"--out", o.outPath}, {"--summary", o.summaryPath}, {"--plot", o.plotPath}, {"--trace", o.tracePath}})
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
		if _, usage := err.(*usageError); usage {
			fmt.Fprint(os.Stderr, campaignUsage)
		}
		return 1
	}
	switch {
	case o.help:
		fmt.Print(campaignUsage)
		return 0
	case o.merge != nil:
		return o.runMerge()
	case o.replay != 0:
		return o.runReplay()
	}
	defer campaign.TuneGC()()
	return o.runTrials()
}

// complain prints a failure of the command and returns status 1.
func complain(err error) int {
	fmt.Fprintf(os.Stderr, "%s: %v\n", progName, err)
	return 1
}

// runTrials runs the campaign: the summary on stdout, the files, progress
// on a terminal. The first Ctrl-C (or SIGTERM) stops it after the trials in
// flight, and what finished is printed and written.
func (o *campaignOptions) runTrials() int {
	var out *jsonlFile
	if o.outPath != "" {
		var err error
		if out, err = createJSONL(o.outPath); err != nil {
			return complain(fmt.Errorf("--out: %w", err))
		}
		defer out.abandon()
	}
	prog := newProgress(o.cfg, isTerminal(os.Stderr))
	o.cfg.Progress = &prog.counts
	if out != nil {
		// Only the file needs the trials in order; without it each
		// worker keeps its own summary.
		o.cfg.OnTrial = out.add
	}
	intr := newInterrupter()
	start := time.Now()
	sum, err := campaign.Run(intr.arm(), o.cfg)
	intr.disarm()
	prog.stop()
	if err != nil {
		return complain(err)
	}
	fmt.Print(sum.Text())
	status := 0
	if sum.Failed() > 0 || sum.Violations > 0 {
		status = 1
	}
	elapsed := time.Since(start)
	fmt.Fprintf(os.Stderr, "%s: %d trials in %s (%.0f a second)\n", progName, sum.Trials, elapsed.Round(time.Millisecond), float64(sum.Trials)/elapsed.Seconds())
	if sum.Stopped() {
		fmt.Fprintf(os.Stderr, "%s: interrupted: stopped after %d of %d trials; the summary and the files hold those\n", progName, sum.Trials, sum.Planned)
		status = 1
	}
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
	if o.plotPath != "" && !drawPlots(o.plotPath, sum) {
		status = 1
	}
	if intr.wasTerminated() {
		status = exitTerminated
	}
	return status
}

// writeSummary writes the summary's JSON through a temporary file.
func writeSummary(path string, s *campaign.Summary) error {
	b, err := s.JSON()
	if err != nil {
		return err
	}
	return writeFileAtomically(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// runReplay runs one trial alone and prints its report (with --trace, its
// timeline too). The status is 1 when the trial failed.
func (o *campaignOptions) runReplay() int {
	var rec *traceRecorder
	if o.tracePath != "" {
		rec = newTraceRecorder(o.tracePath)
		o.cfg.OnFabric = rec.attach
	}
	o.cfg.Stdout = os.Stdout
	t, err := campaign.Replay(o.cfg, o.replay)
	if err != nil {
		return complain(err)
	}
	what := "built-in trial"
	if o.cfg.Script != "" {
		what = "trial of " + o.cfg.Script
	}
	fmt.Printf("%s, index %d, seed %d: %s\n", what, t.Index, t.Seed, t.Outcome)
	if t.Report != "" {
		fmt.Println(strings.TrimRight(t.Report, "\n"))
	}
	status := 0
	if t.Failed {
		status = 1
	}
	if rec != nil {
		if err := rec.write(o.tracePath); err != nil {
			status = complain(fmt.Errorf("--trace: %w", err))
		}
	}
	return status
}

// runMerge merges summary files, prints the result and writes it with
// --summary. The status is 1 when the merged campaign has failures.
func (o *campaignOptions) runMerge() int {
	merged := &campaign.Summary{}
	for _, path := range o.merge {
		f, err := os.Open(path)
		if err != nil {
			return complain(fmt.Errorf("campaign merge: %s: %v", path, unwrapPathError(err)))
		}
		s, err := campaign.Decode(bufio.NewReader(f))
		f.Close()
		if err == nil {
			merged, err = campaign.Merge(merged, s)
		}
		if err != nil {
			return complain(fmt.Errorf("campaign merge: %s: %w", path, err))
		}
	}
	fmt.Print(merged.Text())
	status := 0
	if merged.Failed() > 0 || merged.Violations > 0 {
		status = 1
	}
	if o.summaryPath != "" {
		if err := writeSummary(o.summaryPath, merged); err != nil {
			status = complain(fmt.Errorf("--summary: %w", err))
		}
	}
	if o.plotPath != "" && !drawPlots(o.plotPath, merged) {
		status = 1
	}
	return status
}

// drawPlots draws the summary's measurements for --plot and names the
// files drawn on standard error; it reports whether all went well.
func drawPlots(path string, s *campaign.Summary) bool {
	if len(s.Measurements) == 0 {
		fmt.Fprintf(os.Stderr, "%s: --plot: no measurement was recorded, so there is nothing to draw\n", progName)
		return true
	}
	drawn, err := s.Plot(path)
	for _, p := range drawn {
		fmt.Fprintf(os.Stderr, "%s: --plot: drew %s\n", progName, p)
	}
	if err != nil {
		complain(fmt.Errorf("--plot: %w", err))
		return false
	}
	return true
}

// jsonlFile streams one JSON line per trial into a temporary file in the
// destination's directory, renamed into place by commit.
type jsonlFile struct {
	path string
	tmp  *os.File
	w    *bufio.Writer
	err  error // the first write error
}

func createJSONL(path string) (*jsonlFile, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, unwrapPathError(err)
	}
	return &jsonlFile{path: path, tmp: tmp, w: bufio.NewWriterSize(tmp, 1<<16)}, nil
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

// commit flushes the file and renames it into place.
func (j *jsonlFile) commit() error {
	err := j.err
	if err == nil {
		err = j.w.Flush()
	}
	if err == nil {
		err = j.tmp.Sync()
	}
	if cerr := j.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(j.tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(j.tmp.Name(), j.path)
	}
	j.tmp = nil
	return unwrapPathError(err)
}

// abandon removes the temporary file unless commit renamed it.
func (j *jsonlFile) abandon() {
	if j.tmp != nil {
		j.tmp.Close()
		os.Remove(j.tmp.Name())
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

// newProgress starts the line's updates when on is true; otherwise the
// progress counts and shows nothing.
func newProgress(cfg campaign.Config, on bool) *progress {
	p := &progress{total: cfg.Planned(), start: time.Now(), stopped: make(chan struct{})}
	if !on {
		return p
	}
	p.tick = time.NewTicker(200 * time.Millisecond)
	p.finished.Go(func() {
		for {
			select {
			case <-p.tick.C:
				p.show()
			case <-p.stopped:
				p.show()
				fmt.Fprintln(os.Stderr)
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
	rate := float64(done) / elapsed
	eta := "?"
	if done > 0 {
		eta = time.Duration(float64(p.total-done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(os.Stderr, "\r%d/%d trials  %.0f/s  ETA %s  failures %d\x1b[K", done, p.total, rate, eta, failures)
}

// stop ends the updates with a last one.
func (p *progress) stop() {
	if p.tick == nil {
		return
	}
	p.tick.Stop()
	close(p.stopped)
	p.finished.Wait()
}
