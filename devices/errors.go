package devices

import (
	"fmt"
	"strings"
)

// ErrorKind classifies an error. A kind is itself an error value, so that
// errors.Is(err, KindBusy) matches every Busy error, however it was
// wrapped, and errors.As(err, &kind) finds the kind.
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
	// KindStale: a handle (a buffer, a prepared program, a completion,
	// the engine's session, ...) was used after the fabric that made it
	// was renewed (Fabric.Renew); it did nothing.
	KindStale
)

var kindNames = [...]string{KindUnsupported: "unsupported", KindBusy: "busy", KindDevice: "device", KindPublish: "publish", KindBudget: "budget", KindInvalid: "invalid", KindStale: "stale"}

// String is the kind's lower-case name ("busy", "device", ...).
func (k ErrorKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseErrorKind is the kind whose String is name; ok is false for a name
// no kind has.
func ParseErrorKind(name string) (k ErrorKind, ok bool) {
	for k := range kindNames {
		if kindNames[k] != "" && kindNames[k] == name {
			return ErrorKind(k), true
		}
	}
	return 0, false
}

// Error is the kind's name, as String: a kind is the error that
// errors.Is matches every error of that kind against.
func (k ErrorKind) Error() string { return k.String() }

// Error is an error of a known kind, in the shape of os.PathError: what
// happened and what to do, its text made when it is asked for.
type Error struct {
	Kind    ErrorKind
	Op      string // the operation that failed, such as "dispatch" or "start"
	Message string // what happened and what to do
	// Err is the lower error the message reports, if any (what Errorf's
	// %w verb wrapped); errors.Is and errors.As follow the chain to it.
	Err error
}

// Error formats the error as "<kind>: <message>".
func (e *Error) Error() string { return e.Kind.String() + ": " + e.Message }

// Unwrap is Err.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's kind, so that errors.Is(err, KindBusy)
// matches every Busy error.
func (e *Error) Is(target error) bool {
	k, ok := target.(ErrorKind)
	return ok && k == e.Kind
}

// As sets *target to e's kind when target is an *ErrorKind, so that
// errors.As(err, &kind) finds the kind of the first Error in err's chain.
func (e *Error) As(target any) bool {
	k, ok := target.(*ErrorKind)
	if ok {
		*k = e.Kind
	}
	return ok
}

// Errorf makes an Error of kind k for operation op, its message made as
// fmt.Sprintf makes it. A %w verb formats an error argument and wraps it,
// as with fmt.Errorf: Err is that error.
func Errorf(k ErrorKind, op, format string, args ...any) *Error {
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
