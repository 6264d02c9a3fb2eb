package luaapi

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// resident.validate reports a truncated trace, refuses what is not a file
// name or cannot be read, and is refused in a sandboxed state.
func TestValidateFunction(t *testing.T) {
	h := newHarness(t, Options{Globals: true})
	trace, err := os.ReadFile("../examples/traces/hello.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(cut, trace[:len(trace)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	h.run(`r = resident.validate(` + strconv.Quote(cut) + `)`)
	if got := h.str("r.ok"); got != "false" {
		t.Errorf("a truncated trace: ok = %s", got)
	}
	if got := h.str("r.truncated"); !strings.Contains(got, "truncated") || !strings.Contains(got, "cut.jsonl:") {
		t.Errorf("truncated = %q", got)
	}
	if got := h.str("#r.violations"); got != "0" {
		t.Errorf("violations before the cut: %s", got)
	}
	if msg := h.fails(`resident.validate()`); !strings.Contains(msg, "bad argument #1 to 'validate' (string expected, got no value)") {
		t.Errorf("no argument: %s", msg)
	}
	if msg := h.fails(`resident.validate("../examples/traces/hello.jsonl", 3)`); !strings.Contains(msg, "bad argument #2 to 'validate' (string expected, got number)") {
		t.Errorf("a number: %s", msg)
	}
	if msg := h.fails(`resident.validate("no/such/trace.jsonl")`); !strings.HasPrefix(msg, "invalid: ") || !strings.Contains(msg, "no/such/trace.jsonl") {
		t.Errorf("a missing file: %s", msg)
	}
	sandboxed := newHarness(t, Options{Globals: true, Sandbox: true})
	if msg := sandboxed.fails(`resident.validate("x.jsonl")`); !strings.HasPrefix(msg, "unsupported: ") {
		t.Errorf("sandboxed: %s", msg)
	}
}
