package trace

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine/oracle"
)

// Input is one trace to validate: what reports call it, and its text.
type Input struct {
	Name string
	R    io.Reader
}

// Violation is the first event of a trace that broke an invariant.
type Violation struct {
	Invariant int
	Text      string // the invariant, in words
	Message   string // what went against it
	Session   uint64 // the session it broke in; 0: none
	File      string
	Line      int
	Event     string   // the line
	Events    []string // the session's lines up to it, each "file:line: line"
	Earlier   int      // the session's lines before Events, left out
	Count     int      // how many times the invariant broke in all
}

// Report is what Validate found.
type Report struct {
	Files      []string
	Events     int // events checked
	Sessions   int // sessions opened
	Checked    []int
	Unchecked  []Unchecked
	Violations []Violation // the first of each invariant broken, by invariant
	// Truncated is the last line of the first file that ends mid-line,
	// if any: everything before it was checked.
	Truncated *FormatError
}

// OK reports whether no invariant was broken and no file was truncated.
func (r *Report) OK() bool {
	return len(r.Violations) == 0 && r.Truncated == nil && r.Sessions > 0
}

// ExitCode is what a command exits with after Validate: 1 when an
// invariant was broken, 2 when a trace was malformed (err) or truncated,
// 0 when every invariant checked held. A trace of no session checked
// nothing: 2, never a pass.
func ExitCode(r *Report, err error) int {
	switch {
	case r != nil && len(r.Violations) > 0:
		return 1
	case err != nil, r == nil, r.Truncated != nil, r.Sessions == 0:
		return 2
	}
	return 0
}

// keep is how many of a session's latest lines a report shows.
const keep = 64

// evTouch is a program's touch of memory besides the startup line: a
// round's step, which a program that observed ABORT may not take.
var evTouch = program.DefineEvent("trace.touch", program.CategoryRound)

// The engine's kinds that it does not export: their names are their
// values.
const (
	evStartup      program.EventKind = "startup"
	evSession      program.EventKind = "session"
	evSubmitReturn program.EventKind = "submit.return"
	evPublished    program.EventKind = "published"
	evUndecided    program.EventKind = "wait.undecided"
	evCloseBegin   program.EventKind = "close.begin"
	evClose        program.EventKind = "close"
)

// sessionLog is what the validator keeps of an open session.
type sessionLog struct {
	line     uint64 // the startup line's buffer
	closing  bool
	opened   string // file:line of its open
	lines    []logLine
	next     int // where the next line goes once lines is full
	earlier  int
	deadline uint64    // the latest deadline of the joins of its Wait now ending
	devices  [2]string // its programs' devices, from its session event
}

// logLine is one line of a session's log: its room is kept when the log
// is used for another session.
type logLine struct {
	file string
	line int
	raw  []byte
}

func (l *logLine) String() string { return l.file + ":" + strconv.Itoa(l.line) + ": " + string(l.raw) }

func (s *sessionLog) add(file string, line int, raw []byte) {
	var l *logLine
	if len(s.lines) < keep {
		s.lines = s.lines[:len(s.lines)+1]
		l = &s.lines[len(s.lines)-1]
	} else {
		l = &s.lines[s.next]
		s.next = (s.next + 1) % keep
		s.earlier++
	}
	l.file, l.line, l.raw = file, line, append(l.raw[:0], raw...)
}

func (s *sessionLog) ordered() []string {
	var out []string
	for _, part := range [][]logLine{s.lines[s.next:], s.lines[:s.next]} {
		for i := range part {
			out = append(out, part[i].String())
		}
	}
	return out
}

// source is one trace being merged: its decoder and its next event.
type source struct {
	name string
	dec  *Decoder
	head Event
	done bool
}

// validator feeds the merged events to the engine's oracle.
type validator struct {
	oracle      *oracle.Transcript
	deadline    bool                  // joins are checked by their deadlines, not their times
	devices     map[string]*deviceUse // by name: the devices named and not recycled
	invocations map[uint64]string     // each outstanding invocation's device
	numbered    int                   // actor numbers given out, from 1
	sessions    map[uint64]*sessionLog
	free        []*sessionLog
	found       [Invariants + 1]int // index+1 in report.Violations
	report      *Report
	out         []event.Event
}

// Validate checks the traces, merged by time (a file's own order kept),
// against every invariant of the oracle whose events their headers
// declare. A trace that is not one (a malformed line, a session's event
// when it is not open, a second open of one, time going back for an actor)
// stops it with a *FormatError, the report saying what was checked before
// it; a file whose last line ends mid-line is reported as Truncated, after
// everything before it was checked.
func Validate(inputs ...Input) (*Report, error) {
	r := &Report{}
	srcs := make([]*source, 0, len(inputs))
	declared := map[string]bool{}
	exact, deadlines := true, true
	for _, in := range inputs {
		r.Files = append(r.Files, in.Name)
		dec, err := NewDecoder(in.Name, in.R)
		if err != nil {
			return r, err
		}
		h := dec.Header()
		for _, k := range h.Kinds {
			declared[k] = true
		}
		exact = exact && h.Clock == "exact"
		deadlines = deadlines && h.Deadlines
		srcs = append(srcs, &source{name: in.Name, dec: dec})
	}
	if len(srcs) == 0 {
		return r, errors.New("no trace to validate")
	}
	r.Checked, r.Unchecked = coverage(declared, exact || deadlines)
	v := &validator{
		oracle:      oracle.NewTranscript(exact || deadlines),
		deadline:    !exact && deadlines,
		devices:     map[string]*deviceUse{},
		invocations: map[uint64]string{},
		sessions:    map[uint64]*sessionLog{},
		report:      r,
	}
	for _, s := range srcs {
		if err := v.advance(s); err != nil {
			return r, err
		}
	}
	for {
		var next *source
		for _, s := range srcs {
			if !s.done && (next == nil || *s.head.Time < *next.head.Time) {
				next = s
			}
		}
		if next == nil {
			break
		}
		if err := v.check(next); err != nil {
			return r, err
		}
		if err := v.advance(next); err != nil {
			return r, err
		}
	}
	if r.Truncated == nil && v.wanted(8) {
		if err := v.oracle.Settle(); err != nil {
			var ev oracle.Violation
			if errors.As(err, &ev) {
				v.violated(ev, nil, 0)
			}
		}
	}
	return r, nil
}

// advance reads s's next event.
func (v *validator) advance(s *source) error {
	err := s.dec.Next(&s.head)
	var fe *FormatError
	switch {
	case err == nil:
		return nil
	case err == io.EOF:
		s.done = true
		return nil
	case errors.As(err, &fe) && fe.Truncated:
		s.done = true
		if v.report.Truncated == nil { // the first file's that is
			v.report.Truncated = fe
		}
		return nil
	}
	return err
}

// wanted reports whether invariant n is checked.
func (v *validator) wanted(n int) bool {
	for _, c := range v.report.Checked {
		if c == n {
			return true
		}
	}
	return false
}

// check feeds s's head event to the oracle.
func (v *validator) check(s *source) error {
	e, line := &s.head, s.dec.Line()
	bad := func(field, format string, args ...any) error {
		return &FormatError{File: s.name, Line: line, Field: field, Expected: fmt.Sprintf(format, args...)}
	}
	log := v.sessions[e.Session]
	spec := kinds[e.Kind]
	switch {
	case e.Kind == "open" && log != nil:
		return bad("session", "a new session's id: session %d is already open (opened at %s)", e.Session, log.opened)
	case e.Kind == "open":
		if n := len(v.free); n > 0 {
			log, v.free = v.free[n-1], v.free[:n-1]
		} else {
			log = &sessionLog{lines: make([]logLine, 0, keep)}
		}
		*log = sessionLog{line: *e.Line, opened: s.name + ":" + strconv.Itoa(line), lines: log.lines[:0]}
		v.sessions[e.Session] = log
		v.report.Sessions++
	case spec.session && log == nil:
		return bad("session", "an open session: session %d was never opened, or is closed (%s after its close, or before its open)", e.Session, e.Kind)
	}
	if log != nil {
		log.add(s.name, line, s.dec.Raw())
	}
	out, err := v.translate(e, log)
	if err != nil {
		return bad("actor", "%v", err)
	}
	v.report.Events++
	v.use(e, log)
	for i := range out {
		for _, viol := range v.oracle.Observe(&out[i]) {
			v.violated(viol, s, line)
		}
	}
	if log != nil {
		switch {
		case e.Kind == "close.begin":
			log.closing = true
		case e.Kind == "close", e.Kind == "release" && e.Result != "refused" && *e.Buffer == log.line && !log.closing:
			v.forget(e.Session, log)
		}
	}
	return nil
}

// violated records the first violation of each invariant, with its
// session's lines, and counts the rest.
func (v *validator) violated(viol oracle.Violation, s *source, line int) {
	r := v.report
	if i := v.found[viol.Invariant]; i > 0 {
		r.Violations[i-1].Count++
		return
	}
	msg := viol.Message
	if v.deadline && viol.Invariant == 11 { // the oracle was given the joins' deadlines as their times
		msg = strings.Replace(msg, " join ended at ", " join's deadline was ", 1)
	}
	found := Violation{Invariant: viol.Invariant, Text: oracle.Invariant(viol.Invariant), Message: msg,
		Session: viol.Session, Line: line, Count: 1}
	if s != nil {
		found.File, found.Event = s.name, string(s.dec.Raw())
	}
	if log := v.sessions[viol.Session]; log != nil && viol.Session != 0 {
		found.Events, found.Earlier = log.ordered(), log.earlier
	} else if s != nil {
		l := logLine{file: s.name, line: line, raw: s.dec.Raw()}
		found.Events = []string{l.String()}
	}
	r.Violations = append(r.Violations, found)
	v.found[viol.Invariant] = len(r.Violations)
}

// deviceUse is what the validator knows of a device's use: while none of
// it is left, its actor number may go to another device.
type deviceUse struct {
	actor    event.Actor
	running  int  // invocations outstanding
	held     bool // a quarantine holds it until it is reset
	sessions int  // open sessions of its programs
	born     int  // the event that named it: not recycled for another device of the same event
}

func (d *deviceUse) idle() bool { return d.running == 0 && !d.held && d.sessions == 0 }

// actor is the oracle's actor of a trace's actor. Devices are numbered in
// the order first seen; the oracle's numbers stop at 255, so past them a
// device that is idle (nothing outstanding on it, no quarantine holding it,
// no open session's program on it) gives its number to the new one: a
// trace may name any number of devices, 255 of them in use at once.
func (v *validator) actor(name string) (event.Actor, error) {
	if name == "host" {
		return event.HostActor, nil
	}
	if d, ok := v.devices[name]; ok {
		return d.actor, nil
	}
	var a event.Actor
	if v.numbered < 255 {
		v.numbered++
		a = event.Actor(v.numbered)
	} else {
		for old, d := range v.devices {
			if d.idle() && d.born != v.report.Events {
				a = d.actor
				delete(v.devices, old)
				break
			}
		}
		if a == 0 {
			return 0, fmt.Errorf("at most 255 devices in use at once in the traces together; %q is one more", name)
		}
	}
	v.devices[name] = &deviceUse{actor: a, born: v.report.Events}
	return a, nil
}

// use follows what the event does to its devices' use (each named by
// translate, just before).
func (v *validator) use(e *Event, log *sessionLog) {
	dev := func(name string) *deviceUse {
		if d := v.devices[name]; d != nil {
			return d
		}
		return &deviceUse{} // not reached: translate named it
	}
	switch e.Kind {
	case "dispatch":
		dev(e.Actor).running++
		v.invocations[*e.Invocation] = e.Actor
	case "retire", "reset":
		if e.Invocation != nil {
			if name, ok := v.invocations[*e.Invocation]; ok {
				delete(v.invocations, *e.Invocation)
				if d := v.devices[name]; d != nil {
					d.running--
				}
			}
		}
		if e.Kind == "reset" && e.Result == "ok" {
			dev(e.Actor).held = false
		}
	case "quarantine":
		for _, name := range e.Devices {
			dev(name).held = true
		}
	case "session":
		log.devices = [2]string{e.GPU, e.NPU}
		for _, name := range log.devices {
			dev(name).sessions++
		}
	}
}

// forget ends the validator's record of a session.
func (v *validator) forget(session uint64, log *sessionLog) {
	for _, name := range log.devices {
		if d := v.devices[name]; d != nil && name != "" {
			d.sessions--
		}
	}
	delete(v.sessions, session)
	v.free = append(v.free, log)
}

var participants = map[string]uint64{"gpu": uint64(oracle.ParticipantGPU), "npu": uint64(oracle.ParticipantNPU)}

var joinResults = map[string]uint64{
	"retired": uint64(oracle.JoinRetired), "timeout": uint64(oracle.JoinTimeout), "error": uint64(oracle.JoinError),
	"absent": uint64(oracle.JoinAbsent), "cancelled": uint64(oracle.JoinCancelled),
}

// failed is 1 when a step's result says it failed, else 0.
func failed(result string) uint64 {
	switch result {
	case "rejected", "error", "failed", "quarantined":
		return 1
	}
	return 0
}

// translate is e as the oracle's events.
func (v *validator) translate(e *Event, log *sessionLog) ([]event.Event, error) {
	actor, err := v.actor(e.Actor)
	if err != nil {
		return nil, err
	}
	base := event.Event{Time: dur(*e.Time), Actor: actor, Session: e.Session, Detail: e.Why}
	out := v.out[:0]
	add := func(kind program.EventKind, a, b uint64) {
		ev := base
		ev.Kind, ev.A, ev.B = kind, a, b
		out = append(out, ev)
	}
	switch e.Kind {
	case "open":
		add(evStartup, 0, *e.Line)
	case "session":
		g, err1 := v.actor(e.GPU)
		n, err2 := v.actor(e.NPU)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		add(evSession, uint64(g), uint64(n))
	case "submit":
		add(oracle.EvSubmit, participants[e.Participant], failed(e.Result))
	case "submit.return":
		add(evSubmitReturn, participants[e.Participant], failed(e.Result))
	case "decide":
		add(oracle.EvDecide, uint64(*e.Decision), 0)
	case "store":
		add(event.EvHostStore, *e.Buffer, uint64(*e.Value))
	case "publish":
		add(evPublished, uint64(*e.Decision), failed(e.Result))
	case "poison":
		add(oracle.EvPoison, 0, 0)
	case "observe":
		add(program.EvObserve, *e.Invocation, uint64(*e.Decision))
	case "dispatch":
		add(event.EvDispatch, *e.Invocation, 0)
		for _, b := range e.Reach {
			add(event.EvReach, *e.Invocation, b)
		}
	case "touch":
		add(evTouch, *e.Invocation, value(e.Buffer))
	case "retire":
		add(event.EvRetire, *e.Invocation, failed(e.Result))
	case "reset":
		add(event.EvReset, value(e.Invocation), failed(e.Result))
	case "wait":
		add(oracle.EvWait, *e.Timeout, 0)
		log.deadline = *e.Time
	case "wait.undecided":
		add(evUndecided, 0, 0)
	case "join":
		add(oracle.EvJoin, participants[e.Participant], joinResults[e.Result])
		if v.deadline {
			out[0].Time = dur(*e.Deadline)
			log.deadline = max(log.deadline, *e.Deadline)
		}
	case "wait.end":
		add(oracle.EvWaitEnd, bit(*e.Retired), 0)
		if v.deadline {
			out[0].Time = dur(log.deadline)
		}
	case "check":
		add(oracle.EvCheck, participants[e.Participant], map[string]uint64{"passed": 0, "failed": 1}[e.Result])
	case "close.begin":
		add(evCloseBegin, *e.Timeout, 0)
	case "close":
		add(evClose, failed(e.Result), 0)
	case "alloc", "release":
		if e.Private {
			base.Detail = event.PrivateBudget
		}
		kind := event.EvAlloc
		switch {
		case e.Kind == "release" && e.Result == "refused":
			kind = event.EvReleaseRefused
		case e.Kind == "release":
			kind = event.EvRelease
		}
		add(kind, *e.Buffer, *e.Bytes)
	case "quarantine":
		for _, d := range e.Devices {
			a, err := v.actor(d)
			if err != nil {
				return nil, err
			}
			add(event.EvHold, uint64(a), 0)
		}
		for _, b := range e.Buffers {
			add(event.EvKeep, b, 0)
		}
		add(event.EvQuarantine, *e.Bytes, 0)
	case "quarantine.end":
		add(event.EvQuarantineEnd, *e.Bytes, 0)
	case "fault":
		site := fault.GPURun // a generic site: it explains no failed check
		if e.Own {
			site = ^fault.Site(0) // no generic site: a program's own, which explains a failed check
		}
		add(event.EvFault, uint64(site), uint64(fault.Error))
	}
	v.out = out
	return out, nil
}

func dur(ns uint64) time.Duration { return time.Duration(ns) }

func value(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// String writes the report as the command prints it.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d events, %s in %s\n", r.Events, plural(r.Sessions, "session"), strings.Join(r.Files, ", "))
	for _, viol := range r.Violations {
		fmt.Fprintf(&b, "\nVIOLATED invariant %d: %s\n", viol.Invariant, viol.Text)
		if viol.File != "" {
			fmt.Fprintf(&b, "  first at %s:%d, session %d: %s\n", viol.File, viol.Line, viol.Session, viol.Message)
			fmt.Fprintf(&b, "  event: %s\n", viol.Event)
		} else {
			fmt.Fprintf(&b, "  at the end of the traces: %s\n", viol.Message)
		}
		if viol.Count > 1 {
			fmt.Fprintf(&b, "  broken %d times in all\n", viol.Count)
		}
		if len(viol.Events) > 0 {
			fmt.Fprintf(&b, "  the session's events up to it")
			if viol.Earlier > 0 {
				fmt.Fprintf(&b, " (%d earlier not shown)", viol.Earlier)
			}
			b.WriteString(":\n")
			for _, l := range viol.Events {
				fmt.Fprintf(&b, "    %s\n", l)
			}
		}
	}
	if len(r.Violations) > 0 {
		b.WriteString("\n")
	}
	if r.Sessions == 0 {
		b.WriteString("nothing checked: the traces hold no session, so no invariant was tested\n")
		return b.String()
	}
	broken := map[int]bool{}
	for _, viol := range r.Violations {
		broken[viol.Invariant] = true
	}
	for _, n := range r.Checked {
		if !broken[n] {
			fmt.Fprintf(&b, "held        %2d: %s\n", n, oracle.Invariant(n))
		}
	}
	for _, u := range r.Unchecked {
		fmt.Fprintf(&b, "not checked %2d: %s (%s)\n", u.Invariant, oracle.Invariant(u.Invariant), u.Why)
	}
	if r.Truncated != nil {
		fmt.Fprintf(&b, "\nTRUNCATED: %v; every line before it was checked\n", r.Truncated)
	}
	return b.String()
}

// plural is "1 session" or "n sessions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
