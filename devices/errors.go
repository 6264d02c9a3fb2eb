package devices

import (
	"fmt"
	"strings"
)

// ErrorKind classifies an error so callers can match it with errors.Is.
type ErrorKind uint8

// The kinds of error the hardware model and the protocol return.
const (
	// KindUnsupported: the devices or memory cannot do what was asked.
	KindUnsupported ErrorKind = iota + 1
	// KindBusy: the operation is not allowed in the current state.
	KindBusy
	// KindDevice: a device rejected a dispatch or failed while running.
	KindDevice
	// KindPublish: a host-release publication failed.
	KindPublish
	// KindBudget: the memory budget is exhausted.
	KindBudget
	// KindInvalid: an argument was bad.
	KindInvalid
)

var kindNames = [...]string{KindUnsupported: "unsupported", KindBusy: "busy", KindDevice: "device", KindPublish: "publish", KindBudget: "budget", KindInvalid: "invalid"}

// String is the kind's lower-case name ("busy", "device", ...).
func (k ErrorKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Error is an error of a known kind: what happened and what to do.
type Error struct {
	Kind    ErrorKind
	Op      string // the operation that failed, such as "dispatch" or "start"
	Message string
	cause   error // what Errorf's %w verbs wrapped, if any
	// text is Error's "<kind>: <message>", when Errorf formatted it whole
	// (Message is its tail); empty otherwise.
	text string
}

// Error formats the error as "<kind>: <message>".
func (e *Error) Error() string {
	if kind := e.Kind.String(); len(e.text) == len(kind)+2+len(e.Message) && e.text[len(kind)+2:] == e.Message && e.text[:len(kind)] == kind {
		return e.text // unless the fields were changed since
	}
	return e.Kind.String() + ": " + e.Message
}

// Unwrap is the lower error the message was made from (Errorf's %w), so
// that errors.Is and errors.As follow the chain to it; nil when none.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is the sentinel of the same kind, so that
// errors.Is(err, devices.ErrBusy) matches every Busy error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == sentinelOp && t.Kind == e.Kind
}

const sentinelOp = "<kind>"

func sentinel(k ErrorKind) *Error {
	return &Error{Kind: k, Op: sentinelOp, Message: "any " + k.String() + " error"}
}

// Sentinels for errors.Is, one per kind.
var (
	ErrUnsupported = sentinel(KindUnsupported)
	ErrBusy        = sentinel(KindBusy)
	ErrDevice      = sentinel(KindDevice)
	ErrPublish     = sentinel(KindPublish)
	ErrBudget      = sentinel(KindBudget)
	ErrInvalid     = sentinel(KindInvalid)
)

// Errorf makes an Error of kind k for operation op. As with fmt.Errorf, a
// %w verb formats an error argument and wraps it: Unwrap returns it.
func Errorf(k ErrorKind, op, format string, args ...any) *Error {
	if len(args) == 0 && !strings.Contains(format, "%") {
		return Fixed(k, op, format) // what fmt would make of it, without fmt
	}
	// The message is formatted once, after "<kind>: ", so that Error (which
	// the engine calls for the detail of nearly every error's event) need
	// not concatenate them again.
	var buf [256]byte
	b := append(append(buf[:0], k.String()...), ": "...)
	e := &Error{Kind: k, Op: op}
	if strings.Contains(format, "%w") {
		e.cause = fmt.Errorf(format, args...)
		b = append(b, e.cause.Error()...)
	} else {
		b = appendMessage(b, format, args)
	}
	e.text = string(b)
	e.Message = e.text[len(k.String())+2:]
	return e
}

// Fixed is an Error of kind k for operation op with message as it is (no
// verbs), its text made at once, without fmt: for an error kept in a
// variable and returned again and again, so that neither returning it nor
// its Error allocates, and for messages the caller concatenated on a path
// that campaigns run by the thousand. Nobody may change its fields.
func Fixed(k ErrorKind, op, message string) *Error {
	return errorText(k, op, k.String()+": "+message)
}

// errorText is Fixed for a text the caller concatenated whole, kind
// included ("<kind>: <message>"), in one allocation.
func errorText(k ErrorKind, op, text string) *Error {
	return &Error{Kind: k, Op: op, Message: text[len(k.String())+2:], text: text}
}

// appendMessage appends the message format and args make. It takes args
// as a slice, not forwarded as args..., so that go vet's printf check takes
// Errorf for the fmt.Errorf wrapper it is (%w allowed), not an Appendf one.
func appendMessage(b []byte, format string, args []any) []byte {
	return fmt.Appendf(b, format, args...)
}
