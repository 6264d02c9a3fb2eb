package luaapi

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
)

// syncBuffer is a bytes.Buffer safe for the writes of several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness is a Lua state with the module open on a simulated fabric.
type harness struct {
	t      testing.TB
	L      *lua.LState
	m      *Module
	stdout *syncBuffer
	stderr *syncBuffer
}

const testSeed = 42

// simConfig is the fabric every test starts from: simulated time, a fixed seed.
func simConfig() devices.Config { return devices.Config{Mode: devices.Simulated, Seed: testSeed} }

func newHarness(t testing.TB, opts Options) *harness {
	t.Helper()
	h := &harness{t: t, L: lua.NewState(), stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	if opts.Config.Mode == 0 && opts.Config.Seed == 0 && opts.Fabric == nil {
		opts.Config = simConfig()
	}
	opts.Stdout, opts.Stderr = h.stdout, h.stderr
	m, err := Open(h.L, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	h.m = m
	t.Cleanup(func() {
		h.m.Close()
		h.L.Close()
		for _, v := range h.m.Violations() {
			t.Errorf("oracle violation: %v", v)
		}
	})
	return h
}

// sim is a harness with the globals set, on the default simulated fabric.
func sim(t testing.TB) *harness { return newHarness(t, Options{Globals: true}) }

// run runs code and fails the test on error.
func (h *harness) run(code string) {
	h.t.Helper()
	if err := h.L.DoString(code); err != nil {
		h.t.Fatalf("running %q: %v", code, err)
	}
}

// eval runs `return <expr>` and returns the value.
func (h *harness) eval(expr string) lua.LValue {
	h.t.Helper()
	if err := h.L.DoString("return " + expr); err != nil {
		h.t.Fatalf("evaluating %q: %v", expr, err)
	}
	v := h.L.Get(-1)
	h.L.Pop(1)
	return v
}

// str evaluates expr to its tostring.
func (h *harness) str(expr string) string {
	h.t.Helper()
	return h.eval("tostring(" + expr + ")").String()
}

// fails runs code and returns the error's message as tostring renders it.
func (h *harness) fails(code string) string {
	h.t.Helper()
	err := h.L.DoString(code)
	if err == nil {
		h.t.Fatalf("running %q: no error", code)
	}
	if strings.Contains(err.Error(), internalError) {
		h.t.Fatalf("running %q: a Go panic: %v", code, err)
	}
	return ErrorString(err)
}
