package engine

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/internal/slot"
)

// DefaultCloseTimeout is how long Close joins both programs before it
// quarantines the session.
const DefaultCloseTimeout = 10 * time.Second

// Outcome is how a closed session ended.
type Outcome uint8

// Outcomes of Close.
const (
	// Retired: both programs retired and the memory was released.
	Retired Outcome = iota + 1
	// Quarantined: a program may still reach the memory, so it is kept
	// mapped and charged, and both devices stay occupied until reset.
	Quarantined
)

// String is "retired" or "quarantined".
func (o Outcome) String() string {
	switch o {
	case Retired:
		return "retired"
	case Quarantined:
		return "quarantined"
	}
	return "open"
}

// Session is one resident GPU–NPU session: it owns the startup line and both
// prepared programs. Submit both participants in either order, Start (RUN),
// then Wait for both; or Abort before a decision. Close is the drop path.
// A Session is safe for concurrent use. Its operations are serialised, except
// that a join (Wait's, or Close's) holds no lock the others need: State and
// the like answer during a Wait, and Close ends another goroutine's Wait.
//
// Who holds what, in the order it is taken (a goroutine holding one takes
// only those after it; all come before the devices package's locks):
//  1. joinSlot: one join at a time. A Wait holds it from before
//     it looks at the session until it returns, waiting for it in a select
//     against its context's end; a Close holds it for the whole close.
//  2. mu: the fields after it. Every operation holds it, except while a
//     join waits for the devices: wait lets go of it around its two joins,
//     so that State and the like answer, and a Close can end the join.
//
// A Wait joins under a context derived from its caller's, and while it
// holds the join slot the session keeps that context's cancel func in
// stopWait. A Close marks the session closing and calls stopWait, both
// under mu, then takes the join slot: the Wait's join ends, the Wait lets
// go of the slot, and the close joins for its own timeout.
type Session struct {
	joinSlot slot.Slot
	mu       sync.Mutex
	closing  bool                    // a Close has begun
	stopWait context.CancelCauseFunc // ends the join of the Wait holding the slot; nil when none
	// untilClose is the join context of every Wait whose caller's context
	// never ends: made at the first such Wait, ended only by a Close.
	untilClose    context.Context
	endUntilClose context.CancelCauseFunc
	startup       *startupLine
	gpu, npu      *devices.Prepared
	gpuDone       *devices.Completion
	npuDone       *devices.Completion
	decision      oracle.Decision // StartupWait until decided; recorded before publishing
	poisoned      bool
	retired       bool             // a Wait saw both participants retire
	outcome       Outcome          // set by Close
	poisonedBy    string           // why it was poisoned
	checked       bool             // the programs' checks ran, after a RUN session retired
	checkErr      error            // the first check that failed
	acceptedAt    [2]time.Duration // by Participant: when its dispatch was accepted (its done is set)
	decided       event.Stamp      // when the decision was recorded
}

// newSessionOf makes a session of startup and two prepared programs: gpu on a
// PM4 or AQL family of the startup's GPU, npu on an XDNA family of its NPU.
// Both must poll exactly the startup line, never write it, and retire without
// peer progress after ABORT. Once the fabric is renewed
// (devices.Fabric.Renew), every operation of the session fails with a
// failure.Stale error and does nothing.
func newSessionOf(startup *startupLine, gpu, npu *devices.Prepared) (*Session, error) {
	if startup == nil || gpu == nil || npu == nil {
		return nil, failure.Errorf(failure.Invalid, "session", "a startup line and two prepared programs are needed; got nil")
	}
	if err := startup.stale("session"); err != nil {
		return nil, err
	}
	switch {
	case startup.used:
		return nil, failure.Errorf(failure.Busy, "session", "startup line %d already belongs to a session; make a new one", startup.id)
	case gpu.Device() != startup.gpu:
		return nil, failure.Errorf(failure.Invalid, "session", "the GPU program is prepared for %s, not the startup's %s", gpu.Device().Name(), startup.gpu.Name())
	case npu.Device() != startup.npu:
		return nil, failure.Errorf(failure.Invalid, "session", "the NPU program is prepared for %s, not the startup's %s", npu.Device().Name(), startup.npu.Name())
	case gpu.Family().Command != devices.PM4 && gpu.Family().Command != devices.AQL:
		return nil, failure.Errorf(failure.Invalid, "session", "the GPU program must be on a PM4 or AQL queue, not %s", gpu.Family().Command)
	case npu.Family().Command != devices.XDNA:
		return nil, failure.Errorf(failure.Invalid, "session", "the NPU program must be on an XDNA queue, not %s", npu.Family().Command)
	}
	startup.used = true
	s := &Session{joinSlot: slot.New(), startup: startup, gpu: gpu, npu: npu}
	s.emit(oracle.EvSession, uint64(gpu.Device().Actor()), uint64(npu.Device().Actor()), "")
	return s, nil
}

// Programs prepares a session's two programs on its startup line, line:
// the GPU one on a PM4 or AQL family of gpu, the NPU one on an XDNA family
// of npu. Both must poll word 0 of line (WAIT, RUN, ABORT),
// never write it, and retire without their peer's progress after ABORT.
// Whatever else they reach they allocate from line's profile, tagged with
// owner; when it fails, it releases what it allocated.
type Programs func(line *devices.Buffer, gpu, npu *devices.Device, owner uint64) (gpuProgram, npuProgram *devices.Prepared, err error)

// Open makes a startup line on gpu and npu, charged to the fabric's budget,
// prepares the session's programs on it with prepare, and makes the
// session; when preparing fails, the line is released and prepare's error
// returned.
func Open(gpu, npu *devices.Device, prepare Programs) (*Session, error) {
	st, err := newStartup(gpu, npu, nil)
	if err != nil {
		return nil, err
	}
	g, n, err := prepare(st.line, gpu, npu, st.id)
	if err == nil {
		var s *Session
		if s, err = newSessionOf(st, g, n); err == nil {
			return s, nil
		}
	}
	_ = st.line.Release()
	return nil, err
}

// ID identifies the session in events (it is the startup line's id).
func (s *Session) ID() uint64 { return s.startup.id }

// GPU is the session's prepared GPU program.
func (s *Session) GPU() *devices.Prepared { return s.gpu }

// NPU is the session's prepared NPU program.
func (s *Session) NPU() *devices.Prepared { return s.npu }

func (s *Session) emit(kind program.EventKind, a, b uint64, detail string) time.Duration {
	return s.startup.fabric.Events().Emit(event.HostActor, s.startup.id, kind, a, b, detail)
}

// ready refuses once the session is poisoned or decided.
func (s *Session) ready(op string) error {
	if s.outcome != 0 {
		return failure.Errorf(failure.Busy, op, "session %d is closed", s.startup.id)
	}
	if s.poisoned || s.decision != 0 {
		return errDecided(op)
	}
	return nil
}

// SubmitGPU dispatches the GPU participant, once. When the device rejects
// it, ABORT is published for the peer before the device's error returns.
func (s *Session) SubmitGPU() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.startup.stale("submit_gpu"); err != nil {
		return err
	}
	return s.submit(oracle.ParticipantGPU, "submit_gpu", s.gpu, &s.gpuDone)
}

// SubmitNPU dispatches the NPU participant, once, like SubmitGPU.
func (s *Session) SubmitNPU() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.startup.stale("submit_npu"); err != nil {
		return err
	}
	return s.submit(oracle.ParticipantNPU, "submit_npu", s.npu, &s.npuDone)
}

func (s *Session) submit(who oracle.Participant, op string, prog *devices.Prepared, done **devices.Completion) error {
	err := s.admit(who, op, prog, done)
	status := uint64(0)
	if err != nil {
		status = 1
	}
	s.emit(oracle.EvSubmitReturn, uint64(who), status, "")
	return err
}

func (s *Session) admit(who oracle.Participant, op string, prog *devices.Prepared, done **devices.Completion) error {
	if err := s.ready(op); err != nil {
		return err
	}
	if *done != nil {
		return failure.Errorf(failure.Busy, op, "%s participant already submitted", who)
	}
	c, err := prog.Dispatch()
	if err != nil {
		s.emit(oracle.EvSubmit, uint64(who), 1, failure.Detail(err))
		_ = s.decide(op, oracle.StartupAbort) // the peer must not wait for a RUN that never comes
		return err
	}
	*done = c
	s.acceptedAt[who] = s.emit(oracle.EvSubmit, uint64(who), 0, "")
	return nil
}

// decide records the decision, then publishes it. If publishing fails the
// session is poisoned, and no other decision is ever published.
func (s *Session) decide(op string, v oracle.Decision) error {
	if err := s.ready(op); err != nil {
		return err
	}
	s.decision = v
	decided := event.Event{Actor: event.HostActor, Session: s.startup.id, Kind: oracle.EvDecide, A: uint64(v)}
	var err error
	s.decided, err = s.startup.publish(decided, uint32(v))
	if err != nil {
		s.poison("publication failed: " + failure.Detail(err))
		s.emit(oracle.EvPublished, uint64(v), 1, failure.Detail(err))
		return err
	}
	s.emit(oracle.EvPublished, uint64(v), 0, "")
	return nil
}

func (s *Session) poison(why string) {
	if !s.poisoned {
		s.poisoned, s.poisonedBy = true, why
		s.emit(oracle.EvPoison, 0, 0, why)
	}
}

// Start publishes RUN, only once both participants were accepted.
func (s *Session) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.startup.stale("start"); err != nil {
		return err
	}
	if err := s.ready("start"); err != nil {
		return err
	}
	if s.gpuDone == nil || s.npuDone == nil {
		return failure.Errorf(failure.Busy, "start", "both resident participants must be accepted before RUN")
	}
	return s.decide("start", oracle.StartupRun)
}

// Abort publishes ABORT before a decision. It does not cancel a running
// exchange: after Start it is Busy.
func (s *Session) Abort() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.startup.stale("abort"); err != nil {
		return err
	}
	return s.decide("abort", oracle.StartupAbort)
}

// IsComplete reports, without making progress, whether a decision was made
// and every accepted participant has retired. A participant's device error
// is returned.
func (s *Session) IsComplete() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.startup.stale("is_complete"); err != nil {
		return false, err
	}
	if s.decision == 0 {
		return false, nil
	}
	for _, c := range []*devices.Completion{s.gpuDone, s.npuDone} {
		if c == nil {
			continue
		}
		if done, err := c.IsComplete(); err != nil || !done {
			return false, err
		}
	}
	return true, nil
}

// Wait joins the GPU under timeout and the NPU under what is left of it,
// always attempting both joins. It is Busy before a decision. An error from
// either participant poisons the session. It returns false on timeout, and
// the session keeps ownership: a later Wait can still succeed.
func (s *Session) Wait(timeout time.Duration) (bool, error) {
	return s.WaitContext(context.Background(), timeout)
}

// WaitContext is Wait that also returns, with ctx's error, soon after ctx is
// cancelled; the session then keeps ownership as on a timeout. A Close from
// another goroutine ends the wait at once with a Busy error.
func (s *Session) WaitContext(ctx context.Context, timeout time.Duration) (bool, error) {
	if err := s.joinSlot.LockContext(ctx); err != nil {
		return false, err // another goroutine's Wait or Close is joining
	}
	defer s.joinSlot.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.startup.stale("wait"); err != nil {
		return false, err
	}
	if s.outcome != 0 || s.closing {
		return false, failure.Errorf(failure.Busy, "wait", "session %d is closed", s.startup.id)
	}
	if timeout < 0 {
		return false, failure.Errorf(failure.Invalid, "wait", "timeout %v is negative; give zero or more", timeout)
	}
	var jctx context.Context
	if ctx.Done() == nil {
		// Only a Close can end the join of a Wait whose caller's context
		// never ends, so every such Wait joins under the same context:
		// made at the first, ended by the Close, made nothing per Wait.
		if s.untilClose == nil {
			s.untilClose, s.endUntilClose = context.WithCancelCause(context.Background())
		}
		jctx, s.stopWait = s.untilClose, s.endUntilClose
	} else {
		jctx, s.stopWait = context.WithCancelCause(ctx)
		defer s.stopWait(nil) // lets go of what it holds of ctx
	}
	defer func() { s.stopWait = nil }()
	ok, err := s.wait(jctx, timeout)
	if err != nil && isContextError(err) && ctx.Err() == nil {
		err = failure.Errorf(failure.Busy, "wait", "session %d was closed during the wait", s.startup.id)
	}
	return ok, err
}

// wait joins both participants under one deadline (mu and the join slot
// held; mu is let go while joining).
func (s *Session) wait(ctx context.Context, timeout time.Duration) (bool, error) {
	if s.decision == 0 {
		s.emit(oracle.EvUndecided, 0, 0, "")
		return false, failure.Errorf(failure.Busy, "wait", "resident startup remains undecided")
	}
	f := s.startup.fabric
	start := f.Now()
	s.emit(oracle.EvWait, uint64(timeout), 0, "")
	gpuDone, npuDone := s.gpuDone, s.npuDone // fixed once decided
	s.mu.Unlock()
	gpuOK, gpuErr := s.join(ctx, oracle.ParticipantGPU, gpuDone, timeout)
	left := max(timeout-(f.Now()-start), 0)
	// Always attempt both joins, even when the first one failed.
	npuOK, npuErr := s.join(ctx, oracle.ParticipantNPU, npuDone, left)
	s.mu.Lock()
	err := gpuErr
	if err == nil {
		err = npuErr
	}
	for _, e := range []error{gpuErr, npuErr} {
		if e != nil && !isContextError(e) {
			s.poison("a participant failed: " + failure.Detail(e))
		}
	}
	ok := err == nil && gpuOK && npuOK
	result := uint64(0)
	if ok {
		result = 1
		s.retired = true
		s.check()
	}
	s.emit(oracle.EvWaitEnd, result, 0, "")
	return ok, err
}

// join waits for one participant; an absent one counts as retired.
func (s *Session) join(ctx context.Context, who oracle.Participant, c *devices.Completion, timeout time.Duration) (bool, error) {
	if c == nil {
		s.emit(oracle.EvJoin, uint64(who), uint64(oracle.JoinAbsent), "")
		return true, nil
	}
	ok, err := c.WaitContext(ctx, timeout)
	if errors.Is(err, context.Canceled) && context.Cause(ctx) == errClosing {
		err = errClosing // the join event says that a Close ended it
	}
	switch {
	case err != nil:
		s.emit(oracle.EvJoin, uint64(who), uint64(joinFailure(err)), failure.Detail(err))
	case !ok:
		s.emit(oracle.EvJoin, uint64(who), uint64(oracle.JoinTimeout), "")
	default:
		s.emit(oracle.EvJoin, uint64(who), uint64(oracle.JoinRetired), "")
	}
	return ok, err
}

// isContextError reports whether err says that a wait's context ended,
// which is no participant's failure.
func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errClosing)
}

// joinFailure is the result of a join that returned err: JoinCancelled when
// the wait's context ended it, JoinError when the participant failed.
func joinFailure(err error) oracle.JoinResult {
	if isContextError(err) {
		return oracle.JoinCancelled
	}
	return oracle.JoinError
}

// errClosing is why a Close ends the join of a Wait.
var errClosing = errors.New("the session is closing")

// check runs the programs' own checks once, after a RUN session retired:
// one check event for each program that is a program.Checker, and the
// first failure kept for Checked.
func (s *Session) check() {
	if s.decision != oracle.StartupRun || s.checked {
		return
	}
	s.checked = true
	for who, p := range [...]*devices.Prepared{oracle.ParticipantGPU: s.gpu, oracle.ParticipantNPU: s.npu} {
		c, ok := p.Program().(program.Checker)
		if !ok {
			continue
		}
		err := c.Check()
		if err == nil {
			s.emit(oracle.EvCheck, uint64(who), 0, "")
			continue
		}
		s.emit(oracle.EvCheck, uint64(who), 1, failure.Detail(err))
		if s.checkErr == nil {
			s.checkErr = err
		}
	}
}

// Close is the drop path: abort if undecided, join both for up to
// DefaultCloseTimeout, then release everything, or quarantine it when a
// participant did not retire or the session is poisoned.
func (s *Session) Close() Outcome { return s.CloseWithin(context.Background(), DefaultCloseTimeout) }

// CloseWithin is Close with its own join timeout and context. A cancelled
// context ends the join early, and the session is then quarantined. A Wait
// joining in another goroutine is ended first, so the close takes its own
// timeout, not the Wait's. Closing a closed session returns how it ended.
// Closing a session whose fabric was renewed since it was opened does
// nothing to the fabric and returns Quarantined: its memory stays its own,
// never carved again by the renewed fabric.
func (s *Session) CloseWithin(ctx context.Context, timeout time.Duration) Outcome {
	s.mu.Lock()
	if s.outcome == 0 {
		s.closing = true
		if s.stopWait != nil {
			s.stopWait(errClosing)
		}
	}
	s.mu.Unlock()
	s.joinSlot.Lock() // the Wait that holds it lets go once its join ends
	defer s.joinSlot.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.outcome != 0 {
		return s.outcome
	}
	if s.startup.stale("close") != nil {
		s.outcome = Quarantined
		return s.outcome
	}
	s.emit(oracle.EvCloseBegin, uint64(max(timeout, 0)), 0, "")
	if s.decision == 0 && !s.poisoned {
		_ = s.decide("close", oracle.StartupAbort)
	}
	retired := s.retired
	interruptedBefore, waited := errors.Is(ctx.Err(), context.Canceled), time.Duration(0)
	if !retired && s.decision != 0 {
		start := s.startup.fabric.Now()
		retired, _ = s.wait(ctx, max(timeout, 0))
		waited = s.startup.fabric.Now() - start
	}
	bufs := s.buffers()
	if !retired || s.poisoned {
		s.outcome = Quarantined
		held := []*devices.Device{s.startup.gpu, s.startup.npu}
		// The buffers are not stale (checked above): the quarantine holds them.
		_ = s.startup.fabric.Quarantine(s.startup.id, s.quarantineReason(ctx, interruptedBefore, waited, timeout), held, bufs)
		s.emit(oracle.EvClose, 1, 0, "")
		return s.outcome
	}
	s.outcome = Retired
	for _, b := range bufs {
		_ = b.Release() // every program that reaches b has retired
	}
	s.emit(oracle.EvClose, 0, 0, "")
	return s.outcome
}

// quarantineReason says why a close quarantines: the session was
// poisoned, the close's context was cancelled before it joined (closed
// without joining) or while it joined (interrupted, after the time it
// waited), or a participant did not retire within the timeout (or the
// context's deadline).
func (s *Session) quarantineReason(ctx context.Context, interruptedBefore bool, waited, timeout time.Duration) string {
	// As fmt.Sprintf("session %d: ...") would say it, without fmt: a
	// campaign's trials quarantine sessions by the thousand.
	id := strconv.FormatUint(s.startup.id, 10)
	switch {
	case s.poisoned:
		return "session " + id + ": poisoned (" + s.poisonedBy + ")"
	case interruptedBefore:
		return "session " + id + ": closed without joining, interrupted before the join began"
	case errors.Is(ctx.Err(), context.Canceled) && waited < timeout:
		if waited = waited.Round(time.Microsecond); waited >= time.Second {
			waited = waited.Round(time.Millisecond)
		}
		return "session " + id + ": the close was interrupted after " + waited.String() + ", before a participant retired"
	}
	return "session " + id + ": a participant did not retire within " + timeout.String()
}

// buffers lists every buffer the session owns, the startup line first.
func (s *Session) buffers() []*devices.Buffer {
	// The line and what each program reaches, each once: an exchange's
	// programs each reach the line and the payload.
	out := append(make([]*devices.Buffer, 0, 5), s.startup.line)
	for _, p := range [...]*devices.Prepared{s.gpu, s.npu} {
		for b := range p.Reach() {
			if !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	return out
}

// State is where a session stands.
type State uint8

// Session states.
const (
	StateUndecided   State = iota + 1 // no decision yet
	StateRunning                      // RUN published, not yet seen retired
	StateAborted                      // ABORT published
	StateRetired                      // RUN, and a Wait saw both retire
	StatePoisoned                     // a publication or a participant failed
	StateClosed                       // closed, memory released
	StateQuarantined                  // closed, memory quarantined
)

// String is the state's lower-case name, or "state(n)" for a value that
// is none of them.
func (st State) String() string {
	names := [...]string{StateUndecided: "undecided", StateRunning: "running", StateAborted: "aborted", StateRetired: "retired",
		StatePoisoned: "poisoned", StateClosed: "closed", StateQuarantined: "quarantined"}
	if st == 0 || int(st) >= len(names) {
		return "state(" + strconv.Itoa(int(st)) + ")"
	}
	return names[st]
}

// State reports where the session stands.
func (s *Session) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.outcome == Quarantined:
		return StateQuarantined
	case s.outcome == Retired:
		return StateClosed
	case s.poisoned:
		return StatePoisoned
	case s.decision == 0:
		return StateUndecided
	case s.decision == oracle.StartupAbort:
		return StateAborted
	case s.retired:
		return StateRetired
	}
	return StateRunning
}

// Closing reports whether a Close has begun, from any goroutine. Once it
// reports true, every Wait of the session has been told to end: its join
// ends before the next step of the devices.
func (s *Session) Closing() bool {
	s.mu.Lock() // a Close tells the Waits under it, after it marks closing
	defer s.mu.Unlock()
	return s.closing
}

// Decision is the decision published (RUN or ABORT), or StartupWait before
// one.
func (s *Session) Decision() oracle.Decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.decision
}

// Timeline is when a session's steps happened, at the times of the events
// that say so: each participant's dispatch accepted, the decision
// recorded, and what each program did (devices.Completion.Steps). A step
// that has not happened is unset.
type Timeline struct {
	Accepted [2]event.Stamp // by Participant
	Decided  event.Stamp
	Programs [2]event.Steps // by Participant; unset for one never accepted
}

// Timeline reports the session's steps so far, from any goroutine.
func (s *Session) Timeline() Timeline {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := Timeline{Decided: s.decided}
	for who, c := range [...]*devices.Completion{s.gpuDone, s.npuDone} {
		if c != nil {
			t.Accepted[who] = event.Stamp{At: s.acceptedAt[who], Set: true}
			t.Programs[who] = c.Steps()
		}
	}
	return t
}

// Checked reports the programs' own checks (program.Checker), which run
// once a RUN session retired: done is false before that; problem is the
// first check's error, nil when every check passed or no program has one.
func (s *Session) Checked() (problem error, done bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checkErr, s.checked
}
