package devices

import (
	"errors"
	"io/fs"
	"testing"
)

func TestErrorWrapsItsCause(t *testing.T) {
	// Errorf's %w keeps the lower error, so errors.Is and errors.As follow
	// the chain through the kind to it; %v does not.
	cause := &fs.PathError{Op: "open", Path: "/dev/x", Err: fs.ErrNotExist}
	err := Errorf(KindDevice, "alloc", "pinned memory: %w", cause)
	if err.Error() != "device: pinned memory: open /dev/x: file does not exist" {
		t.Errorf("message %q", err.Error())
	}
	var pe *fs.PathError
	if !errors.Is(err, KindDevice) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe != cause || err.Err != cause {
		t.Errorf("errors.Is/As do not reach the cause through %v", err)
	}
	if plain := Errorf(KindDevice, "alloc", "pinned memory: %v", cause); errors.Is(plain, fs.ErrNotExist) || plain.Unwrap() != nil {
		t.Errorf("%%v wrapped its argument: %v", plain)
	}
}

// An error matches its own kind with errors.Is, wrapped or not, and no
// other kind; errors.As finds the kind itself.
func TestErrorsIsMatchesTheKind(t *testing.T) {
	kinds := []ErrorKind{KindUnsupported, KindBusy, KindDevice, KindPublish, KindBudget, KindInvalid, KindStale}
	for _, k := range kinds {
		err := error(Errorf(k, "op", "it went wrong"))
		for _, e := range []error{err, fmtWrap(err)} {
			for _, other := range kinds {
				if got := errors.Is(e, other); got != (other == k) {
					t.Errorf("errors.Is(%v, %v) = %v, want %v", e, other, got, other == k)
				}
			}
			var kind ErrorKind
			if !errors.As(e, &kind) || kind != k {
				t.Errorf("errors.As(%v) found kind %v, want %v", e, kind, k)
			}
		}
	}
}

func fmtWrap(err error) error { return errors.Join(errors.New("context"), err) }

// Error is "<kind>: <message>", made from the fields when it is asked
// for, for every way Errorf makes an error, and follows the fields when
// they change: no two errors share anything a caller can change.
func TestErrorTextFollowsFields(t *testing.T) {
	for _, e := range []*Error{
		Errorf(KindBusy, "start", "session is closed"),
		Errorf(KindBudget, "alloc", "%d bytes over a budget of %d", 64, 1024),
		Errorf(KindDevice, "alloc", "pinned memory: %w", fs.ErrNotExist),
	} {
		if want := e.Kind.String() + ": " + e.Message; e.Error() != want {
			t.Errorf("Error() = %q, want %q", e.Error(), want)
		}
		e.Message += " (changed)"
		if want := e.Kind.String() + ": " + e.Message; e.Error() != want {
			t.Errorf("after Message changed: Error() = %q, want %q", e.Error(), want)
		}
		e.Kind = KindInvalid
		if want := "invalid: " + e.Message; e.Error() != want {
			t.Errorf("after Kind changed: Error() = %q, want %q", e.Error(), want)
		}
	}
	if e := Errorf(KindBudget, "alloc", "%d bytes over a budget of %d", 64, 1024); e.Message != "64 bytes over a budget of 1024" {
		t.Errorf("Message = %q", e.Message)
	}
	a, b := Errorf(KindBusy, "start", "no"), Errorf(KindBusy, "start", "no")
	if a == b {
		t.Error("Errorf returned one error twice")
	}
}

// Every kind's name parses back to the kind; a name no kind has does not.
func TestParseErrorKindInvertsString(t *testing.T) {
	for _, k := range []ErrorKind{KindUnsupported, KindBusy, KindDevice, KindPublish, KindBudget, KindInvalid, KindStale} {
		if got, ok := ParseErrorKind(k.String()); !ok || got != k {
			t.Errorf("ParseErrorKind(%q) = %v, %v; want %v", k.String(), got, ok, k)
		}
	}
	for _, name := range []string{"", "kind(0)", "Busy", "stale "} {
		if k, ok := ParseErrorKind(name); ok {
			t.Errorf("ParseErrorKind(%q) = %v; want no kind", name, k)
		}
	}
}
