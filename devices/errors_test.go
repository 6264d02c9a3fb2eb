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
	if !errors.Is(err, ErrDevice) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe != cause {
		t.Errorf("errors.Is/As do not reach the cause through %v", err)
	}
	if plain := Errorf(KindDevice, "alloc", "pinned memory: %v", cause); errors.Is(plain, fs.ErrNotExist) || plain.Unwrap() != nil {
		t.Errorf("%%v wrapped its argument: %v", plain)
	}
}

// TestErrorTextFollowsFields checks that Error is "<kind>: <message>" for
// every way Errorf makes an error, and still is after the fields change.
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
}
