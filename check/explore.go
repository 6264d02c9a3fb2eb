package check

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine/oracle"
)

// Bounds bound the search, whatever pair of programs it runs: the built-in
// exchange's rounds and credits are that pair's arguments (Exchange), not
// bounds. The zero value of every field means its default.
type Bounds struct {
	// Steps is how many choice points of a run may branch (default 200):
	// later ones take their first alternative.
	Steps int
	// Preemptions is how many times a run may switch away from the program
	// that stepped last while it can still step (default 2; -1 for none).
	Preemptions int
	// Faults is how many faults may fire in a run (default 1; -1 for none).
	Faults int
	// Sessions is how many sessions the built-in scenario may make (default
	// 2, at most MaxSessions): with two or more it also explores plans in
	// which that many sessions share the fabric's GPU and NPU, their host
	// operations interleaved.
	Sessions int
	// Misuse is whether the built-in scenario also makes host calls out of
	// order, which the protocol refuses (default 1, yes; -1, no): abort
	// after start, start or submit twice, submit after close, wait before a
	// decision, and a close racing a wait in another host thread.
	Misuse int
	// Length bounds host operations plus choices before a violation (0:
	// none). The checker sets it itself to find the shortest counterexample.
	Length int
}

// MaxSessions is the most sessions Bounds.Sessions allows: each one more
// multiplies the interleavings the built-in scenario explores by about a
// thousand.
const MaxSessions = 3

// boundNames are the bounds a person sets (BoundNames).
var boundNames = []string{"faults", "preemptions", "steps", "sessions", "misuse"}

// BoundNames lists the bounds a person sets, as the command's flags and
// resident.check's fields name them: the names Bounds.Set takes.
func BoundNames() []string { return slices.Clone(boundNames) }

// Set sets the bound name (one of BoundNames) to v, as a person gives it:
// steps from 1 to 1,000,000, faults and preemptions
// from 0 (none, which Set stores as -1) to 100, sessions from 1 to
// MaxSessions, misuse 0 (off, stored as -1) or 1 (on). The error says the
// range.
func (b *Bounds) Set(name string, v int) error {
	lo, hi := 1, 1_000_000
	var dst *int
	switch name {
	case "steps":
		dst = &b.Steps
	case "faults":
		dst, lo, hi = &b.Faults, 0, 100
	case "preemptions":
		dst, lo, hi = &b.Preemptions, 0, 100
	case "sessions":
		dst, hi = &b.Sessions, MaxSessions
	case "misuse":
		dst, lo, hi = &b.Misuse, 0, 1
	default:
		return fmt.Errorf("%s is not a bound; the bounds are %s", name, strings.Join(boundNames, ", "))
	}
	if name == "misuse" && (v < lo || v > hi) {
		return fmt.Errorf("misuse must be 0 (off) or 1 (on), got %d", v)
	}
	if v < lo || v > hi {
		return fmt.Errorf("%s must be a whole number from %d to %d, got %d", name, lo, hi, v)
	}
	if v == 0 {
		v = -1 // none: the zero value is the default
	}
	*dst = v
	return nil
}

// pairDefaults is b with the defaults of a pair of one's own (Pair.OwnArgs)
// where b leaves them: one session and no misuse. Those two bounds explore
// the host's side of the protocol (sessions sharing the devices, calls out
// of order), which the built-in scenario checks; a pair's search spends its
// schedules on its programs' orders, faults and preemptions instead, and
// ends in minutes where the built-in defaults take hours of Lua.
func (b Bounds) pairDefaults() Bounds {
	if b.Sessions == 0 {
		b.Sessions = 1
	}
	if b.Misuse == 0 {
		b.Misuse = -1
	}
	return b
}

func (b Bounds) withDefaults() Bounds {
	if b.Steps <= 0 {
		b.Steps = 200
	}
	if b.Preemptions == 0 {
		b.Preemptions = 2
	}
	b.Preemptions = max(b.Preemptions, 0)
	if b.Faults == 0 {
		b.Faults = 1
	}
	b.Faults = max(b.Faults, 0)
	if b.Sessions <= 0 {
		b.Sessions = defaultSessions
	}
	if b.Misuse == 0 {
		b.Misuse = 1
	}
	b.Misuse = max(b.Misuse, 0)
	return b
}

// defaultSessions is Bounds.Sessions when it is 0.
const defaultSessions = 2

// Options say what to check and how to report progress.
type Options struct {
	Bounds Bounds
	// Progress, when set, is called about every ProgressEvery (default
	// 200 ms) with the figures so far.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// MaxStates is how many explored states the search remembers for
	// pruning (0: DefaultMaxStates). Past it, it remembers no more: it
	// prunes less and takes longer, but misses nothing, and its memory
	// stays bounded however long it runs.
	MaxStates int
	// NoPrune explores without state hashing: no run stops branching
	// because it reached a state explored before. The pruning is sound, so
	// the search finds the same violations and the same final outcomes,
	// more slowly; Report.States is then 0.
	NoPrune bool
	// Pair names the programs the scenario runs and their arguments (the
	// built-in exchange's: Exchange.Pair): its digest goes into every
	// replay string, so that a replay on another pair is refused. The zero
	// Pair records none.
	Pair Pair
}

// Pair is what a replay string records of the programs that made it: a
// digest of their texts and arguments (PairDigest), and a name for
// messages and reports ("fill_gpu.lua,sum_npu.lua with chunks=2").
type Pair struct {
	Name   string
	Digest string
	// OwnArgs says the pair runs with arguments of its own, not the
	// built-in exchange's shape: its search defaults to one session and no
	// misuse (Bounds.Sessions, Bounds.Misuse).
	OwnArgs bool
	// Optional says a run may make no session of the pair (a scenario
	// script, which makes the sessions it likes, reads the pair's
	// arguments): a search that decided none RUN is not vacuous.
	Optional bool
}

// PairDigest is the digest of a pair that a replay string records: of
// parts (the programs' texts, then their arguments in a fixed order), 8
// hexadecimal digits.
func PairDigest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:8]
}

// LongEnough is how long a wait of a scenario (a close's join included)
// must be for the oracle to require that it see a fault-free session
// retire (invariant 15, oracle.Oracle.Liveness): the built-in scenario's
// long wait. The fabric's timing is ideal, so the built-in exchange needs
// no time at all; a program that models delays longer than this is
// reported as not retiring.
const LongEnough = time.Second

// DefaultMaxStates is Options.MaxStates when it is 0: about 1 GiB of
// remembered states, the figure a caller that gives the search more or
// less memory scales.
const DefaultMaxStates = 8_000_000

// Progress is how far a search has come.
type Progress struct {
	Schedules  int           // runs so far
	States     int           // distinct states hashed
	Violations int           // invariants found broken so far
	Elapsed    time.Duration // since the search began
	Phase      string        // "exploring", or "shortest for invariant N"
}

// Report is what a search found.
type Report struct {
	Bounds    Bounds
	Schedules int // runs of the scenario, counterexample searches included
	States    int // distinct states the main search hashed
	Pruned    int // runs cut short because they reached a state already explored
	Truncated int // runs that reached the step bound: exploring them further needs more Steps
	// Made, Decided and Retired count the runs in which a session was
	// made, in which a session was decided RUN, and in which a RUN session
	// retired: how much of the space the programs reached. A search in
	// which no run decided RUN proved nothing of the programs (Vacuous).
	Made, Decided, Retired int
	// Pair is the pair checked (Options.Pair); empty for a scenario of no
	// pair of one's own.
	Pair Pair
	// FirstError is the first error of making a session (a program's
	// buffers declaration that failed, say), with its replay string; empty
	// when every session was made.
	FirstError string
	// ScenarioErrors counts the runs in which the scenario itself failed (a
	// Lua error); ScenarioError is the first one's message and Replay
	// string.
	ScenarioErrors int
	ScenarioError  string
	// Nondeterministic, when not empty, says how the scenario was found not
	// to be a function of its choices: a run that replayed the choices of an
	// earlier one met a choice with another number or kind of
	// alternatives, or other host operations before it. The search stops
	// there: its pruning and its replay strings assume a deterministic
	// scenario.
	Nondeterministic string
	// StatesFull is set when the search reached Options.MaxStates and went
	// on without remembering the states it reached after.
	StatesFull bool
	Exhausted  bool // every schedule within the bounds was explored (not stopped)
	NoPrune    bool // the search hashed no state (Options.NoPrune)
	Elapsed    time.Duration
	// Counterexamples holds, for each invariant found broken, the shortest
	// schedule found that breaks it, in invariant order.
	Counterexamples []Counterexample
}

// OK reports whether no invariant broke.
func (r *Report) OK() bool { return len(r.Counterexamples) == 0 }

// Vacuous says why a search of a pair (Options.Pair) proved nothing of
// the programs, when no run decided a session RUN: no session
// was made (the programs' first error, when one was refused), or none was
// started. It is empty when a run decided RUN, when the search found a
// violation, stopped before the end or met errors of the scenario itself,
// and for a scenario of no pair or of an optional one (Pair.Optional): a
// scenario script may make no session.
func (r *Report) Vacuous() string {
	if r.Pair.Digest == "" || r.Pair.Optional || r.Decided > 0 || !r.OK() || !r.Exhausted || r.Schedules == 0 || r.ScenarioErrors > 0 {
		return ""
	}
	why := "no schedule decided a session RUN"
	if r.Made == 0 {
		why = "no schedule made a session"
	}
	if r.FirstError != "" {
		why += "; the first error: " + r.FirstError
	}
	return why + ": the programs never ran, so the search proved nothing of them"
}

// Check explores every schedule of scenario within the bounds, CHESS style:
// it reruns the scenario on a fresh simulated fabric for each sequence of
// choices (host choices and the fabric's), depth first, pruning a run once
// it reaches a state already explored with at least as much of the bounds
// left. For each invariant broken, it then finds the shortest
// counterexample by iterative deepening on its length. When ctx ends, it
// stops and reports what it found so far (Exhausted false); each run sees
// ctx (Host.Context), so that a long wait stops too. It stops as well when
// it finds the scenario not deterministic (Report.Nondeterministic).
func Check(ctx context.Context, scenario Scenario, opts Options) Report {
	start := time.Now()
	bounds := opts.Bounds
	if opts.Pair.OwnArgs {
		bounds = bounds.pairDefaults()
	}
	x := &explorer{scenario: scenario, bounds: bounds.withDefaults(), opts: opts, start: start, maxStates: opts.MaxStates, pair: opts.Pair}
	if x.maxStates <= 0 {
		x.maxStates = DefaultMaxStates
	}
	x.seen = map[uint64][]budget{}
	rep := Report{Bounds: x.bounds, NoPrune: opts.NoPrune, Pair: opts.Pair}
	found := x.search(ctx, 0)
	rep.Exhausted = ctx.Err() == nil && x.diverged == ""
	rep.States, rep.Pruned, rep.Truncated, rep.StatesFull = len(x.seen), x.pruned, x.truncated, x.statesFull
	for inv := 1; oracle.Invariant(inv) != ""; inv++ {
		cx, ok := found[inv]
		if !ok {
			continue
		}
		if rep.Exhausted {
			cx = x.shortest(ctx, inv, cx)
		}
		if d := x.describe(cx); d.Violation.Invariant != 0 {
			rep.Counterexamples = append(rep.Counterexamples, d)
		}
	}
	if rep.Nondeterministic = x.diverged; rep.Nondeterministic != "" { // perhaps found by a search for the shortest
		rep.Exhausted = false
	}
	rep.Schedules = x.schedules
	rep.ScenarioErrors, rep.ScenarioError = x.scenarioErrors, x.scenarioError
	rep.Made, rep.Decided, rep.Retired, rep.FirstError = x.made, x.decided, x.retired, x.firstErr
	rep.Elapsed = time.Since(start)
	return rep
}

// explorer is one Check: the scenario, the bounds and the states seen.
type explorer struct {
	scenario       Scenario
	bounds         Bounds
	opts           Options
	start          time.Time
	seen           map[uint64][]budget
	maxStates      int  // the most states seen holds
	statesFull     bool // a state was not remembered: seen was full
	schedules      int
	pruned         int
	truncated      int
	phase          string
	lastTick       time.Time
	found          int
	scenarioErrors int
	scenarioError  string
	diverged       string // the words of the first nondeterminism found
	made           int    // runs in which a session was made (Report.Made)
	decided        int    // runs in which a session was decided RUN
	retired        int    // runs in which a RUN session retired
	firstErr       string // the first error of making a session, with its replay
	pair           Pair   // the programs, whose digest the replay strings carry
	target         int    // the invariant a search for the shortest counterexample seeks; 0: any
	onFabric       func(*devices.Fabric)
}

// budget is what is left of the bounds at a state: a state reached again
// with no more of any of them left than before is not explored again.
type budget struct{ steps, preemptions, faults, length int }

func (b budget) within(o budget) bool {
	return b.steps <= o.steps && b.preemptions <= o.preemptions && b.faults <= o.faults && b.length <= o.length
}

// found is a violating run: its choices up to the violation and its length.
type found struct {
	invariant int
	values    []int
	length    int
	points    []point // how the run met its choices, which the run that describes it must meet again
	message   string  // the violation's message in that run
}

// search explores depth first and returns the shortest violating run found
// for each invariant; with target set, it stops at the first run that
// breaks that invariant.
func (x *explorer) search(ctx context.Context, target int) map[int]found {
	out := map[int]found{}
	x.target = target
	var prefix []point
	for ctx.Err() == nil {
		r := x.execute(ctx, prefix, false)
		x.schedules++
		if ctx.Err() != nil {
			break // a run the stop cut short: what it found may be of the cut
		}
		if r.diverged != nil {
			x.diverged = r.diverged.words(x.replayString(r.diverged.prefix))
			break
		}
		if r.violationLen >= 0 && (x.bounds.Length == 0 || r.violationLen <= x.bounds.Length) {
			for _, inv := range r.broken {
				if f, ok := out[inv]; (!ok || r.violationLen < f.length) && (target == 0 || inv == target) {
					out[inv] = found{invariant: inv, values: r.values(), length: r.violationLen, points: slices.Clone(r.points[:len(r.values())]), message: messageOf(r.violations, inv)}
				}
			}
		}
		x.count(r)
		if r.failed != "" {
			x.scenarioErrors++
			if x.scenarioError == "" {
				x.scenarioError = r.failed + " (replay " + x.replayString(r.values()) + ")"
			}
		}
		x.found = len(out)
		x.tick()
		if _, ok := out[target]; ok && target != 0 {
			break
		}
		if prefix = r.backtrack(); prefix == nil {
			break
		}
	}
	return out
}

// count adds how far run r's sessions came to the search's figures; only
// the main search's runs count.
func (x *explorer) count(r *run) {
	if x.target != 0 {
		return
	}
	made, decided, retired := r.reach()
	for _, c := range [...]struct {
		ok bool
		n  *int
	}{{made, &x.made}, {decided, &x.decided}, {retired, &x.retired}} {
		if c.ok {
			*c.n++
		}
	}
	if r.firstErr != "" && x.firstErr == "" {
		x.firstErr = r.firstErr + " (replay " + x.replayString(r.values()) + ")"
	}
}

// messageOf is the message of the violation of inv among vs ("" if none).
func messageOf(vs []oracle.Violation, inv int) string {
	for _, v := range vs {
		if v.Invariant == inv {
			return v.Message
		}
	}
	return ""
}

// shortest finds a shortest run that breaks invariant inv, by searching
// with the length bounded to 1, 2, ... up to the length of cx.
func (x *explorer) shortest(ctx context.Context, inv int, cx found) found {
	outer := x.bounds
	defer func() { x.bounds = outer }()
	for l := 1; l < cx.length && ctx.Err() == nil && x.diverged == ""; l++ {
		x.bounds.Length = l
		x.seen = map[uint64][]budget{}
		x.phase = fmt.Sprintf("shortest for invariant %d, length %d", inv, l)
		if f, ok := x.search(ctx, inv)[inv]; ok {
			return f
		}
	}
	return cx
}

// tick reports progress when it is due.
func (x *explorer) tick() {
	if x.opts.Progress == nil {
		return
	}
	every := x.opts.ProgressEvery
	if every <= 0 {
		every = 200 * time.Millisecond
	}
	now := time.Now()
	if now.Sub(x.lastTick) < every {
		return
	}
	x.lastTick = now
	phase := x.phase
	if phase == "" {
		phase = "exploring"
	}
	x.opts.Progress(Progress{Schedules: x.schedules, States: len(x.seen), Violations: x.found, Elapsed: now.Sub(x.start), Phase: phase})
}

// execute runs the scenario once on a fresh fabric, under ctx, replaying
// prefix and then taking each choice's first alternative; describe records
// every operation and choice in words.
func (x *explorer) execute(ctx context.Context, prefix []point, describe bool) *run {
	r := &run{x: x, prefix: prefix, describe: describe, violationLen: -1, badChoice: -1}
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1, Chooser: r, EventCapacity: 1 << 14})
	if err != nil {
		panic("check: making a simulated fabric failed: " + err.Error()) // the configuration is fixed and valid
	}
	if x.onFabric != nil {
		x.onFabric(f)
	}
	r.hist = program.NewStateHash()
	cancel := f.Events().Subscribe(r.observe)
	o := oracle.New(f)
	o.Liveness(LongEnough)
	r.host = &Host{run: r, ctx: ctx, fabric: f, oracle: o, bounds: x.bounds}
	x.scenario(r.host)
	r.expectEnd()
	r.checkViolation(false)
	r.violations = o.Violations()
	if r.pruned && r.violationLen < 0 && r.diverged == nil {
		x.pruned++
	}
	if r.truncated {
		x.truncated++
	}
	cancel()
	o.Stop()
	f.Close()
	return r
}
