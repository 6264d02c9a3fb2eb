package check

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// Scenario is the host side of a checked scenario: it makes sessions and
// calls their verbs through h, and asks h.Choose for every host-side choice
// (the order of submissions, whether to abort, a deadline). It must be a
// function of its choices and of what its operations return, and nothing
// else (no clock, no randomness of its own), so that the checker can
// rerun it choice for choice; the checker verifies this as it goes (see
// Report.Nondeterministic).
type Scenario func(h *Host)

// Host is what a scenario drives: a fresh simulated fabric per run, whose
// every choice the checker makes, with an oracle attached. Each operation
// is recorded, for the counterexample, as a host operation.
//
// A scenario drives sessions either through Host's own verbs (NewSession
// and Session's methods), or through a layer of its own that reports each
// of its operations with Record (the Lua scenarios of package luaapi).
type Host struct {
	run      *run
	ctx      context.Context
	fabric   *devices.Fabric
	oracle   *oracle.Oracle
	sessions []*engine.Session // every session made in the run, whose state the checker hashes
	made     int               // sessions NewSession made, which names them s1, s2, ...
	bounds   Bounds
	exchange Exchange                              // the built-in exchange's arguments (Exchange.Scenario)
	programs func(exchange.Config) engine.Programs // in place of the built-in exchange (BuiltinWith, BuiltinOf)
	pairName string                                // the pair of BuiltinOf, which its sessions are named by
}

// Fabric is the run's fabric (simulated, its choices made by the checker).
func (h *Host) Fabric() *devices.Fabric { return h.fabric }

// Context is the run's context: it ends when the search is stopped
// (Ctrl-C), and a scenario's waits and loops should end with it. Runs
// that describe what a search found have a context of their own.
func (h *Host) Context() context.Context { return h.ctx }

// Bounds are the bounds of the search, for a scenario that sizes its
// choices by them (faults, sessions, misuse).
func (h *Host) Bounds() Bounds { return h.bounds }

// Exchange is the built-in exchange's arguments the scenario runs with
// (Exchange.Scenario; the defaults when it gives none), by which the
// built-in scenario sizes its exchanges.
func (h *Host) Exchange() Exchange { return h.exchange.withDefaults() }

// Choose returns a host-side choice in [0, n), which the checker varies
// from run to run; what says what is chosen, for the counterexample
// ("the order of the submissions"). n below 2 is no choice: 0.
func (h *Host) Choose(n int, what string) int {
	return h.ChooseLabelled(what, n, nil)
}

// ChooseAmong is Choose among labelled alternatives: the counterexample
// prints the label of the one taken ("submit_npu, submit_gpu, start").
func (h *Host) ChooseAmong(what string, labels []string) int {
	return h.ChooseLabelled(what, len(labels), func(i int) string { return labels[i] })
}

// ChooseLabelled is ChooseAmong for alternatives too many to list: label
// says what alternative i is, and is called only when a counterexample is
// put in words.
func (h *Host) ChooseLabelled(what string, n int, label func(int) string) int {
	if n < 2 {
		return 0
	}
	return h.run.choose(choicePoint{n: n, host: what, label: label}, -1)
}

// chooseSwitch is a host choice among labelled alternatives of which cont
// goes on as before (-1: none does): taking another one preempts, as a
// step choice that switches programs does, and counts against the
// preemption bound. The built-in scenario's switches from one session's
// operations to another's, and a close that begins during a wait, are
// such choices.
func (h *Host) chooseSwitch(what string, labels []string, cont int) int {
	if len(labels) < 2 {
		return 0
	}
	return h.run.choose(choicePoint{n: len(labels), host: what, label: func(i int) string { return labels[i] }}, cont)
}

// Record records a host operation that the scenario made through a layer
// of its own: text is the operation and its result in words ("s1:wait(0)
// = false"), and s, when not nil, the session it made or acted on, whose
// state the checker hashes from then on.
func (h *Host) Record(text string, s *engine.Session) {
	if s != nil && !slices.Contains(h.sessions, s) {
		h.sessions = append(h.sessions, s)
	}
	h.run.hostOp(text)
}

// op records a host operation of Host's own verbs and its result.
func (h *Host) op(text, result string) {
	h.run.hostOp(text + " = " + result)
}

// Arm configures a fault site with a term, as a host operation
// (fault.Plane.Set). A term with a probability below 100% ("50%1*hang")
// leaves each hit to the checker, which tries both, within the fault bound.
func (h *Host) Arm(site fault.Site, term string) error {
	err := h.fabric.Faults().Set(site, term)
	h.op("fault "+site.String()+" "+term, errWords(err))
	return err
}

// NewSession makes a resident session running the built-in exchange with
// cfg on the fabric's GPU and NPU (Open of exchange.Programs), or, in the
// built-in scenario of a pair of one's own (BuiltinWith, BuiltinOf), that
// pair shaped by cfg.
func (h *Host) NewSession(cfg exchange.Config) (*Session, error) {
	if h.pairName != "" {
		return h.Open(h.programs(cfg), h.pairName)
	}
	programs := engine.Programs(exchange.Programs(cfg))
	if h.programs != nil {
		programs = h.programs(cfg)
	}
	return h.open(programs, "session{rounds = "+strconv.Itoa(cfg.Rounds)+", credits = "+strconv.Itoa(cfg.Credits)+"}")
}

// Open makes a resident session running programs, any pair of programs,
// on the fabric's GPU and NPU (engine.Open): the counterexample says
// "s1 = session of name". Its error, when the programs could not be
// prepared (a pair's buffers declaration that failed), is the first reason
// a search that made no session gives (Report.FirstError).
func (h *Host) Open(programs engine.Programs, name string) (*Session, error) {
	return h.open(programs, "session of "+name)
}

// open makes a session of programs, recorded as made by what.
func (h *Host) open(programs engine.Programs, what string) (*Session, error) {
	s, err := engine.Open(h.fabric.First(devices.GPU), h.fabric.First(devices.NPU), programs)
	name := "s" + strconv.Itoa(h.made+1)
	h.op(name+" = "+what, errWords(err))
	if err != nil {
		h.run.noteError(name, err)
		return nil, err
	}
	h.made++
	h.sessions = append(h.sessions, s)
	return &Session{Session: s, host: h, name: name}, nil
}

// Session is an engine session whose verbs are recorded as host
// operations. Its other methods (State, IsComplete, ...) are the engine's.
type Session struct {
	*engine.Session
	host *Host
	name string
}

// Name is how the counterexample calls the session: s1, s2, ...
func (s *Session) Name() string { return s.name }

// SubmitGPU dispatches the GPU participant.
func (s *Session) SubmitGPU() error {
	err := s.Session.SubmitGPU()
	s.host.op(s.name+":submit_gpu()", errWords(err))
	return err
}

// SubmitNPU dispatches the NPU participant.
func (s *Session) SubmitNPU() error {
	err := s.Session.SubmitNPU()
	s.host.op(s.name+":submit_npu()", errWords(err))
	return err
}

// Start publishes RUN.
func (s *Session) Start() error {
	err := s.Session.Start()
	s.host.op(s.name+":start()", errWords(err))
	return err
}

// Abort publishes ABORT.
func (s *Session) Abort() error {
	err := s.Session.Abort()
	s.host.op(s.name+":abort()", errWords(err))
	return err
}

// Wait joins both participants under timeout (virtual time), or until the
// run's context ends.
func (s *Session) Wait(timeout time.Duration) (bool, error) {
	ok, err := s.Session.WaitContext(s.host.ctx, timeout)
	s.host.op(s.name+":wait("+timeout.String()+")", strconv.FormatBool(ok)+", "+errWords(err))
	return ok, err
}

// WaitRacingClose waits as Wait does while, in another host thread, a
// Close joining for closeTimeout may begin at any step of the devices
// during the wait: before each step and deadline choice, the checker
// chooses whether the close begins there (the engine ends the wait, which
// returns busy, and the close then joins for its own timeout); beginning
// is a switch of host threads, which counts as a preemption. When it does
// not begin during the wait, it begins once the wait has returned. It
// returns what the wait and the close returned. The counterexample lists
// the close's own steps before the wait's result, which the waiting
// thread records once the close has returned.
func (s *Session) WaitRacingClose(timeout, closeTimeout time.Duration) (bool, error, engine.Outcome) {
	h := s.host
	closeText := s.name + ":close(" + closeTimeout.String() + ")"
	closed := make(chan engine.Outcome, 1)
	began := false
	h.run.race = func() {
		if began || h.chooseSwitch("whether "+closeText+" begins in another thread", []string{"not yet", "now"}, 0) == 0 {
			return
		}
		began = true
		h.op(closeText+" begins in another thread", "the wait is ended")
		go func() { closed <- s.Session.CloseWithin(h.ctx, closeTimeout) }()
		for !s.Session.Closing() { // the close's first step: then the wait sees it
			runtime.Gosched()
		}
	}
	ok, err := s.Session.WaitContext(h.ctx, timeout)
	var out engine.Outcome
	if began {
		out = <-closed // the close goes on once the wait has returned
	}
	h.run.race = nil
	h.op(s.name+":wait("+timeout.String()+")", strconv.FormatBool(ok)+", "+errWords(err))
	if !began {
		out = s.Session.CloseWithin(h.ctx, closeTimeout)
	}
	h.op(closeText, out.String())
	return ok, err, out
}

// Close is the drop path, joining for timeout, or until the run's context
// ends.
func (s *Session) Close(timeout time.Duration) engine.Outcome {
	out := s.Session.CloseWithin(s.host.ctx, timeout)
	s.host.op(s.name+":close("+timeout.String()+")", out.String())
	return out
}

// ResetDevices resets every device of the fabric, which ends every
// quarantine, and checks that nothing is left charged (invariant 8).
func (h *Host) ResetDevices() {
	for _, d := range h.fabric.Devices() {
		d.Reset()
	}
	_ = h.oracle.CheckSettled() // recorded as a violation when it fails
	h.op("reset every device", "ok")
}

// Fail records that the scenario itself failed (a Lua error): the run
// ends there, and the report counts it.
func (h *Host) Fail(msg string) {
	h.op("scenario error", msg)
	h.run.failed = msg
}

// errWords is an operation's error as a counterexample prints it: "ok",
// or the error's kind and message.
func errWords(err error) string {
	if err == nil {
		return "ok"
	}
	msg := err.Error()
	if i := strings.Index(msg, "\n"); i >= 0 {
		msg = msg[:i]
	}
	return "error: " + msg
}
