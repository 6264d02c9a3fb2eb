package luaapi

import (
	"strings"
	"testing"
)

// TestFunctionsAfterClose calls every module function after Module.Close:
// those luamodule does not mark AfterClose raise the closed module's busy
// error before reading their arguments; the others do not raise it.
func TestFunctionsAfterClose(t *testing.T) {
	h := sim(t)
	h.run(`s = startup{}`)
	h.m.Close()
	closed := errClosed.Error()
	for _, f := range functions {
		h.run(`ok, err = pcall(resident.` + f.Name + `, s, 1)`)
		got := h.str("not ok and err")
		if !f.AfterClose && got != closed {
			t.Errorf("resident.%s after Close: %s, want %q", f.Name, got, closed)
		}
		if f.AfterClose && got == closed {
			t.Errorf("resident.%s after Close: %s, though it only reads", f.Name, got)
		}
	}
	if got := h.str("s.state") + " " + h.str("s"); !strings.HasPrefix(got, "closed session 1 (closed, ") {
		t.Errorf("a session's fields and tostring after Close: %s", got)
	}
}
