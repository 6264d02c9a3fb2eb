// Package trial runs randomized trials of the resident-session protocol: a
// fabric per trial (a fresh one, or its worker's World renewed, which is
// the same trial event for event), random faults at random sites, and a
// few exchange sessions driven by random host operations, checked by the
// engine's invariant oracle and by the contract checks the oracle does not
// make. In
// simulated time a trial is a function of its seed, so a failing one is
// replayed alone. It is a client of package engine, using only its exported
// API: the built-in campaign's trial (package campaign), resident.trial in
// Lua, the engine's campaign tests and the benchmarks run it.
package trial

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// Config says how to run one randomized trial: a fabric (simulated unless
// Mode says otherwise) made with Seed, an oracle.Oracle attached to it,
// random fault chains at random sites, and a few resident sessions of a
// pair of programs (Pair) driven by random host operations in a random
// interleaving. The zero value of every field but Seed means its default.
type Config struct {
	// Seed drives the fabric (its scheduler and fault plane) and every host
	// choice of the trial; in simulated time the same seed replays the same
	// trial event for event. Zero is taken as 1.
	Seed uint64
	// Sessions is how many sessions the trial opens, one after another, with
	// at most two open at once. Default 3.
	Sessions int
	// Pair is the programs the sessions run and the arguments each draws.
	// Default the built-in exchange with its default arguments (Exchange).
	Pair Pair
	// MaxFaults is the most fault sites armed; each trial arms from 0 to
	// MaxFaults distinct sites. Default 3; negative arms none.
	MaxFaults int
	// Mode is the executor: Simulated (the default) replays a seed event for
	// event; RealTime runs the devices on their own threads, so the same
	// seed arms the same faults but the interleaving, and so the events and
	// the host operations that depend on them, differ from run to run. In
	// real time every wait, close and pause is capped at RealTimeCap, to
	// keep hung trials short.
	Mode devices.Mode
	// OnFabric, when set, is called with the trial's fabric before anything
	// happens on it (to subscribe a trace recorder, say).
	OnFabric func(*devices.Fabric)
	// NoOps leaves Result.Ops, and each Session's Args, empty: the host
	// operations are made, and their errors counted, as ever, but their
	// lines are not kept. A campaign that reads only how trials ended sets
	// it; the lines were most of what a trial allocated.
	NoOps bool
}

// Pair is a pair of programs as a trial's sessions run it: each session
// draws its arguments from the trial's generator, so that a trial stays a
// function of its seed. The built-in exchange (Exchange) is one pair.
type Pair interface {
	// Draw draws one session's arguments with rng and returns the
	// programs prepared for them, with words (a buffer the trial reuses)
	// and the arguments in words appended, as the trial's operations name
	// the session's ("2 rounds, 1 credit, 64-byte slots on aql").
	Draw(rng *rand.Rand, words []byte) (engine.Programs, []byte)
	// Need is how long a fault-free session of the pair may take to
	// retire on the published timing, at most, with room for jitter and
	// stalls: when it is a tenth of engine.DefaultCloseTimeout or less,
	// the oracle requires a wait of that timeout to see such a session
	// retire (oracle.Oracle.Liveness). A pair that cannot bound it returns
	// more, and no liveness is required.
	Need() time.Duration
}

// Exchange is the built-in exchange as a trial's pair: each session draws
// from 1 to Rounds rounds, from 1 to Credits credits, a multiple of 8 from
// 8 to SlotBytes bytes a slot, and the AQL or the PM4 queue. The zero value
// of each of those fields means its default: 8 rounds, 4 credits, 256
// bytes.
type Exchange struct {
	Rounds, Credits, SlotBytes int
	// Programs, when set, prepares each session's programs for the
	// exchange shape drawn: a harness that runs another text of the
	// exchange (its Lua programs, say) sets it. Nil is exchange.Programs.
	Programs func(exchange.Config) engine.Programs
}

// most is the largest shape x draws from.
func (x Exchange) most() (rounds, credits, slotBytes int) {
	rounds, credits, slotBytes = x.Rounds, x.Credits, x.SlotBytes
	if rounds <= 0 {
		rounds = 8
	}
	if credits <= 0 {
		credits = 4
	}
	if slotBytes < 8 {
		slotBytes = 256
	}
	return min(rounds, exchange.MaxRounds), min(credits, exchange.MaxCredits), min(slotBytes, exchange.MaxSlotBytes)
}

// Draw draws an exchange shape (Pair).
func (x Exchange) Draw(rng *rand.Rand, words []byte) (engine.Programs, []byte) {
	rounds, credits, slotBytes := x.most()
	c := exchange.Config{
		Rounds:    1 + rng.IntN(rounds),
		Credits:   1 + rng.IntN(credits),
		SlotBytes: 8 * (1 + rng.IntN(slotBytes/8)),
		GPUQueue:  devices.AQL,
	}
	if rng.Float64() < 0.5 {
		c.GPUQueue = devices.PM4
	}
	words = appendCount(words, c.Rounds, "round")
	words = append(words, ", "...)
	words = appendCount(words, c.Credits, "credit")
	words = append(words, ", "...)
	words = strconv.AppendInt(words, int64(c.SlotBytes), 10)
	words = append(words, "-byte slots on "...)
	words = append(words, c.GPUQueue.String()...)
	if x.Programs != nil {
		return x.Programs(c), words
	}
	return exchange.Programs(c), words
}

// Need is the time the largest exchange x draws needs (Pair): per round, a
// DMA of every line of a slot and two more, ten times over (room for the
// other two lines a round's NPU pays for and for the published jitter and
// stalls).
func (x Exchange) Need() time.Duration {
	rounds, _, slotBytes := x.most()
	lines := (slotBytes + 63) / 64
	return time.Duration(rounds) * time.Duration(lines+2) * 10 * timing.Published().NPUDMALine
}

// appendCount appends "1 noun" or "n nouns".
func appendCount(b []byte, n int, noun string) []byte {
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = append(b, noun...)
	if n != 1 {
		b = append(b, 's')
	}
	return b
}

// defaultPair is Config.Pair when it is nil.
var defaultPair Pair = Exchange{}

// RealTimeCap bounds every timeout and pause of a real-time trial.
const RealTimeCap = 2 * time.Millisecond

func (c Config) withDefaults() Config {
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Sessions <= 0 {
		c.Sessions = 3
	}
	if c.Pair == nil {
		c.Pair = defaultPair
	}
	if c.Mode == 0 {
		c.Mode = devices.Simulated
	}
	if c.MaxFaults == 0 {
		c.MaxFaults = 3
	}
	c.MaxFaults = min(c.MaxFaults, len(Sites()))
	return c
}

// livenessWait is how long a Wait must be for the oracle to require that
// it see a fault-free session retire (oracle.Oracle.Liveness): the longest
// timeout trials draw, engine.DefaultCloseTimeout, when the pair's
// sessions need a tenth of it at most (Pair.Need); 0, not checked, for
// pairs that need more.
func (c Config) livenessWait() time.Duration {
	if c.Pair.Need() > engine.DefaultCloseTimeout/10 {
		return 0
	}
	return engine.DefaultCloseTimeout
}

// Run runs one randomized trial and reports what happened. It makes a
// fabric (simulated unless cfg.Mode says otherwise) with cfg.Seed, attaches
// an oracle.Oracle, arms random fault chains at random sites (drawn, like
// every other choice, from a PCG generator seeded with cfg.Seed), draws a
// tight memory budget one time in four, and opens cfg.Sessions exchange
// sessions of random shapes on the default GPU and NPU. Each session gets a
// random plan of host operations (submit the GPU and the NPU in a random
// order, sometimes one of them not at all or twice, Start or Abort or
// neither, Waits and IsComplete with random timeouts, sometimes a device
// reset or letting time pass, then Close with a random timeout); the plans
// of up to two open sessions are interleaved at random. The oracle checks
// liveness too (oracle.Oracle.Liveness): a Wait or close of 10 s must see
// a fault-free session retire, for exchanges no larger than a tenth of
// that needs. At the end it resets every device, checks that every session
// ended retired or quarantined, that nothing is left charged, quarantined
// or occupied, and runs oracle.Oracle.CheckSettled.
func Run(cfg Config) Result {
	w := NewWorld()
	defer w.Close()
	var res Result
	w.Run(cfg, &res)
	return res
}

// A World is what one worker of trials reuses from one trial to the next:
// a fabric (its devices, fault plane and event ring), the oracle that
// watches it, and the trial's own storage (its generator, the lines of its
// host operations, its plans). Each trial renews it from the trial's seed
// in one step (the fabric's renewal, whose generation is the world's one:
// whatever an earlier trial made on it, and any handle it gave out, is
// refused from then on; then the oracle's, as the fabric's subscriber),
// so that a trial on a renewed world is the trial on a new one, event for
// event. A World runs one trial at a time; a campaign has one per worker.
type World struct {
	fabric *devices.Fabric // nil until the first trial made it
	oracle *oracle.Oracle  // watches fabric
	trial  trial
}

// NewWorld makes a world; its first trial makes its fabric.
func NewWorld() *World {
	w := &World{}
	t := &w.trial
	t.world, t.accepted = w, map[uint64][2]bool{}
	t.words = make([]byte, 0, 64) // a session's arguments in words: one allocation, not one per growth
	t.rng = rand.New(&t.pcg)
	t.counter = t.count
	return w
}

// Run runs one randomized trial of cfg, as the package's Run does, on w
// renewed for it, with the result written into res, whose maps and slices
// it clears and reuses instead of making new ones: a caller that reads each
// result before running the next trial into the same res (a campaign's
// worker) allocates little more than the trial's sessions. Everything res
// held before is overwritten or cleared.
func (w *World) Run(cfg Config, res *Result) {
	t := &w.trial
	t.start(cfg.withDefaults(), res)
	t.run()
	t.finish()
}

// Close lets the world's fabric go; a later Run makes a new one.
func (w *World) Close() {
	if w.fabric != nil {
		w.oracle.Stop()
		w.fabric.Close()
		w.fabric, w.oracle = nil, nil
	}
}

// renew readies the world's fabric, made from cfg, and its oracle for a
// trial: the first trial makes both; every later one renews the fabric
// (devices.Fabric.Renew), then the oracle (oracle.Oracle.Renew).
func (w *World) renew(cfg devices.Config) (*devices.Fabric, *oracle.Oracle, error) {
	if w.fabric == nil {
		f, err := devices.NewFabric(cfg)
		if err != nil {
			return nil, nil, err
		}
		w.fabric, w.oracle = f, oracle.New(f)
		return f, w.oracle, nil
	}
	if err := w.fabric.Renew(cfg); err != nil {
		return nil, nil, err
	}
	if err := w.oracle.Renew(); err != nil {
		return nil, nil, err
	}
	return w.fabric, w.oracle, nil
}

// trial is the state of one trial. What it holds besides the Result (the
// generator, the text of the host operations, the plans) is its world's,
// which the next trial reuses, so that a campaign's trials allocate little
// more than their results.
type trial struct {
	cfg      Config
	world    *World
	pcg      rand.PCG
	rng      *rand.Rand      // draws from pcg
	f        *devices.Fabric // the trial's fabric: the world's, or a new one OnFabric sees
	oracle   *oracle.Oracle  // the trial's oracle: the world's, or a new one on a fabric OnFabric sees
	res      *Result         // written in place: the caller's
	gpu, npu *devices.Device
	accepted map[uint64][2]bool // participants accepted, by session
	text     []byte             // the host operations' lines, one after another
	ends     []int              // where each line of text ends
	open     []*sessionPlan     // the sessions open
	closed   []*sessionPlan     // plans of closed sessions, reused for the next ones
	term     []byte             // a fault chain being drawn
	words    []byte             // a session's arguments in words, being drawn
	sites    []fault.Site       // the sites armFaults shuffles
	counter  func(*event.Event) // count, bound once
	devs     []*devices.Device  // the fabric's devices
}

// start readies t for a trial of cfg, into res.
func (t *trial) start(cfg Config, res *Result) {
	t.cfg = cfg
	t.pcg.Seed(cfg.Seed, 0x7419a1c0ffee)
	res.reset(cfg.Seed)
	t.res = res
	clear(t.accepted)
	t.text, t.ends = t.text[:0], t.ends[:0]
}

// finish gives the result its Ops, cut from one string (unless NoOps), and
// lets go of what the next trial must not see.
func (t *trial) finish() {
	if len(t.ends) > 0 && !t.cfg.NoOps {
		text := string(t.text)
		ops := t.res.Ops[:0]
		if cap(ops) < len(t.ends) {
			ops = make([]string, 0, len(t.ends))
		}
		from := 0
		for _, end := range t.ends {
			ops, from = append(ops, text[from:end]), end
		}
		t.res.Ops = ops
	}
	t.res, t.f, t.oracle, t.gpu, t.npu, t.devs = nil, nil, nil, nil, nil, nil
	for _, p := range t.open {
		t.keepPlan(p)
	}
	t.open = t.open[:0]
}

// hostOp is one host operation of a session's plan.
type hostOp struct {
	kind opKind
	d    time.Duration // timeout of Wait and Close; time to pass for Advance
	dev  int           // device to reset: 0 GPU, 1 NPU
}

type opKind uint8

const (
	opSubmitGPU opKind = iota
	opSubmitNPU
	opStart
	opAbort
	opWait
	opIsComplete
	opAdvance
	opReset
	opClose
)

// sessionPlan is a session and the host operations left to make on it.
type sessionPlan struct {
	index int // in res.Sessions
	s     *engine.Session
	ops   []hostOp // what is left of drawn
	drawn []hostOp // every operation drawn, kept for the plan's next session
	// submitted counts accepted submits by participant, to check that a
	// second submit is Busy.
	submitted [2]bool
}

// timeouts are the timeouts waits and closes draw from.
var timeouts = []time.Duration{0, time.Microsecond, 20 * time.Microsecond, 200 * time.Microsecond, time.Millisecond, 100 * time.Millisecond, engine.DefaultCloseTimeout}

func (t *trial) timeout() time.Duration {
	d := timeouts[t.rng.IntN(len(timeouts))]
	if t.cfg.Mode == devices.RealTime {
		d = min(d, RealTimeCap)
	}
	return d
}

func (t *trial) chance(p float64) bool { return t.rng.Float64() < p }

func (t *trial) problem(format string, args ...any) {
	t.res.Problems = append(t.res.Problems, fmt.Sprintf(format, args...))
}

// The host operations' lines are written straight into t.text, without
// fmt, as fmt.Sprintf("%10v "+format, t.f.Now(), args...) would write
// them: begin writes the time, the put methods what follows, end closes
// the line.

// begin starts a line with the fabric's time, right-aligned in ten
// characters (runes, as fmt counts them: "µs" is one wide).
func (t *trial) begin() {
	now := t.f.Now().String()
	for range 10 - utf8.RuneCountInString(now) {
		t.text = append(t.text, ' ')
	}
	t.text = append(t.text, now...)
	t.text = append(t.text, ' ')
}

// end closes the line begun last.
func (t *trial) end() { t.ends = append(t.ends, len(t.text)) }

// logLine writes a whole line of the given parts.
func (t *trial) logLine(parts ...string) {
	t.begin()
	for _, p := range parts {
		t.put(p)
	}
	t.end()
}

// logSession writes a line about session id: "s<id>", then the parts.
func (t *trial) logSession(id uint64, parts ...string) {
	t.begin()
	t.putSession(id)
	for _, p := range parts {
		t.put(p)
	}
	t.end()
}

// logCall writes the line of a host call on session id: "s<id> <call>: ",
// then the value the call returned when it returns one, then what err
// says ("ok" when nil).
func (t *trial) logCall(id uint64, call string, err error, value ...bool) {
	t.begin()
	t.putSession(id)
	t.put(" ")
	t.put(call)
	t.put(": ")
	for _, v := range value {
		t.putBool(v)
		t.put(" ")
	}
	t.putResult(err)
	t.end()
}

func (t *trial) put(s string) { t.text = append(t.text, s...) }

func (t *trial) putBool(b bool) { t.text = strconv.AppendBool(t.text, b) }

// putSession writes a session's name, "s" and its id.
func (t *trial) putSession(id uint64) {
	t.text = append(t.text, 's')
	t.text = strconv.AppendUint(t.text, id, 10)
}

// putResult writes what an operation returned ("ok" or the error's text)
// and counts its error's kind.
func (t *trial) putResult(err error) {
	if err == nil {
		t.put("ok")
		return
	}
	if e, ok := err.(*failure.Error); ok { // As without its allocation, and Error() without its concatenation
		t.res.ErrorKinds[e.Kind.String()]++
		t.put(e.Kind.String())
		t.put(": ")
		t.put(e.Message)
		return
	}
	kind := "other"
	var de *failure.Error
	if errors.As(err, &de) {
		kind = de.Kind.String()
	}
	t.res.ErrorKinds[kind]++
	t.put(err.Error())
}

// ringSize is how many events a trial's fabric keeps: enough for the
// oracle's reports of a trial's sessions.
const ringSize = 256

// fabric makes the trial's fabric from cfg and the oracle that watches it:
// the world's, renewed (World.renew), unless the trial's OnFabric hook sees
// the fabric: then a new one, which the hook may keep, and a new oracle,
// subscribed after the hook.
func (t *trial) fabric(cfg devices.Config) (*devices.Fabric, *oracle.Oracle, error) {
	if t.cfg.OnFabric == nil {
		return t.world.renew(cfg)
	}
	f, err := devices.NewFabric(cfg)
	if err != nil {
		return nil, nil, err
	}
	t.cfg.OnFabric(f)
	return f, oracle.New(f), nil
}

func (t *trial) run() {
	budget := int64(0) // the default
	if t.chance(0.25) {
		budget = int64(1024 + 64*t.rng.IntN(64)) // tight: overlapping sessions run out
	}
	tm := timing.Ideal()
	if t.chance(0.5) {
		tm = timing.Published()
	}
	f, o, err := t.fabric(devices.Config{Mode: t.cfg.Mode, Seed: t.cfg.Seed, Timing: tm, Budget: budget, EventCapacity: ringSize})
	if err != nil {
		t.problem("making the fabric: %v", err)
		return
	}
	t.f, t.oracle = f, o
	defer f.Close() // the world's fabric is renewed by the next trial
	defer o.Stop()
	t.gpu, t.npu = f.First(devices.GPU), f.First(devices.NPU)
	t.devs = f.Devices()
	o.Liveness(t.cfg.livenessWait())
	cancel := f.Events().Subscribe(t.counter)
	defer cancel()

	t.armFaults()

	opened := 0
	for opened < t.cfg.Sessions || len(t.open) > 0 {
		if opened < t.cfg.Sessions && (len(t.open) == 0 || (len(t.open) < 2 && t.chance(0.3))) {
			if len(t.open) == 0 && opened > 0 && t.chance(0.3) {
				t.resetDevices()
			}
			opened++
			if p := t.openSession(); p != nil {
				t.open = append(t.open, p)
			}
			continue
		}
		i := t.rng.IntN(len(t.open))
		p := t.open[i]
		t.step(p)
		if len(p.ops) == 0 {
			t.open = slices.Delete(t.open, i, i+1)
			t.keepPlan(p)
		}
	}

	t.resetDevices()
	t.settle()
}

// count notes faults and protocol paths as events go by.
func (t *trial) count(e *event.Event) {
	switch e.Kind {
	case event.EvFault:
		t.res.Fired[e.Detail]++
	case oracle.EvSubmit:
		acc := t.accepted[e.Session]
		if e.B == 0 {
			acc[e.A] = true
		} else if acc[1-e.A] {
			t.res.Paths["reject after peer accepted"]++
		}
		t.accepted[e.Session] = acc
	case oracle.EvPoison:
		t.res.Paths["poisoned"]++
	case oracle.EvCheck:
		if e.B == 0 {
			t.res.Paths["check passed"]++
		} else {
			t.res.Paths["check failed"]++
		}
	case event.EvQuarantineEnd:
		t.res.Paths["quarantine released"]++
	}
}

// Sites lists the sites a trial arms faults at, in the order of their
// numbers: the runtime's generic sites and the built-in exchange's own.
func Sites() []fault.Site {
	sites := append(fault.Sites(), exchange.Sites()...)
	slices.Sort(sites)
	return sites
}

// armable is Sites, listed once: armFaults shuffles a copy of it.
var armable = Sites()

// armFaults sets random chains at random distinct sites.
func (t *trial) armFaults() {
	t.sites = append(t.sites[:0], armable...)
	sites := t.sites
	t.rng.Shuffle(len(sites), func(i, j int) { sites[i], sites[j] = sites[j], sites[i] })
	n := 0
	if t.cfg.MaxFaults > 0 {
		n = t.rng.IntN(t.cfg.MaxFaults + 1)
	}
	for _, site := range sites[:n] {
		armed := t.faultTerm(site) // "site=chain"
		term := armed[len(site.String())+1:]
		if err := t.f.Faults().Set(site, term); err != nil {
			t.problem("arming %s=%s: %v", site, term, err)
			continue
		}
		t.res.Faults = append(t.res.Faults, armed)
	}
}

// termPrefixes are what faultTerm puts before an action.
var termPrefixes = [...]string{"", "50%", "20%", "1*", "2*", "30%1*", "1*off->1*", "2*off->", "3*off->40%"}

// faultTerm draws a chain for site: one of its actions, with a probability,
// a count, or an `off` term before it. It returns "site=chain".
func (t *trial) faultTerm(site fault.Site) string {
	actions := site.Actions()
	a := actions[t.rng.IntN(len(actions))]
	action := append(t.term[:0], a.String()...)
	switch a {
	case fault.Delay:
		action = append(action, '(')
		action = strconv.AppendInt(action, int64(1+t.rng.IntN(100)), 10)
		action = append(action, "us)"...)
	case fault.Error, fault.Crash:
		if t.chance(0.5) {
			action = append(action, "(trial)"...)
		}
	}
	t.term = action
	return site.String() + "=" + termPrefixes[t.rng.IntN(len(termPrefixes))] + string(action)
}

// openSession makes a session of the pair with arguments it draws, and
// draws its plan.
func (t *trial) openSession() *sessionPlan {
	var programs engine.Programs
	programs, t.words = t.cfg.Pair.Draw(t.rng, t.words[:0])
	s, err := engine.Open(t.gpu, t.npu, programs)
	var ts Session
	if !t.cfg.NoOps {
		ts.Args = string(t.words)
	}
	if cap(t.res.Sessions) == 0 {
		t.res.Sessions = make([]Session, 0, t.cfg.Sessions) // one allocation for all of them
	}
	if err != nil {
		ts.Err = err.Error()
		t.res.Sessions = append(t.res.Sessions, ts)
		t.begin()
		t.put("new session ")
		t.text = append(t.text, t.words...)
		t.put(": ")
		t.putResult(err)
		t.end()
		return nil
	}
	ts.ID = s.ID()
	t.res.Sessions = append(t.res.Sessions, ts)
	t.begin()
	t.putSession(s.ID())
	t.put(" new: ")
	t.text = append(t.text, t.words...)
	t.end()
	var p *sessionPlan
	if n := len(t.closed); n > 0 {
		p, t.closed = t.closed[n-1], t.closed[:n-1]
	} else {
		p = &sessionPlan{}
	}
	p.index, p.s, p.submitted = len(t.res.Sessions)-1, s, [2]bool{}
	p.drawn = t.plan(p.drawn[:0])
	p.ops = p.drawn
	return p
}

// keepPlan keeps a closed session's plan, in the world's storage, for a
// later session.
func (t *trial) keepPlan(p *sessionPlan) {
	p.s, p.ops = nil, nil
	t.closed = append(t.closed, p)
}

// plan draws the host operations of one session, appending them to ops.
func (t *trial) plan(ops []hostOp) []hostOp {
	submits := [2]hostOp{{kind: opSubmitGPU}, {kind: opSubmitNPU}}
	t.rng.Shuffle(2, func(i, j int) { submits[i], submits[j] = submits[j], submits[i] })
	for _, s := range submits {
		if t.chance(0.9) {
			ops = append(ops, s)
		}
		if t.chance(0.05) {
			ops = append(ops, s) // a second submit must be Busy
		}
	}
	if t.chance(0.1) {
		// Start or Wait too early, somewhere among the submits.
		early := hostOp{kind: opStart}
		if t.chance(0.5) {
			early = hostOp{kind: opWait, d: t.timeout()}
		}
		ops = slices.Insert(ops, t.rng.IntN(len(ops)+1), early)
	}
	if t.chance(0.2) {
		ops = append(ops, hostOp{kind: opAdvance, d: t.timeout() / 10})
	}
	switch r := t.rng.Float64(); {
	case r < 0.7:
		ops = append(ops, hostOp{kind: opStart})
	case r < 0.9:
		ops = append(ops, hostOp{kind: opAbort})
	}
	for range t.rng.IntN(4) {
		switch r := t.rng.Float64(); {
		case r < 0.6:
			ops = append(ops, hostOp{kind: opWait, d: t.timeout()})
		case r < 0.75:
			ops = append(ops, hostOp{kind: opIsComplete})
		case r < 0.9:
			ops = append(ops, hostOp{kind: opAdvance, d: t.timeout() / 10})
		default:
			ops = append(ops, hostOp{kind: opAbort}) // after a decision: Busy
		}
	}
	if t.chance(0.05) {
		ops = slices.Insert(ops, t.rng.IntN(len(ops)+1), hostOp{kind: opReset, dev: t.rng.IntN(2)})
	}
	return append(ops, hostOp{kind: opClose, d: t.timeout()})
}

// step makes the next operation of p.
func (t *trial) step(p *sessionPlan) {
	op := p.ops[0]
	p.ops = p.ops[1:]
	s := p.s
	id := s.ID()
	switch op.kind {
	case opSubmitGPU, opSubmitNPU:
		who, name, submit := oracle.ParticipantGPU, "submit_gpu", s.SubmitGPU
		if op.kind == opSubmitNPU {
			who, name, submit = oracle.ParticipantNPU, "submit_npu", s.SubmitNPU
		}
		again := p.submitted[who]
		err := submit()
		t.logCall(id, name, err)
		if err == nil {
			p.submitted[who] = true
		}
		if again && !errors.Is(err, failure.Busy) {
			t.problem("session %d: a second %s returned %v, want Busy", id, name, err)
		}
	case opStart:
		both := p.submitted[0] && p.submitted[1]
		err := s.Start()
		t.logCall(id, "start", err)
		if err == nil && !both {
			t.problem("session %d: Start succeeded with GPU accepted=%v and NPU accepted=%v", id, p.submitted[0], p.submitted[1])
		}
	case opAbort:
		t.logCall(id, "abort", s.Abort())
	case opWait:
		undecided := s.Decision() == 0
		ok, err := s.Wait(op.d)
		t.logCall(id, "wait("+op.d.String()+")", err, ok)
		if undecided && !errors.Is(err, failure.Busy) {
			t.problem("session %d: Wait before a decision returned %v, %v; want Busy", id, ok, err)
		}
	case opIsComplete:
		done, err := s.IsComplete()
		t.logCall(id, "is_complete", err, done)
	case opAdvance:
		t.f.Advance(op.d)
		t.logLine("advance ", op.d.String())
	case opReset:
		d := t.gpu
		if op.dev == 1 {
			d = t.npu
		}
		d.Reset()
		t.logLine("reset ", d.Name())
	case opClose:
		t.close(p, op.d)
	}
}

// close closes p's session and checks how it ended.
func (t *trial) close(p *sessionPlan, timeout time.Duration) {
	s := p.s
	out := s.CloseWithin(context.Background(), timeout)
	t.logSession(s.ID(), " close(", timeout.String(), "): ", out.String())
	ts := &t.res.Sessions[p.index]
	ts.Outcome, ts.Decision = out, s.Decision()
	problem, checked := s.Checked()
	ts.Verified = checked && problem == nil
	if out == engine.Retired && ts.Decision == oracle.StartupRun && !checked {
		t.problem("session %d retired after RUN but its programs were never checked", s.ID())
	}
	switch out {
	case engine.Retired:
		if st := s.State(); st != engine.StateClosed {
			t.problem("session %d closed retired but its state is %s", s.ID(), st)
		}
	case engine.Quarantined:
		if st := s.State(); st != engine.StateQuarantined {
			t.problem("session %d closed quarantined but its state is %s", s.ID(), st)
		}
		if !t.f.Quarantining(s.ID()) {
			t.problem("session %d closed quarantined but the fabric lists no quarantine for it", s.ID())
		}
	default:
		t.problem("session %d: Close returned %s, want retired or quarantined", s.ID(), out)
	}
}

// resetDevices resets every device, which releases every quarantine.
func (t *trial) resetDevices() {
	for _, d := range t.devs {
		d.Reset()
	}
	t.logLine("reset every device")
}

// settle checks that the trial left nothing behind.
func (t *trial) settle() {
	r := t.res
	r.Settled = true
	for _, s := range r.Sessions {
		if s.ID != 0 && s.Outcome != engine.Retired && s.Outcome != engine.Quarantined {
			r.Settled = false
			t.problem("session %d was not closed", s.ID)
		}
	}
	if qs := t.f.Quarantines(); len(qs) > 0 {
		r.Settled = false
		t.problem("%d quarantines remain after every device was reset", len(qs))
	}
	for _, d := range t.devs {
		if d.Occupied() {
			r.Settled = false
			t.problem("%s is occupied after it was reset", d.Name())
		}
	}
	r.Budget = t.f.Budget().State()
	if r.Budget.Charged != 0 || r.Budget.Quarantined != 0 {
		r.Settled = false
		t.problem("after every session closed and every device was reset, %d bytes are charged (%d quarantined)", r.Budget.Charged, r.Budget.Quarantined)
	}
	_ = t.oracle.CheckSettled()
	r.Violations = t.oracle.Violations()
	r.Events, r.Digest, r.Elapsed = t.f.Events().Count(), t.f.Events().Digest(), t.f.Now()
}
