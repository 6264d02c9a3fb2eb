package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/programs/exchange"
)

// builtinFaults are the faults the built-in scenario arms, one per run at
// most: each site with each action that makes sense there. Each is armed
// as "50%1*action": it fires at most once, at whichever hit the checker
// chooses.
var builtinFaults = []struct {
	Site fault.Site
	Term string
}{
	{fault.GPUDispatch, "error(rejected)"},
	{fault.NPUDispatch, "error(rejected)"},
	{fault.GPURun, "hang"},
	{fault.GPURun, "crash(boom)"},
	{fault.NPURun, "crash(boom)"},
	{fault.NPURun, "ignore_abort"},
	{exchange.NPUDrain, "skip"},
	{fault.GPUComplete, "error(failed)"},
	{fault.NPUComplete, "error(failed)"},
	{fault.HostPublish, "error(failed)"},
	{fault.HostPublish, "skip"},
	{exchange.PayloadCorrupt, "flip"},
	{fault.MemoryAlloc, "error(no memory)"},
}

// Exchange is the built-in exchange's arguments as the built-in scenario
// takes them: the largest exchange it makes (default 2 rounds and 2
// credits), which tries every size up to them. They are the arguments of
// one pair, the built-in exchange (Exchange.Pair), not bounds of the
// search; a scenario script reads them as c.rounds and c.credits. The
// zero value of each field means its default.
type Exchange struct{ Rounds, Credits int }

// exchangeNames are the built-in exchange's arguments (ExchangeNames).
var exchangeNames = []string{"rounds", "credits"}

// ExchangeNames lists the built-in exchange's arguments, as the command's
// flags and resident.check's fields name them: the names Exchange.Set
// takes.
func ExchangeNames() []string { return slices.Clone(exchangeNames) }

// Set sets the argument name (one of ExchangeNames) to v, as a person
// gives it: rounds from 1 to exchange.MaxRounds, credits from 1 to
// exchange.MaxCredits. The error says the range.
func (e *Exchange) Set(name string, v int) error {
	dst, hi := &e.Rounds, exchange.MaxRounds
	switch name {
	case "rounds":
	case "credits":
		dst, hi = &e.Credits, exchange.MaxCredits
	default:
		return fmt.Errorf("%s is not an argument of the built-in exchange; its arguments are %s", name, strings.Join(exchangeNames, ", "))
	}
	if v < 1 || v > hi {
		return fmt.Errorf("%s must be a whole number from 1 to %d, got %d", name, hi, v)
	}
	*dst = v
	return nil
}

func (e Exchange) withDefaults() Exchange {
	if e.Rounds <= 0 {
		e.Rounds = 2
	}
	if e.Credits <= 0 {
		e.Credits = 2
	}
	return e
}

// Words are the arguments as a pair's name gives them: "rounds <= 2,
// credits <= 2".
func (e Exchange) Words() string {
	e = e.withDefaults()
	return "rounds <= " + strconv.Itoa(e.Rounds) + ", credits <= " + strconv.Itoa(e.Credits)
}

// Pair is the built-in exchange with these arguments, as reports and
// replay strings name it (Options.Pair).
func (e Exchange) Pair() Pair {
	e = e.withDefaults()
	return Pair{Name: "the built-in exchange, " + e.Words(), Digest: PairDigest("the built-in exchange", strconv.Itoa(e.Rounds), strconv.Itoa(e.Credits))}
}

// Scenario is sc run with these arguments of the built-in exchange
// (Host.Exchange): the built-in scenario makes exchanges up to them, and a
// scenario script reads them.
func (e Exchange) Scenario(sc Scenario) Scenario {
	e = e.withDefaults()
	return func(h *Host) {
		h.exchange = e
		sc(h)
	}
}

// Builtin is the built-in scenario. The host chooses a setup (at most one
// fault of builtinFaults, when the fault bound allows one, and an exchange
// of up to the rounds and credits of Host.Exchange), makes one session, then
// chooses a plan and carries it out. A plan of one session: both
// submissions in either order, START or ABORT (or neither) before, between
// or after them, a Wait of 0 (its deadline passes at once, racing the
// devices) or of 1 s (it does not pass) or none, and a close that joins
// for 0 or for 1 s. With misuse (Bounds.Misuse), plans with one host call
// out of order too, which the protocol refuses, or a close that races a
// wait from another host thread. With two sessions or more
// (Bounds.Sessions) and an exchange of one round and one credit, plans in
// which that many sessions share the fabric's GPU and NPU: the host makes
// the others, then chooses before each operation which session's comes
// next. It ends by resetting the devices and checking that nothing is left
// charged.
func Builtin(h *Host) {
	b := h.Bounds()
	setups := builtinSetups(b, h.Exchange(), h.pairName != "")
	s := setups.at(h.ChooseLabelled("the setup", setups.n(), setups.label))
	if s.fault >= 0 {
		f := builtinFaults[s.fault]
		// The choice's words say which; arming is part of it, not an operation.
		if err := h.Fabric().Faults().Set(f.Site, "50%1*"+f.Term); err != nil {
			panic("check: a built-in fault term does not parse: " + err.Error())
		}
	}
	cfg := exchange.Default()
	cfg.Rounds, cfg.Credits = s.rounds, s.credits
	first, err := h.NewSession(cfg)
	if err != nil {
		h.ResetDevices()
		return
	}
	plans := plansFor(b, s)
	p := plans[h.ChooseLabelled("the plan", len(plans), func(i int) string { return plans[i].label })]
	sessions := []*Session{first}
	for range len(p.ops) - 1 {
		more, err := h.NewSession(cfg)
		if err != nil {
			h.ResetDevices()
			return
		}
		sessions = append(sessions, more)
	}
	p.run(h, sessions)
	h.ResetDevices()
}

// BuiltinWith is the built-in scenario with the programs that programs
// prepares for each exchange shape in place of the built-in exchange: a
// user's pair, checked under every plan, fault and interleaving the
// built-in scenario explores, shaped by the exchange's arguments
// (Host.Exchange).
func BuiltinWith(programs func(exchange.Config) engine.Programs) Scenario {
	return func(h *Host) {
		h.programs = programs
		Builtin(h)
	}
}

// BuiltinOf is the built-in scenario with a pair of one's own and its
// own arguments, prepare, in place of the built-in exchange: named name in
// the counterexamples. The exchange's arguments (Host.Exchange) are not
// this pair's, so they shape nothing here: each setup is a fault (or none),
// and the plans are those of the smallest exchange (racing closes and
// shared sessions included).
func BuiltinOf(name string, prepare engine.Programs) Scenario {
	return func(h *Host) {
		h.programs = func(exchange.Config) engine.Programs { return prepare }
		h.pairName = name
		Builtin(h)
	}
}

// setup is the built-in scenario's first choice: a fault (an index of
// builtinFaults, or -1) and the exchange's size.
type setup struct{ fault, rounds, credits int }

// setupSpace is every setup within the bounds, in the order the host's
// choice numbers them: no fault or each fault, then rounds, then credits.
// They are counted rather than listed, as there may be a billion (a
// million rounds by 64 credits by 14).
type setupSpace struct {
	faults, rounds, credits int
	fixed                   bool // a pair of one's own with its own arguments (BuiltinOf)
}

func builtinSetups(b Bounds, x Exchange, fixed bool) setupSpace {
	faults := 0
	if b.Faults > 0 {
		faults = len(builtinFaults)
	}
	if fixed {
		return setupSpace{faults: faults + 1, rounds: 1, credits: 1, fixed: true}
	}
	return setupSpace{faults: faults + 1, rounds: x.Rounds, credits: x.Credits}
}

// n is how many setups there are.
func (s setupSpace) n() int { return s.faults * s.rounds * s.credits }

// at is the i-th setup.
func (s setupSpace) at(i int) setup {
	return setup{fault: i/(s.rounds*s.credits) - 1, rounds: i/s.credits%s.rounds + 1, credits: i%s.credits + 1}
}

// label is the i-th setup in words.
func (s setupSpace) label(i int) string {
	u := s.at(i)
	f := "no fault"
	if u.fault >= 0 {
		f = "fault " + builtinFaults[u.fault].Site.String() + " 50%1*" + builtinFaults[u.fault].Term
	}
	if s.fixed {
		return f + ", the pair's own arguments"
	}
	return f + ", rounds " + strconv.Itoa(u.rounds) + ", credits " + strconv.Itoa(u.credits)
}

// planOp is one host operation of a plan.
type planOp struct {
	name string
	do   func(s *Session)
}

var (
	opSubmitGPU = planOp{"submit_gpu", func(s *Session) { _ = s.SubmitGPU() }}
	opSubmitNPU = planOp{"submit_npu", func(s *Session) { _ = s.SubmitNPU() }}
	opStart     = planOp{"start", func(s *Session) { _ = s.Start() }}
	opAbort     = planOp{"abort", func(s *Session) { _ = s.Abort() }}
)

func waitOp(d time.Duration) planOp {
	return planOp{"wait(" + d.String() + ")", func(s *Session) { _, _ = s.Wait(d) }}
}

func closeOp(d time.Duration) planOp {
	return planOp{"close(" + d.String() + ")", func(s *Session) { s.Close(d) }}
}

// racingCloseOp is a wait of 1 s that a close joining for d, in another
// host thread, races (Session.WaitRacingClose).
func racingCloseOp(d time.Duration) planOp {
	return planOp{"wait(1s) racing close(" + d.String() + ") in another thread", func(s *Session) { s.WaitRacingClose(time.Second, d) }}
}

// plan is a plan of the built-in scenario: the host operations of each of
// its sessions, in order; those of several sessions are interleaved by
// host choices as the plan runs.
type plan struct {
	label string
	ops   [][]planOp
}

// run carries the plan out on sessions, one for each of its sequences.
// While more than one session has operations left, the host chooses whose
// comes next, as the threads of a host that drives each session from one
// of its own would take turns: going on with the session that made the
// last operation comes first, and switching away from it while it has
// operations left counts as a preemption.
func (p plan) run(h *Host, sessions []*Session) {
	next := make([]int, len(p.ops))
	var open []int      // the sessions with operations left
	var labels []string // their next operations, in words
	last := 0
	for {
		open, labels = open[:0], labels[:0]
		cont := -1
		for i, ops := range p.ops {
			if next[i] < len(ops) {
				if i == last {
					cont = len(open)
				}
				open = append(open, i)
				labels = append(labels, sessions[i].Name()+":"+ops[next[i]].name)
			}
		}
		if len(open) == 0 {
			return
		}
		last = open[h.chooseSwitch("the next operation", labels, cont)]
		p.ops[last][next[last]].do(sessions[last])
		next[last]++
	}
}

// planLists are the lists of plans the host chooses from, by what the
// bounds and the setup allow. Each is the plans of one session (which so
// keep their numbers in every list), then those with misuse, then, with
// the smallest exchange, those with a racing close and those of shared
// sessions, by how many.
var planLists = makePlanLists()

// planKey says which list of plans the bounds and the setup allow.
type planKey struct {
	misuse   bool
	smallest bool // the exchange has one round and one credit
	sessions int  // that may share the devices
}

func makePlanLists() map[planKey][]plan {
	single, misuse, racing := singlePlans(), misusePlans(), racingPlans()
	lists := map[planKey][]plan{}
	for _, m := range []bool{false, true} {
		plans := slices.Clone(single)
		if m {
			plans = append(plans, misuse...)
		}
		for n := 1; n <= MaxSessions; n++ {
			lists[planKey{m, false, n}] = plans
		}
		if m {
			plans = append(slices.Clip(plans), racing...)
		}
		lists[planKey{m, true, 1}] = plans
		for n := 2; n <= MaxSessions; n++ {
			plans = append(slices.Clip(plans), sharedPlans(n)...)
			lists[planKey{m, true, n}] = plans
		}
	}
	return lists
}

// plansFor lists the plans the bounds b allow with setup s.
func plansFor(b Bounds, s setup) []plan {
	return planLists[planKey{misuse: b.Misuse > 0, smallest: s.rounds == 1 && s.credits == 1, sessions: b.Sessions}]
}

// singlePlans are the plans of one session: both submissions in either
// order, START or ABORT (or neither) before, between or after them, a wait
// of 0, of 1 s or none, and a close that joins for 0 or 1 s.
func singlePlans() []plan {
	var plans []plan
	orders := [][]planOp{{opSubmitGPU, opSubmitNPU}, {opSubmitNPU, opSubmitGPU}}
	decisions := []*planOp{nil, &opStart, &opAbort}
	waits := []*planOp{nil, ptr(waitOp(0)), ptr(waitOp(time.Second))}
	closes := []planOp{closeOp(0), closeOp(time.Second)}
	for _, order := range orders {
		for _, d := range decisions {
			for at := 0; at <= len(order); at++ {
				if d == nil && at > 0 {
					break // no decision: one plan, not one per position
				}
				for _, w := range waits {
					for _, c := range closes {
						var p []planOp
						for i, op := range order {
							if d != nil && i == at {
								p = append(p, *d)
							}
							p = append(p, op)
						}
						if d != nil && at == len(order) {
							p = append(p, *d)
						}
						if w != nil {
							p = append(p, *w)
						}
						plans = append(plans, single(append(p, c)))
					}
				}
			}
		}
	}
	return plans
}

// misusePlans are plans of one session with one host call out of order,
// which the protocol refuses (busy) and which must change nothing.
func misusePlans() []plan {
	run := []planOp{opSubmitGPU, opSubmitNPU, opStart}
	end := []planOp{waitOp(time.Second), closeOp(time.Second)}
	join := func(parts ...[]planOp) []planOp {
		var p []planOp
		for _, part := range parts {
			p = append(p, part...)
		}
		return p
	}
	return []plan{
		single(join([]planOp{opSubmitGPU, opSubmitGPU, opSubmitNPU, opStart}, end)),         // submit twice
		single(join([]planOp{opSubmitGPU, opSubmitNPU, opSubmitNPU, opStart}, end)),         // the other, twice
		single(join(run, []planOp{opStart}, end)),                                           // start twice
		single(join(run, []planOp{opAbort}, end)),                                           // abort after start
		single(join([]planOp{opSubmitGPU, waitOp(time.Second), opSubmitNPU, opStart}, end)), // wait before a decision
		single(join(run, end, []planOp{opSubmitNPU})),                                       // submit after close
	}
}

// racingPlans are plans of one session whose wait a close, from another
// host thread, races: joining for 0 or for 1 s.
func racingPlans() []plan {
	run := []planOp{opSubmitGPU, opSubmitNPU, opStart}
	return []plan{
		single(append(slices.Clip(run), racingCloseOp(0))),
		single(append(slices.Clip(run), racingCloseOp(time.Second))),
	}
}

// sharedPlans are the plans of n sessions that share the fabric's GPU and
// NPU: the first session runs one sequence and the others another, their
// operations interleaved. Each sequence submits both participants, starts,
// and closes, with or without a wait of 1 s first; one submits the NPU
// first, so that each session may have a participant accepted and its
// other refused while the other session's runs.
func sharedPlans(n int) []plan {
	life := []planOp{opSubmitGPU, opSubmitNPU, opStart, waitOp(time.Second), closeOp(time.Second)}
	quick := []planOp{opSubmitGPU, opSubmitNPU, opStart, closeOp(0)}
	npuFirst := []planOp{opSubmitNPU, opSubmitGPU, opStart, waitOp(time.Second), closeOp(time.Second)}
	var plans []plan
	for _, pair := range [][2][]planOp{{life, life}, {quick, life}, {life, npuFirst}} {
		ops := [][]planOp{pair[0]}
		for range n - 1 {
			ops = append(ops, pair[1])
		}
		plans = append(plans, plan{label: sharedLabel(ops), ops: ops})
	}
	return plans
}

// single is the plan of one session with ops.
func single(ops []planOp) plan {
	return plan{label: opNames(ops), ops: [][]planOp{ops}}
}

// opNames lists ops' names, comma-separated.
func opNames(ops []planOp) string {
	var b strings.Builder
	for i, op := range ops {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(op.name)
	}
	return b.String()
}

// sharedLabel says what each session of a shared plan does.
func sharedLabel(ops [][]planOp) string {
	var b strings.Builder
	for i, o := range ops {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString("s" + strconv.Itoa(i+1) + ": " + opNames(o))
	}
	return b.String() + " (interleaved)"
}

func ptr[T any](v T) *T { return &v }
