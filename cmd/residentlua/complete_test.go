package main

import (
	"io"
	"slices"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/internal/luamodule"
	"github.com/residentlua/residentlua/luaapi"
)

func TestCompleter(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	m, err := luaapi.Open(L, luaapi.Options{Config: devices.Config{Mode: devices.Simulated, Seed: 1}, Globals: true, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := L.DoString(`s = startup{}; nested = {inner = {leaf = 1, fn = print}}; proxy = setmetatable({}, {__index = {via = 1}})`); err != nil {
		t.Fatal(err)
	}
	c := newCompleter(L)
	for _, tc := range []struct {
		line       string
		pos        int // -1: the end
		head, tail string
		want       []string // all of them, in order
		has        []string // among others
	}{
		{line: "resident.budg", pos: -1, want: []string{"resident.budget"}},
		{line: "resident.fa", pos: -1, want: []string{"resident.fabric", "resident.fault", "resident.faults"}},
		{line: "x = resident.quar", pos: -1, head: "x = ", want: []string{"resident.quarantined"}},
		{line: "pri", pos: -1, want: []string{"print"}},
		{line: "wh", pos: -1, want: []string{"while"}},
		{line: "sta", pos: -1, want: []string{"start", "startup"}},
		{line: "s:is_c", pos: -1, want: []string{"s:is_complete"}},
		{line: "s:", pos: -1, want: prefixed("s:", luamodule.SessionMethods())},
		{line: "s.", pos: -1, want: prefixed("s.", append(luamodule.SessionMethods(), luamodule.SessionFields()...))},
		{line: "resident.", pos: -1, want: prefixed("resident.", luamodule.Names())},
		{line: "s.st", pos: -1, want: []string{"s.start", "s.state", "s.stats"}},
		{line: "print(nested.inner.l)", pos: 20, head: "print(", tail: ")", want: []string{"nested.inner.leaf"}},
		{line: "nested.inner:", pos: -1, want: []string{"nested.inner:fn"}},
		{line: "proxy.v", pos: -1, want: []string{"proxy.via"}},
		{line: "nosuch.x", pos: -1},
		{line: "s:close():x", pos: -1, head: "s:close()"},
		{line: "1 + ", pos: -1, head: "1 + ", has: []string{"resident", "print", "and"}},
	} {
		pos := tc.pos
		if pos < 0 {
			pos = len(tc.line)
		}
		head, got, tail := c.complete(tc.line, pos)
		if head != tc.head || tail != tc.tail {
			t.Errorf("%q: head %q tail %q, want %q %q", tc.line, head, tail, tc.head, tc.tail)
		}
		if tc.has != nil {
			for _, h := range tc.has {
				if !slices.Contains(got, h) {
					t.Errorf("%q: %v lacks %q", tc.line, got, h)
				}
			}
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.line, got, tc.want)
		}
	}
	for _, f := range luamodule.Functions() {
		if _, got, _ := c.complete(f.Name, len(f.Name)); slices.Contains(got, f.Name) != f.Global {
			t.Errorf("%q completes to %v at the top level; a global: %v", f.Name, got, f.Global)
		}
	}
	// Completion runs no method and changes nothing.
	if err := L.DoString(`assert(s.state == "undecided")`); err != nil {
		t.Error(err)
	}
}

// prefixed is names, sorted, each after prefix.
func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	slices.Sort(out)
	return out
}
