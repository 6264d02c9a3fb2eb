package trace

import (
	"errors"
	"strconv"
)

// Version is the version of the trace format this package reads and
// writes, the header's "version".
const Version = 1

// Magic is the header's "trace": what says that a file is a trace.
const Magic = "residentlua"

// Header is a trace's first line: the format's version, how exact its
// clock is, and which kinds of event its recorder can see.
type Header struct {
	Trace    string   `json:"trace"`              // Magic
	Version  int      `json:"version"`            // Version
	Clock    string   `json:"clock,omitempty"`    // "exact" (simulated time) or "real" (the default)
	Kinds    []string `json:"kinds"`              // the kinds the recorder sees: an invariant needing others is not checked
	Recorder string   `json:"recorder,omitempty"` // what wrote the trace, free text
	// Deadlines says that every join event carries the deadline the
	// implementation gave it: with a real clock, only then is a Wait's one
	// deadline checked.
	Deadlines bool `json:"deadlines,omitempty"`
}

// Event is one line of a trace after its header, as it is written: a
// field that the line does not give is nil or empty. Which fields each
// kind has, and who may record it, is docs/traces.md's table.
type Event struct {
	Time        *uint64  `json:"time"`                  // ns on any monotonic clock, the same for every actor of the trace
	Actor       string   `json:"actor"`                 // "host", or a device: "gpu", "npu", "gpu1", ...
	Session     uint64   `json:"session,omitempty"`     // the session's id; 0: none
	Kind        string   `json:"kind"`                  // one of Kinds
	Line        *uint64  `json:"line,omitempty"`        // open: the startup line's buffer
	GPU         string   `json:"gpu,omitempty"`         // session: the GPU program's device
	NPU         string   `json:"npu,omitempty"`         // session: the NPU program's device
	Participant string   `json:"participant,omitempty"` // "gpu" or "npu"
	Result      string   `json:"result,omitempty"`      // how the step ended; its words depend on the kind
	Decision    *Word    `json:"decision,omitempty"`    // decide, publish, observe
	Value       *Word    `json:"value,omitempty"`       // store: the word stored
	Buffer      *uint64  `json:"buffer,omitempty"`      // store, touch, alloc, release
	Bytes       *uint64  `json:"bytes,omitempty"`       // alloc, release, quarantine, quarantine.end
	Private     bool     `json:"private,omitempty"`     // alloc, release: charged to a budget of its own, not the shared one
	Invocation  *uint64  `json:"invocation,omitempty"`  // dispatch, observe, touch, retire, reset
	Reach       []uint64 `json:"reach,omitempty"`       // dispatch: the buffers the program can reach
	Timeout     *uint64  `json:"timeout,omitempty"`     // wait, close.begin: ns
	Deadline    *uint64  `json:"deadline,omitempty"`    // join: the time the join was to give up by
	Retired     *bool    `json:"retired,omitempty"`     // wait.end: both participants retired
	Devices     []string `json:"devices,omitempty"`     // quarantine: the devices it holds
	Buffers     []uint64 `json:"buffers,omitempty"`     // quarantine: the buffers it keeps
	Site        string   `json:"site,omitempty"`        // fault: where it fired
	Own         bool     `json:"own,omitempty"`         // fault: at a site of a program's own, which may spoil its results
	Why         string   `json:"why,omitempty"`         // free text
}

// Word is a value of the startup word: 0 WAIT, 1 RUN, 2 ABORT, written
// as the name, or any other value as a number.
type Word uint64

// The startup word's values.
const (
	Wait  Word = 0
	Run   Word = 1
	Abort Word = 2
)

var wordNames = [...]string{Wait: "WAIT", Run: "RUN", Abort: "ABORT"}

// String is the value's name, or its number.
func (w Word) String() string {
	if w < Word(len(wordNames)) {
		return wordNames[w]
	}
	return strconv.FormatUint(uint64(w), 10)
}

// MarshalJSON writes the name of WAIT, RUN and ABORT, a number otherwise.
func (w Word) MarshalJSON() ([]byte, error) {
	if w < Word(len(wordNames)) {
		return strconv.AppendQuote(nil, wordNames[w]), nil
	}
	return strconv.AppendUint(nil, uint64(w), 10), nil
}

// errWord is what UnmarshalJSON says of a value that is no word.
var errWord = errors.New(`a startup word: "WAIT", "RUN", "ABORT" or a whole number`)

// UnmarshalJSON reads a name or a whole number.
func (w *Word) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"WAIT"`:
		*w = Wait
	case `"RUN"`:
		*w = Run
	case `"ABORT"`:
		*w = Abort
	default:
		n, err := strconv.ParseUint(string(b), 10, 64)
		if err != nil {
			return errWord
		}
		*w = Word(n)
	}
	return nil
}

// who records a kind: the host, a device, or either.
type who uint8

const (
	byHost who = iota
	byDevice
	byAny
)

// kindSpec is what a kind's events must have.
type kindSpec struct {
	by      who
	session bool     // the session must be open (opened, not yet closed)
	need    []string // the fields it must give
	results []string // the words its result may be; nil: no result
}

// kinds is every kind of event a trace may hold.
var kinds = map[string]kindSpec{
	"open":           {by: byHost, need: []string{"session", "line"}},
	"session":        {by: byHost, session: true, need: []string{"gpu", "npu"}},
	"submit":         {by: byHost, session: true, need: []string{"participant", "result"}, results: []string{"accepted", "rejected"}},
	"submit.return":  {by: byHost, session: true, need: []string{"participant", "result"}, results: []string{"ok", "error"}},
	"decide":         {by: byHost, session: true, need: []string{"decision"}},
	"store":          {by: byHost, need: []string{"buffer", "value"}},
	"publish":        {by: byHost, session: true, need: []string{"decision", "result"}, results: []string{"ok", "failed"}},
	"poison":         {by: byHost, session: true},
	"observe":        {by: byDevice, need: []string{"invocation", "decision"}},
	"dispatch":       {by: byDevice, need: []string{"invocation"}},
	"touch":          {by: byDevice, need: []string{"invocation"}},
	"retire":         {by: byDevice, need: []string{"invocation", "result"}, results: []string{"ok", "error"}},
	"reset":          {by: byDevice, need: []string{"result"}, results: []string{"ok", "failed"}},
	"wait":           {by: byHost, session: true, need: []string{"timeout"}},
	"wait.undecided": {by: byHost, session: true},
	"join":           {by: byHost, session: true, need: []string{"participant", "result"}, results: []string{"retired", "timeout", "error", "absent", "cancelled"}},
	"wait.end":       {by: byHost, session: true, need: []string{"retired"}},
	"check":          {by: byHost, session: true, need: []string{"participant", "result"}, results: []string{"passed", "failed"}},
	"close.begin":    {by: byHost, session: true, need: []string{"timeout"}},
	"close":          {by: byHost, session: true, need: []string{"result"}, results: []string{"retired", "quarantined"}},
	"alloc":          {by: byHost, need: []string{"buffer", "bytes"}},
	"release":        {by: byHost, need: []string{"buffer", "bytes"}, results: []string{"ok", "refused"}},
	"quarantine":     {by: byHost, need: []string{"session", "bytes"}},
	"quarantine.end": {by: byAny, need: []string{"session", "bytes"}},
	"fault":          {by: byAny, need: []string{"site"}},
}

// Kinds lists every kind of event a trace may hold, in the order of
// docs/traces.md.
func Kinds() []string {
	return []string{"open", "session", "submit", "submit.return", "decide", "store", "publish", "poison",
		"observe", "dispatch", "touch", "retire", "reset", "wait", "wait.undecided", "join", "wait.end",
		"check", "close.begin", "close", "alloc", "release", "quarantine", "quarantine.end", "fault"}
}
