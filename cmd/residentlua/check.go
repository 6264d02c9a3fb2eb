package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/internal/gctune"
	"github.com/residentlua/residentlua/internal/resultfile"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
	"github.com/residentlua/residentlua/luaprogram"
)

// checkOptions is the command line of residentlua check.
type checkOptions struct {
	scenario  string            // SCENARIO.lua; empty for the built-in scenario
	bounds    check.Bounds      // --faults, --preemptions, --steps, --sessions, --misuse
	exchange  check.Exchange    // --rounds, --credits: the built-in exchange's arguments
	noPrune   bool              // --no-prune: explore without state hashing
	given     []string          // the bounds given, as flags, to refuse them with --replay
	shaped    []string          // the exchange's arguments given, to refuse them with --args
	replay    string            // --replay STR
	programs  []string          // --programs GPU.lua,NPU.lua: the pair the built-in scenario runs
	args      map[string]any    // --args k=v,...: the pair's own arguments
	arg       luaapi.ScriptArgs // --arg k=v ...: the scenario script's arguments
	pair      check.Pair        // the pair's name and digest, for the replay strings
	tracePath string            // --trace, with --replay
	force     bool              // --force: --trace may replace a file that does not look like a trace
	help      bool
}

// The exit statuses of residentlua check.
const (
	checkClean  = 0 // no invariant broken within the bounds
	checkBroken = 1 // an invariant broken, or the search or replay stopped before the end
	checkFailed = 2 // no check: a usage mistake, a scenario that does not load or fails
)

// checkUsage is what residentlua check --help prints.
const checkUsage = `usage: residentlua check [SCENARIO.lua] [options]
Explores every schedule of the built-in scenario, or of SCENARIO.lua's
function scenario(c), within the bounds, and prints the shortest schedule
found that breaks each invariant broken.
The built-in exchange's arguments (and those of a pair given --programs
without --args; a scenario script reads them as c.rounds and c.credits):
  --rounds R        the largest exchange's rounds (default 2)
  --credits C       the largest exchange's credits (default 2)
The bounds of the search, whatever the pair:
  --faults F        faults that may fire in one run (default 1; 0: none)
  --preemptions P   switches away from a program that can still step, in
                    one run (default 2; 0: none)
  --steps N         choices of one run that may branch (default 200)
  --sessions S      sessions the built-in scenario may make, sharing the
                    GPU and the NPU, their operations interleaved (default
                    2, 1 for a pair given --args; from 1 to 3)
  --misuse on|off   whether the built-in scenario also makes host calls out
                    of order, and a close that races a wait from another
                    thread (default on, off for a pair given --args; 1 and
                    0 say the same)
  --no-prune        explore without state hashing: slower, and finds the
                    same (a check of the pruning)
  --programs G,N    the built-in scenario runs the GPU program G and the NPU
                    program N (files of Lua programs, docs/programs.md) in
                    place of the built-in exchange, giving each session the
                    exchange's shape as args (rounds, credits, slot_bytes)
  --args K=V,...    with --programs: the pair's own arguments (numbers,
                    true, false or strings); the pair then runs with
                    these alone, and --rounds and --credits, the built-in
                    exchange's, do not apply
  --arg K=V         with a scenario script: an argument of the script, which
                    reads it as c.args.K (a number, true, false or a
                    string) and sees arg as a script does; give one --arg
                    for each
  --replay STR      rerun the one schedule a counterexample's replay string
                    names, with the scenario and the pair (--programs,
                    --args, --rounds, --credits) that printed it
  --trace FILE      with --replay: write the run's timeline (Chrome
                    trace-event JSON)
  --force           let --trace replace a file that does not look like a
                    trace (a .lua file, say)
Exit status: 0 when no invariant breaks, 1 when one does (or the search is
stopped), 2 when the check cannot be made. See docs/checking.md.
`

// parseCheckArgs reads the words after "check".
func parseCheckArgs(args []string) (*checkOptions, error) {
	o := &checkOptions{}
	valued := map[string]bool{"replay": true, "trace": true, "programs": true, "args": true, "arg": true, "force": false, "no-prune": false}
	for _, name := range append(check.BoundNames(), check.ExchangeNames()...) {
		valued[name] = true
	}
	scenario, help, err := parseSubcommandArgs("check", "scenario script", args, valued, o.set)
	if err != nil {
		return nil, err
	}
	o.help, o.scenario = help, scenario
	if o.arg.Words != nil && o.scenario == "" {
		return nil, &usageError{"--arg goes with a scenario script, which reads its values as c.args (a pair given by --programs takes --args)"}
	}
	if o.args != nil && o.programs == nil {
		return nil, &usageError{"--args goes with --programs: they are the arguments of that pair (the built-in exchange takes --rounds and --credits)"}
	}
	if o.args != nil && len(o.shaped) > 0 {
		return nil, &usageError{fmt.Sprintf("--%s is the built-in exchange's argument, not this pair's: give it in --args (--args %s=N,...) if the pair takes it", o.shaped[0], o.shaped[0])}
	}
	if o.tracePath != "" && o.replay == "" {
		return nil, &usageError{"--trace goes with --replay STR: a search runs too many schedules to trace; replay the one a counterexample names"}
	}
	if o.replay != "" && len(o.given) > 0 {
		return nil, &usageError{fmt.Sprintf("--%s does not go with --replay: the replay string fixes the schedule and its bounds (the pair and its arguments are given as for the search)", o.given[0])}
	}
	if o.replay != "" && o.noPrune {
		return nil, &usageError{"--no-prune does not go with --replay: a replay runs one schedule, and prunes nothing"}
	}
	return o, nil
}

// set records one option of check.
func (o *checkOptions) set(name, value string) error {
	switch name {
	case "replay":
		if value == "" {
			return &usageError{`--replay "": give the replay string a counterexample printed, such as f1:2.0.1`}
		}
		o.replay = value
		return nil
	case "trace":
		o.tracePath = value
		return nil
	case "programs":
		o.programs = strings.Split(value, ",")
		if len(o.programs) != 2 || o.programs[0] == "" || o.programs[1] == "" {
			return &usageError{fmt.Sprintf("--programs %q: give the GPU program's file and the NPU program's, as gpu.lua,npu.lua", value)}
		}
		return nil
	case "args":
		if o.args == nil {
			o.args = map[string]any{}
		}
		return parseArgValues("--args", value, o.args)
	case "arg":
		return addScriptArg(&o.arg, "--arg", value)
	case "force":
		o.force = true
		return nil
	case "no-prune":
		o.noPrune = true
		return nil
	case "misuse":
		switch value {
		case "on":
			value = "1"
		case "off":
			value = "0"
		}
	}
	shaped := slices.Contains(check.ExchangeNames(), name)
	if !shaped && !slices.Contains(check.BoundNames(), name) {
		return &usageError{fmt.Sprintf("check: unrecognized option '--%s'", name)}
	}
	n, err := strconv.Atoi(value)
	switch {
	case err == nil && shaped:
		err = o.exchange.Set(name, n)
	case err == nil:
		err = o.bounds.Set(name, n)
	default:
		err = fmt.Errorf("%s must be a whole number", name)
		if name == "misuse" {
			err = fmt.Errorf("misuse must be on or off (or 1 or 0)")
		}
	}
	if err != nil {
		return &usageError{fmt.Sprintf("--%s %q: %v", name, value, err)}
	}
	if shaped {
		o.shaped = append(o.shaped, name)
	} else {
		o.given = append(o.given, name)
	}
	return nil
}

// runCheck is residentlua check; it returns the exit status.
func runCheck(args []string) int {
	o, err := parseCheckArgs(args)
	if err == nil && !o.help {
		err = resultfile.Checks{Outputs: []resultfile.File{{Option: "--trace", Path: o.tracePath, Kind: resultfile.JSONObject}}, Inputs: []string{o.scenario}, Force: o.force, ForceOption: "--force"}.Check()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", progName, err)
		if isUsage(err) {
			fmt.Fprint(os.Stderr, checkUsage)
		}
		return checkFailed
	}
	if o.help {
		fmt.Print(checkUsage)
		return checkClean
	}
	// Ctrl-C or SIGTERM stops the scenario's first run, the search (even
	// in a long wait of a run), or the replay; a search prints what it
	// found so far.
	intr := newInterrupter()
	ctx := intr.arm()
	// A search runs the scenario thousands of times: its prints are shown
	// by --replay only.
	stdout := &reportWriter{w: os.Stdout}
	out := io.Writer(io.Discard)
	if o.replay != "" {
		out = stdout
	}
	scenario, closeScenario, err := o.loadScenario(ctx, out)
	status := checkFailed
	switch {
	case err != nil:
		complainStatus(err, checkFailed)
		closeScenario = func() {}
	case o.replay != "":
		status = o.runReplay(ctx, scenario, stdout)
	default:
		status = o.runSearch(ctx, scenario, intr, stdout)
	}
	closeScenario()
	if stdout.err != nil {
		status = complainStatus(fmt.Errorf("cannot print the report on standard output: %v", resultfile.Cause(stdout.err)), checkFailed)
	}
	if intr.disarm(); intr.wasTerminated() {
		return exitTerminated
	}
	return status
}

// reportWriter writes a report to w and keeps the first error, so that a
// report cut short (a closed pipe, a full disk) is an error of the command.
type reportWriter struct {
	w   io.Writer
	err error
}

func (r *reportWriter) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.w.Write(p)
	r.err = err
	return n, err
}

// loadScenario is the scenario to check: the built-in one, or the script's
// (whose print writes to stdout), with a function that closes what it
// loaded. With --programs, the built-in scenario runs that pair. ctx stops
// the script's first run, which makes sure that it is a scenario.
func (o *checkOptions) loadScenario(ctx context.Context, stdout io.Writer) (check.Scenario, func(), error) {
	if o.scenario == "" && o.programs != nil {
		opts := luaprogram.Options{Stdout: stdout}
		gpu, err := luaprogram.Load(ctx, o.programs[0], opts)
		if err != nil {
			return nil, nil, err
		}
		npu, err := luaprogram.Load(ctx, o.programs[1], opts)
		if err != nil {
			gpu.Close()
			return nil, nil, err
		}
		closePair := func() { gpu.Close(); npu.Close() }
		// The programs' steps are bounded by their instruction budget, not
		// by the signals: once a signal stops the search, the checker
		// reruns what it found to describe it, and programs stopped at once
		// would make that rerun differ (reported as not deterministic).
		var scenario check.Scenario
		scenario, o.pair = luaapi.PairChecked(context.WithoutCancel(ctx), gpu, npu, o.args, o.exchange)
		return scenario, closePair, nil
	}
	if o.scenario == "" {
		o.pair = o.exchange.Pair()
		return o.exchange.Scenario(check.Builtin), func() {}, nil
	}
	if o.programs != nil {
		return nil, nil, &usageError{"--programs goes with the built-in scenario; a scenario script makes its sessions of programs itself"}
	}
	sc, err := luaapi.LoadScenarioArgs(ctx, o.scenario, stdout, o.arg)
	if err != nil {
		return nil, nil, err
	}
	var scenario check.Scenario
	scenario, o.pair = luaapi.ScriptChecked(sc.Run, o.exchange)
	return scenario, func() {}, nil
}

// scenarioName says which scenario is checked, for the report.
func (o *checkOptions) scenarioName() string {
	if o.scenario == "" && o.programs != nil {
		name := "the built-in scenario with " + o.programs[0] + " and " + o.programs[1]
		if o.args != nil {
			name += ", args " + luaapi.ArgsWords(o.args)
		}
		return name
	}
	if o.scenario == "" {
		return "the built-in scenario"
	}
	return "the scenario of " + o.scenario
}

// maxStates is how many states a search remembers: check's default (about
// 1 GiB of them), or as many as half the memory budget holds when that is
// less (lua51.DefaultMemoryLimit: a third of what ulimit -v leaves), so
// that under an address space limit the search stops remembering states
// before Go's heap takes the rest and the process ends.
func maxStates() int {
	perState := int64(1<<30) / check.DefaultMaxStates
	return int(min(check.DefaultMaxStates, max(1, lua51.DefaultMemoryLimit()/2/perState)))
}

// runSearch explores the scenario and prints the report, with progress on
// a terminal; the search stops when ctx ends.
func (o *checkOptions) runSearch(ctx context.Context, scenario check.Scenario, intr *interrupter, stdout io.Writer) int {
	prog := newCheckProgress(os.Stderr, isTerminal(os.Stderr))
	restore := gctune.ForBatch(lua51.DefaultMemoryLimit())
	rep := check.Check(ctx, scenario, check.Options{Bounds: o.bounds, Progress: prog.show, NoPrune: o.noPrune, Pair: o.pair, MaxStates: maxStates()})
	restore()
	intr.disarm()
	prog.stop()
	return o.report(&rep, stdout)
}

// report prints a search's report on stdout (and why it proves nothing on
// standard error, when it does not); it returns the exit status.
func (o *checkOptions) report(rep *check.Report, stdout io.Writer) int {
	fmt.Fprintf(stdout, "check: %s\n%s", o.scenarioName(), rep.String())
	switch {
	case rep.Nondeterministic != "":
		fmt.Fprintf(os.Stderr, "%s: %s\n", progName, rep.Nondeterministic)
		return checkFailed
	case !rep.OK():
		return checkBroken
	case rep.Vacuous() != "":
		fmt.Fprintf(os.Stderr, "%s: %s\n", progName, rep.Vacuous())
		return checkFailed
	case rep.ScenarioErrors > 0:
		fmt.Fprintf(os.Stderr, "%s: the scenario failed in %s, not explored further; fix it and check again\n", progName, plural(rep.ScenarioErrors, "run", "runs"))
		return checkFailed
	case !rep.Exhausted:
		fmt.Fprintf(os.Stderr, "%s: interrupted: the search stopped after %s, before the end of the bounded space; no invariant broken in those\n", progName, plural(rep.Schedules, "schedule", "schedules"))
		return checkBroken
	}
	return checkClean
}

// runReplay reruns the schedule of --replay and prints what happened: the
// steps, then each violation with its events. With --trace, the run's
// timeline is written too. The status is 1 when an invariant broke; the
// replay stops when ctx ends.
func (o *checkOptions) runReplay(ctx context.Context, scenario check.Scenario, stdout io.Writer) int {
	var rec *traceRecorder
	var onFabric func(*devices.Fabric)
	if o.tracePath != "" {
		rec = newTraceRecorder(o.tracePath)
		onFabric = rec.attach
	}
	r, err := check.ReplayPair(ctx, scenario, o.pair, o.replay, onFabric)
	switch {
	case err != nil && ctx.Err() != nil:
		return complainStatus(err, checkBroken) // stopped before the end
	case err != nil:
		return complainStatus(err, checkFailed)
	}
	fmt.Fprintf(stdout, "replay %s of %s (first alternatives marked -):\n", o.replay, o.scenarioName())
	for _, s := range r.Steps {
		fmt.Fprintf(stdout, "  %v\n", s)
	}
	status := checkClean
	if len(r.Violations) == 0 {
		fmt.Fprintln(stdout, "no invariant broken")
	}
	for _, v := range r.Violations {
		status = checkBroken
		fmt.Fprintf(stdout, "\n%v\nevents that led to it:\n", v)
		for _, e := range check.FormatEvents(v.Events) {
			fmt.Fprintf(stdout, "  %s\n", e)
		}
	}
	if rec != nil {
		release := resultfile.Hold()
		if err := rec.write(); err != nil {
			status = complainStatus(fmt.Errorf("--trace: %w", err), checkFailed)
		}
		release()
	}
	return status
}

// complainStatus prints a failure of the command and returns status.
func complainStatus(err error, status int) int {
	fmt.Fprintf(os.Stderr, "%s: %v\n", progName, err)
	return status
}

// checkProgress keeps one line on a terminal's standard error up to date,
// as the campaign's progress does: schedules, distinct states, invariants
// broken so far and the time. Off a terminal it shows nothing.
type checkProgress struct {
	w     io.Writer
	on    bool
	shown bool
}

func newCheckProgress(w io.Writer, on bool) *checkProgress {
	return &checkProgress{w: w, on: on}
}

// show rewrites the line in place; check.Check calls it every 200 ms.
func (p *checkProgress) show(g check.Progress) {
	if !p.on {
		return
	}
	p.shown = true
	fmt.Fprintf(p.w, "\r%s  %s  %s  %s  %s\x1b[K", plural(g.Schedules, "schedule", "schedules"), plural(g.States, "state", "states"), plural(g.Violations, "violation", "violations"), g.Elapsed.Round(100*time.Millisecond), g.Phase)
}

// stop ends the line, if one was shown.
func (p *checkProgress) stop() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}
