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
