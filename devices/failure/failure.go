// Package failure is the error of the hardware model and the protocol: an
// Error of a Kind (busy, device, invalid, stale, ...), for an operation, with
// a message that says what happened and what to do. Every layer that makes
// or classifies such errors (devices, the engine, the Lua API, backends)
// shares it; errors.Is(err, failure.Busy) matches an error of a kind,
// however it was wrapped.
package failure

import (
	"fmt"
	"strings"
)

// Kind classifies an error. A kind is itself an error value, so that
// errors.Is(err, Busy) matches every Busy error, however it was
// wrapped, and errors.As(err, &kind) finds the kind.
type Kind uint8

// The kinds of error the hardware model and the protocol return.
const (
	// Unsupported: the devices or memory cannot do what was asked.
	Unsupported Kind = iota + 1
	// Busy: the operation is not allowed in the current state.
	Busy
	// Device: a device rejected a dispatch or failed while running.
	Device
	// Publish: a host-release publication failed.
	Publish
	// Budget: the memory budget is exhausted.
	Budget
	// Invalid: an argument was bad.
	Invalid
	// Stale: a handle (a buffer, a prepared program, a completion,
	// the engine's session, ...) was used after the fabric that made it
	// was renewed (Fabric.Renew); it did nothing.
	Stale
)

var kindNames = [...]string{Unsupported: "unsupported", Busy: "busy", Device: "device", Publish: "publish", Budget: "budget", Invalid: "invalid", Stale: "stale"}

// String is the kind's lower-case name ("busy", "device", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind is the kind whose String is name; ok is false for a name
// no kind has.
func ParseKind(name string) (k Kind, ok bool) {
	for k := range kindNames {
		if kindNames[k] != "" && kindNames[k] == name {
			return Kind(k), true
		}
	}
	return 0, false
}

// Error is the kind's name, as String: a kind is the error that
// errors.Is matches every error of that kind against.
func (k Kind) Error() string { return k.String() }

// Error is an error of a known kind, in the shape of os.PathError: the
// operation that failed, what happened and what to do, its text
// ("<kind>: <op>: <message>") made when it is asked for.
type Error struct {
	Kind    Kind
	Op      string // the operation that failed, such as "dispatch" or "start"
	Message string // what happened and what to do
	// Err is the lower error the message reports, if any (what Errorf's
	// %w verb wrapped); errors.Is and errors.As follow the chain to it.
	Err error
}

// Error formats the error as "<kind>: <op>: <message>", or as
// "<kind>: <message>" when Op is empty, so that its reader can tell which
// operation failed.
func (e *Error) Error() string {
	if e.Op == "" {
		return e.Kind.String() + ": " + e.Message
	}
	return e.Kind.String() + ": " + e.Op + ": " + e.Message
}

// Detail is err's text as an event's detail: "<kind>: <message>" for a
// *Error (not one wrapped in another error, whose text stays whole), and
// err.Error() for any other error. It leaves the op out: the event's kind
// already names the operation, and so the recorded traces and the
// campaigns' digests keep the text they had before Error printed its op.
func Detail(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Kind.String() + ": " + e.Message
	}
	return err.Error()
}

// Unwrap is Err.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's kind, so that errors.Is(err, Busy)
// matches every Busy error.
func (e *Error) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.Kind
}

// As sets *target to e's kind when target is a *Kind, so that
// errors.As(err, &kind) finds the kind of the first Error in err's chain.
func (e *Error) As(target any) bool {
	k, ok := target.(*Kind)
	if ok {
		*k = e.Kind
	}
	return ok
}

// Errorf makes an Error of kind k for operation op, its message made as
// fmt.Sprintf makes it; the Error's text is "<kind>: <op>: <message>". op
// is a short operation name ("dispatch", "alloc", ...), which the message
// need not repeat. A %w verb formats an error argument and wraps it, as
// with fmt.Errorf: Err is that error.
func Errorf(k Kind, op, format string, args ...any) *Error {
	e := &Error{Kind: k, Op: op}
	if !strings.Contains(format, "%w") {
		e.Message = message(format, args)
		return e
	}
	wrapped := fmt.Errorf(format, args...)
	e.Message, e.Err = wrapped.Error(), wrapped
	if one, ok := wrapped.(interface{ Unwrap() error }); ok {
		e.Err = one.Unwrap() // the argument itself, not fmt's wrapper of it
	}
	return e
}

// message is what format and args make. It takes args as a slice, not
// forwarded as args..., so that go vet's printf check takes Errorf for the
// fmt.Errorf wrapper it is (%w allowed), not a Sprintf one.
func message(format string, args []any) string {
	if len(args) == 0 && !strings.Contains(format, "%") {
		return format
	}
	return fmt.Sprintf(format, args...)
}
