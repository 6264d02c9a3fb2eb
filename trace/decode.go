package trace

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// FormatError is a trace that is not one: the file and line, the field
// that is wrong (empty when the line as a whole is), and what was
// expected there.
type FormatError struct {
	File      string
	Line      int
	Field     string
	Expected  string
	Truncated bool // the last line ends mid-line: a recorder that stopped while writing it
}

// Error says where, what and what was expected.
func (e *FormatError) Error() string {
	where := fmt.Sprintf("%s:%d", e.File, e.Line)
	if e.Truncated {
		return where + ": truncated: the last line ends without a newline and is not a whole event (" + e.Expected + ")"
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: field %q: expected %s", where, e.Field, e.Expected)
	}
	return where + ": expected " + e.Expected
}

// MaxLine is the longest line a trace may have, in bytes.
const MaxLine = 1 << 20

// Decoder reads one trace, line by line, in memory bounded by its longest
// line: its header with NewDecoder, then an event per Next.
type Decoder struct {
	name    string
	r       *bufio.Reader
	line    int
	raw     []byte // the last line read, without its newline
	header  Header
	kinds   map[string]bool   // declared
	last    map[string]uint64 // each actor's last time
	pending []byte            // room for a line longer than the reader's buffer
}

// NewDecoder reads r's header. name is what errors call the file.
func NewDecoder(name string, r io.Reader) (*Decoder, error) {
	d := &Decoder{name: name, r: bufio.NewReaderSize(r, 64<<10), kinds: map[string]bool{}, last: map[string]uint64{}}
	raw, complete, err := d.readLine()
	if err == io.EOF && len(raw) == 0 {
		return nil, d.errorf("", "a header line {\"trace\":\"residentlua\",\"version\":1,\"kinds\":[...]}; the file is empty")
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if ferr := d.decodeHeader(raw); ferr != nil {
		ferr.Truncated = !complete
		return nil, ferr
	}
	return d, nil
}

// Header is the trace's header.
func (d *Decoder) Header() Header { return d.header }

// Raw is the last line read, without its newline; it is the decoder's
// until the next call of Next.
func (d *Decoder) Raw() []byte { return d.raw }

// Line is the number of the last line read, from 1 (the header).
func (d *Decoder) Line() int { return d.line }

func (d *Decoder) errorf(field, format string, args ...any) *FormatError {
	return &FormatError{File: d.name, Line: d.line, Field: field, Expected: fmt.Sprintf(format, args...)}
}

// readLine reads the next line, without its newline; complete says it
// ended with one. At the end it returns io.EOF with an empty line.
func (d *Decoder) readLine() (line []byte, complete bool, err error) {
	d.line++
	chunk, err := d.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		d.pending = append(d.pending[:0], chunk...)
		for err == bufio.ErrBufferFull {
			chunk, err = d.r.ReadSlice('\n')
			d.pending = append(d.pending, chunk...)
			if len(d.pending) > MaxLine {
				return nil, false, d.errorf("", "a line of at most %d bytes", MaxLine)
			}
		}
		chunk = d.pending
	}
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	if n := len(chunk); n > 0 && chunk[n-1] == '\n' {
		chunk, complete = chunk[:n-1], true
		if n := len(chunk); n > 0 && chunk[n-1] == '\r' {
			chunk = chunk[:n-1]
		}
		return chunk, true, nil
	}
	if len(chunk) == 0 {
		return nil, false, io.EOF
	}
	return chunk, false, nil
}

func (d *Decoder) decodeHeader(raw []byte) *FormatError {
	var magic struct {
		Trace string `json:"trace"`
	}
	if json.Unmarshal(raw, &magic) == nil && magic.Trace != Magic {
		return d.errorf("trace", "%q: the first line is the header, saying this is a residentlua trace", Magic)
	}
	if err := strictUnmarshal(raw, &d.header, headerField); err != nil {
		return d.jsonError(err, "the header line, a JSON object {\"trace\":\"residentlua\",\"version\":1,\"kinds\":[...]}")
	}
	h := &d.header
	switch {
	case h.Trace != Magic:
		return d.errorf("trace", "%q: the first line is the header, saying this is a residentlua trace", Magic)
	case h.Version != Version:
		return d.errorf("version", "%d, the version this validator reads (got %d)", Version, h.Version)
	case h.Clock != "" && h.Clock != "exact" && h.Clock != "real":
		return d.errorf("clock", `"exact" or "real" (got %q)`, h.Clock)
	case len(h.Kinds) == 0:
		return d.errorf("kinds", "the list of the kinds the recorder can see, one at least")
	}
	for _, k := range h.Kinds {
		if _, ok := kinds[k]; !ok {
			return d.errorf("kinds", "kinds of events, one of %s (got %q)", strings.Join(Kinds(), ", "), k)
		}
		d.kinds[k] = true
	}
	return nil
}

// strictUnmarshal decodes one JSON object into v, refusing fields that
// known does not name (json.Unmarshal would ignore them).
func strictUnmarshal(raw []byte, v any, known func(string) bool) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return err
	}
	if k, ok := unknownKey(raw, known); ok {
		return fmt.Errorf("json: unknown field %q", k)
	}
	return nil
}

// unknownKey is the first key of the JSON object raw (valid JSON) that
// known does not name.
func unknownKey(raw []byte, known func(string) bool) (string, bool) {
	depth, expectKey := 0, false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '{':
			depth++
			expectKey = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			start := i + 1
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
			if expectKey {
				expectKey = false
				if key := raw[start:i]; !known(string(key)) {
					return string(key), true
				}
			}
		}
	}
	return "", false
}

// eventField reports whether an event has the field name.
func eventField(name string) bool {
	switch name {
	case "time", "actor", "session", "kind", "line", "gpu", "npu", "participant", "result", "decision", "value",
		"buffer", "bytes", "private", "invocation", "reach", "timeout", "deadline", "retired", "devices",
		"buffers", "site", "own", "why":
		return true
	}
	return false
}

// headerField reports whether a header has the field name.
func headerField(name string) bool {
	switch name {
	case "trace", "version", "clock", "kinds", "recorder", "deadlines":
		return true
	}
	return false
}

var unknownField = regexp.MustCompile(`^json: unknown field "(.*)"$`)

// jsonError is a FormatError of a line JSON would not decode.
func (d *Decoder) jsonError(err error, whole string) *FormatError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if i := strings.LastIndexByte(field, '.'); i >= 0 {
			field = field[i+1:]
		}
		return d.errorf(field, "a value of type %s, not a JSON %s", jsonType(te.Type.String()), te.Value)
	}
	if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
		return d.errorf(m[1], "no such field: see docs/traces.md for the fields of each kind")
	}
	if errors.Is(err, errWord) {
		field := "decision"
		var probe struct {
			Decision json.RawMessage `json:"decision"`
		}
		if json.Unmarshal(d.raw, &probe) == nil && probe.Decision != nil {
			var w Word
			if w.UnmarshalJSON(probe.Decision) == nil {
				field = "value"
			}
		}
		return d.errorf(field, "%v", errWord)
	}
	return d.errorf("", "%s (%v)", whole, err)
}

// jsonType says a Go type as the JSON it is read from.
func jsonType(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "array of " + jsonType(t[2:])
	case strings.Contains(t, "uint"), t == "trace.Word":
		return "whole number (0 or more)"
	case strings.Contains(t, "int"):
		return "whole number"
	case t == "bool":
		return "true or false"
	}
	return t
}

// actorPattern is what an actor may be called.
var actorPattern = regexp.MustCompile(`^(host|gpu[0-9]*|npu[0-9]*)$`)

// isDevice reports whether actor names a device.
func isDevice(actor string) bool { return actor != "host" && actorPattern.MatchString(actor) }

// actorOK reports whether actor may name an actor, remembering those seen.
func (d *Decoder) actorOK(actor string) bool {
	if _, seen := d.last[actor]; seen {
		return true
	}
	return actorPattern.MatchString(actor)
}

// Next reads the next event into e (zeroed first). At the end of the
// trace it returns io.EOF. A line that is not an event is a *FormatError;
// Truncated when it is the last line and ends without a newline.
func (d *Decoder) Next(e *Event) error {
	raw, complete, err := d.readLine()
	if err != nil {
		return err
	}
	d.raw = raw
	if ferr := d.decodeEvent(raw, e); ferr != nil {
		if !complete {
			ferr.Truncated = true
		}
		return ferr
	}
	return nil
}

func (d *Decoder) decodeEvent(raw []byte, e *Event) *FormatError {
	*e = Event{}
	if err := strictUnmarshal(raw, e, eventField); err != nil {
		return d.jsonError(err, "an event, a JSON object with time, actor, kind and the kind's fields")
	}
	if e.Time == nil {
		return d.errorf("time", "the event's time in ns, a whole number")
	}
	if e.Kind == "" {
		return d.errorf("kind", "the kind of event, one of %s", strings.Join(Kinds(), ", "))
	}
	spec, ok := kinds[e.Kind]
	if !ok {
		return d.errorf("kind", "one of %s (got %q)", strings.Join(Kinds(), ", "), e.Kind)
	}
	if !d.kinds[e.Kind] {
		return d.errorf("kind", "a kind the header declares: %q is not in its kinds, so no invariant could be judged by it", e.Kind)
	}
	if !d.actorOK(e.Actor) {
		return d.errorf("actor", `"host" or a device ("gpu", "npu", "gpu1", ...) (got %q)`, e.Actor)
	}
	switch {
	case spec.by == byHost && e.Actor != "host":
		return d.errorf("actor", "\"host\": %s is the host's step (got %q)", e.Kind, e.Actor)
	case spec.by == byDevice && e.Actor == "host":
		return d.errorf("actor", "a device: %s is a device's step (got \"host\")", e.Kind)
	}
	if err := d.checkFields(e, spec); err != nil {
		return err
	}
	if last, ok := d.last[e.Actor]; ok && *e.Time < last {
		return d.errorf("time", "%d or later: the %s's events go back in time (its last was at %d); each actor's events are recorded in the order they happened", last, e.Actor, last)
	}
	d.last[e.Actor] = *e.Time
	return nil
}

// checkFields checks that e has the fields its kind needs, and that its
// words are the kind's.
func (d *Decoder) checkFields(e *Event, spec kindSpec) *FormatError {
	for _, f := range spec.need {
		if !has(e, f) {
			return d.errorf(f, "a value: a %s event gives its %s", e.Kind, f)
		}
	}
	if e.Participant != "" && e.Participant != "gpu" && e.Participant != "npu" {
		return d.errorf("participant", `"gpu" or "npu" (got %q)`, e.Participant)
	}
	if e.Result != "" && !slices.Contains(spec.results, e.Result) {
		return d.errorf("result", "one of %s for %s (got %q)", quoteAll(spec.results), e.Kind, e.Result)
	}
	for _, dev := range e.Devices {
		if !isDevice(dev) {
			return d.errorf("devices", `a device ("gpu", "npu", "gpu1", ...) (got %q)`, dev)
		}
	}
	if e.GPU != "" && (!isDevice(e.GPU) || !strings.HasPrefix(e.GPU, "gpu")) {
		return d.errorf("gpu", "a GPU (\"gpu\", \"gpu1\", ...) (got %q)", e.GPU)
	}
	if e.NPU != "" && (!isDevice(e.NPU) || !strings.HasPrefix(e.NPU, "npu")) {
		return d.errorf("npu", "an NPU (\"npu\", \"npu1\", ...) (got %q)", e.NPU)
	}
	if e.Kind == "join" && d.header.Deadlines && e.Deadline == nil {
		return d.errorf("deadline", "the join's deadline in ns: the header says every join carries one")
	}
	return nil
}

func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q, ", ")
}

// has reports whether e gives field f.
func has(e *Event, f string) bool {
	switch f {
	case "session":
		return e.Session != 0
	case "line":
		return e.Line != nil
	case "gpu":
		return e.GPU != ""
	case "npu":
		return e.NPU != ""
	case "participant":
		return e.Participant != ""
	case "result":
		return e.Result != ""
	case "decision":
		return e.Decision != nil
	case "value":
		return e.Value != nil
	case "buffer":
		return e.Buffer != nil
	case "bytes":
		return e.Bytes != nil
	case "invocation":
		return e.Invocation != nil
	case "timeout":
		return e.Timeout != nil
	case "retired":
		return e.Retired != nil
	case "site":
		return e.Site != ""
	}
	return false
}
