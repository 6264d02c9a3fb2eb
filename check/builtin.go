package check

import (
	"strconv"
	"time"

	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/engine"
)

// BuiltinFaults are the faults the built-in scenario arms, one per run at
// most: each site with each action that makes sense there. Each is armed
// as "50%1*action": it fires at most once, at whichever hit the checker
// chooses.
var BuiltinFaults = []struct {
	Site fault.Site
	Term string
}{
	{fault.GPUDispatch, "error(rejected)"},
	{fault.NPUDispatch, "error(rejected)"},
	{fault.GPURun, "hang"},
	{fault.GPURun, "crash(boom)"},
	{fault.NPURun, "crash(boom)"},
	{fault.NPURun, "ignore_abort"},
	{fault.NPUDrain, "skip"},
	{fault.GPUComplete, "error(failed)"},
	{fault.NPUComplete, "error(failed)"},
	{fault.HostPublish, "error(failed)"},
	{fault.HostPublish, "skip"},
	{fault.PayloadCorrupt, "flip"},
	{fault.MemoryAlloc, "error(no memory)"},
}

// Builtin is the built-in scenario. The host chooses a setup (at most one
// fault of BuiltinFaults, when the fault bound allows one, and an exchange
// of up to Rounds rounds and Credits credits), makes one session, then
// chooses a plan and carries it out: both submissions in either order,
// START or ABORT (or neither) before, between or after them, a Wait of 0
// (its deadline passes at once, racing the devices) or of 1 s (it does
// not pass) or none, and a close that joins for 0 or for 1 s. It ends by
// resetting the devices and checking that nothing is left charged.
func Builtin(h *Host) {
	setups := builtinSetups(h.Bounds())
	s := setups.at(h.ChooseLabelled("the setup", setups.n(), setups.label))
	if s.fault >= 0 {
		f := BuiltinFaults[s.fault]
		// The choice's words say which; arming is part of it, not an operation.
		if err := h.Fabric().Faults().Set(f.Site, "50%1*"+f.Term); err != nil {
			panic("check: a built-in fault term does not parse: " + err.Error())
		}
	}
	cfg := exchange.Default()
	cfg.Rounds, cfg.Credits = s.rounds, s.credits
	sess, err := h.NewSession(cfg)
	if err != nil {
		h.ResetDevices()
		return
	}
	p := builtinPlans[h.ChooseAmong("the plan", planLabels)]
	for _, op := range p {
		op.do(sess)
	}
	h.ResetDevices()
}

// BuiltinWith is the built-in scenario with the programs that programs
// prepares for each exchange shape in place of the built-in exchange: a
// user's pair, checked under every plan, fault and interleaving the
// built-in scenario explores.
func BuiltinWith(programs func(exchange.Config) engine.Programs) Scenario {
	return func(h *Host) {
		h.programs = programs
		Builtin(h)
	}
}

// setup is the built-in scenario's first choice: a fault (an index of
// BuiltinFaults, or -1) and the exchange's size.
type setup struct{ fault, rounds, credits int }

// setupSpace is every setup within the bounds, in the order the host's
// choice numbers them: no fault or each fault, then rounds, then credits.
// They are counted rather than listed, as there may be a billion (a
// million rounds by 64 credits by 14).
type setupSpace struct{ faults, rounds, credits int }

func builtinSetups(b Bounds) setupSpace {
	faults := 0
	if b.Faults > 0 {
		faults = len(BuiltinFaults)
	}
	return setupSpace{faults: faults + 1, rounds: b.Rounds, credits: b.Credits}
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
		f = "fault " + BuiltinFaults[u.fault].Site.String() + " 50%1*" + BuiltinFaults[u.fault].Term
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

// builtinPlans are the built-in scenario's plans, planLabels their words.
var builtinPlans, planLabels = makePlans()

func makePlans() ([][]planOp, []string) {
	var plans [][]planOp
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
						plans = append(plans, append(p, c))
					}
				}
			}
		}
	}
	labels := make([]string, len(plans))
	for i, p := range plans {
		for j, op := range p {
			if j > 0 {
				labels[i] += ", "
			}
			labels[i] += op.name
		}
	}
	return plans, labels
}

func ptr[T any](v T) *T { return &v }
