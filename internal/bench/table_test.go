package bench

import (
	"strings"
	"testing"
)

// Options.Only names groups of the table; a name that is not one is an
// error that lists them.
func TestOnlySelectsGroups(t *testing.T) {
	want, err := Options{Only: []string{"model", "wait"}}.selected()
	if err != nil || !want["model"] || !want["wait"] || want["trials"] {
		t.Errorf("Only model,wait selects %v, %v", want, err)
	}
	all, err := Options{}.selected()
	if err != nil || len(all) != len(Groups()) {
		t.Errorf("no Only selects %v, %v; want every group", all, err)
	}
	for _, g := range Groups() {
		if !all[g] {
			t.Errorf("no Only leaves out %q", g)
		}
	}
	if _, err := (Options{Only: []string{"speed"}}).selected(); err == nil || !strings.Contains(err.Error(), `no group of figures is named "speed"; the groups are wait, lua,`) {
		t.Errorf("Only speed = %v; want an error listing the groups", err)
	}
}
