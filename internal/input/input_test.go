package input

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileRefusesAnEndlessInput(t *testing.T) {
	_, err := ReadFile("/dev/zero", LuaSource)
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("ReadFile(/dev/zero) = %v, want a *TooLargeError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "larger than 4 MiB, the limit on a Lua source") || !strings.Contains(msg, "io.open") {
		t.Errorf("message %q does not say the limit and what to do", msg)
	}
}

func TestReadFileReadsUpToTheLimit(t *testing.T) {
	k := Kind{What: "a test input", Limit: 10, Hint: "make it shorter"}
	dir := t.TempDir()
	at, over := filepath.Join(dir, "at"), filepath.Join(dir, "over")
	if err := os.WriteFile(at, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, []byte("0123456789A"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(at, k); err != nil || string(b) != "0123456789" {
		t.Errorf("ReadFile(10 bytes) = %q, %v", b, err)
	}
	_, err := ReadFile(over, k)
	if want := "it is larger than 10 bytes, the limit on a test input (make it shorter)"; err == nil || err.Error() != want {
		t.Errorf("ReadFile(11 bytes) = %v, want %q", err, want)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), k); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want not-exist", err)
	}
	var pe *os.PathError
	if _, err := ReadFile(dir, k); !errors.As(err, &pe) {
		t.Errorf("ReadFile(a directory) = %v, want an *os.PathError", err)
	}
}
