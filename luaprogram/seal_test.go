package luaprogram_test

import (
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/luaprogram"
)

// printsPerSession runs sessions sessions of gpu (with an NPU that only
// awaits the decision) on one fabric and returns what gpu printed in each.
func printsPerSession(t *testing.T, gpu string, sessions int) []string {
	t.Helper()
	var out strings.Builder
	g, err := luaprogram.Compile("=gpu", gpu, luaprogram.Options{Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	n, err := luaprogram.Compile("=npu", "return function(p) while p:load(p.startup, 0) == p.WAIT do end end", luaprogram.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pair := luaprogram.Pair{GPU: g, NPU: n}
	var each []string
	for range sessions {
		out.Reset()
		s := luaprogram.RunSession(t, f, pair)
		if o := s.CloseWithin(t.Context(), 0); o != engine.Retired {
			t.Fatalf("closed %v", o)
		}
		each = append(each, out.String())
	}
	return each
}

// TestEachInvocationRunsTheChunkAfresh checks what a fresh run of the
// chunk for each invocation shows, where the runtime may give an
// invocation the functions of the last run instead: a top-level print is
// printed by every invocation, a top-level random number is each
// invocation's own, and a table a top-level local holds is fresh.
func TestEachInvocationRunsTheChunkAfresh(t *testing.T) {
	const sessions = 6
	for _, c := range []struct{ name, gpu string }{
		{"print", `print("chunk") return function(p) end`},
		{"random", `local r = math.random(1000000) return function(p) print(r) end`},
		{"table", `local t = {n = 0} return function(p) t.n = t.n + 1 print(t.n) end`},
		{"upvalue", `local n = 0 return function(p) n = n + 1 print(n) end`},
	} {
		each := printsPerSession(t, c.gpu, sessions)
		distinct := map[string]bool{}
		for i, out := range each {
			distinct[out] = true
			switch c.name {
			case "print":
				if out != "chunk\n" {
					t.Errorf("%s: session %d printed %q, want the chunk's print", c.name, i+1, out)
				}
			case "table", "upvalue":
				if out != "1\n" {
					t.Errorf("%s: session %d printed %q, want 1: a fresh top-level local", c.name, i+1, out)
				}
			}
		}
		if c.name == "random" && len(distinct) < sessions/2 {
			t.Errorf("random: %d sessions drew %d distinct top-level numbers (%q): each invocation's chunk draws from its own seed", sessions, len(distinct), each)
		}
	}
}
