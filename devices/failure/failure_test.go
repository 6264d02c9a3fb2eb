package failure

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestErrorWrapsItsCause(t *testing.T) {
	// Errorf's %w keeps the lower error, so errors.Is and errors.As follow
	// the chain through the kind to it; %v does not.
	cause := &fs.PathError{Op: "open", Path: "/dev/x", Err: fs.ErrNotExist}
	err := Errorf(Device, "alloc", "pinned memory: %w", cause)
	if err.Error() != "device: alloc: pinned memory: open /dev/x: file does not exist" {
		t.Errorf("message %q", err.Error())
	}
	var pe *fs.PathError
	if !errors.Is(err, Device) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe != cause || err.Err != cause {
		t.Errorf("errors.Is/As do not reach the cause through %v", err)
	}
	if plain := Errorf(Device, "alloc", "pinned memory: %v", cause); errors.Is(plain, fs.ErrNotExist) || plain.Unwrap() != nil {
		t.Errorf("%%v wrapped its argument: %v", plain)
	}
}

// An error matches its own kind with errors.Is, wrapped or not, and no
// other kind; errors.As finds the kind itself.
func TestErrorsIsMatchesTheKind(t *testing.T) {
	kinds := []Kind{Unsupported, Busy, Device, Publish, Budget, Invalid, Stale}
	for _, k := range kinds {
		err := error(Errorf(k, "op", "it went wrong"))
		for _, e := range []error{err, fmtWrap(err)} {
			for _, other := range kinds {
				if got := errors.Is(e, other); got != (other == k) {
					t.Errorf("errors.Is(%v, %v) = %v, want %v", e, other, got, other == k)
				}
			}
			var kind Kind
			if !errors.As(e, &kind) || kind != k {
				t.Errorf("errors.As(%v) found kind %v, want %v", e, kind, k)
			}
		}
	}
}

func fmtWrap(err error) error { return errors.Join(errors.New("context"), err) }

// Error is "<kind>: <op>: <message>", made from the fields when it is
// asked for, for every way Errorf makes an error, and follows the fields
// when they change: no two errors share anything a caller can change.
// Without an op it is "<kind>: <message>".
func TestErrorTextFollowsFields(t *testing.T) {
	for _, e := range []*Error{
		Errorf(Busy, "start", "session is closed"),
		Errorf(Budget, "alloc", "%d bytes over a budget of %d", 64, 1024),
		Errorf(Device, "alloc", "pinned memory: %w", fs.ErrNotExist),
	} {
		if want := e.Kind.String() + ": " + e.Op + ": " + e.Message; e.Error() != want {
			t.Errorf("Error() = %q, want %q", e.Error(), want)
		}
		e.Message += " (changed)"
		if want := e.Kind.String() + ": " + e.Op + ": " + e.Message; e.Error() != want {
			t.Errorf("after Message changed: Error() = %q, want %q", e.Error(), want)
		}
		e.Kind = Invalid
		if want := "invalid: " + e.Op + ": " + e.Message; e.Error() != want {
			t.Errorf("after Kind changed: Error() = %q, want %q", e.Error(), want)
		}
		e.Op = "other"
		if want := "invalid: other: " + e.Message; e.Error() != want {
			t.Errorf("after Op changed: Error() = %q, want %q", e.Error(), want)
		}
		e.Op = ""
		if want := "invalid: " + e.Message; e.Error() != want {
			t.Errorf("without an op: Error() = %q, want %q", e.Error(), want)
		}
	}
	if got := Errorf(Busy, "start", "session %d is closed", 3).Error(); got != "busy: start: session 3 is closed" {
		t.Errorf("Error() = %q, want the kind, the op and the message", got)
	}
	if e := Errorf(Budget, "alloc", "%d bytes over a budget of %d", 64, 1024); e.Message != "64 bytes over a budget of 1024" {
		t.Errorf("Message = %q", e.Message)
	}
	a, b := Errorf(Busy, "start", "no"), Errorf(Busy, "start", "no")
	if a == b {
		t.Error("Errorf returned one error twice")
	}
}

// Every kind's name parses back to the kind; a name no kind has does not.
func TestParseKindInvertsString(t *testing.T) {
	for _, k := range []Kind{Unsupported, Busy, Device, Publish, Budget, Invalid, Stale} {
		if got, ok := ParseKind(k.String()); !ok || got != k {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", k.String(), got, ok, k)
		}
	}
	for _, name := range []string{"", "kind(0)", "Busy", "stale "} {
		if k, ok := ParseKind(name); ok {
			t.Errorf("ParseKind(%q) = %v; want no kind", name, k)
		}
	}
}

func TestDetailLeavesTheOpOut(t *testing.T) {
	err := Errorf(Device, "complete", "gpu completion reported an error: injected")
	if got := Detail(err); got != "device: gpu completion reported an error: injected" {
		t.Errorf("Detail %q", got)
	}
	if got := Detail(&Error{Kind: Busy, Message: "no op"}); got != "busy: no op" {
		t.Errorf("Detail without op %q", got)
	}
	// A wrapped Error keeps its whole text, op included.
	wrapped := fmt.Errorf("session 3: %w", err)
	if got := Detail(wrapped); got != wrapped.Error() {
		t.Errorf("Detail of a wrapped error %q, want %q", got, wrapped.Error())
	}
}
