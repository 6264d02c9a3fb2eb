package luamodule

import (
	"slices"
	"testing"
)

// TestFunctions checks the shape of the list: names are unique, each has a
// summary, and the session's methods and fields do not share a name.
func TestFunctions(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Functions() {
		if seen[f.Name] {
			t.Errorf("%s is listed twice", f.Name)
		}
		seen[f.Name] = true
		if f.Summary == "" {
			t.Errorf("%s has no summary", f.Name)
		}
	}
	for _, field := range SessionFields() {
		if slices.Contains(SessionMethods(), field) {
			t.Errorf("%s is both a session's method and its field", field)
		}
	}
	if len(Names()) != len(seen) || len(SessionMethods()) == 0 || !slices.IsSorted(SessionMethods()) {
		t.Errorf("Names %v, SessionMethods %v", Names(), SessionMethods())
	}
}
