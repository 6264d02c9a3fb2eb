package timing

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
)

// Each profile is found by its name; another name is an invalid error
// that names both.
func TestProfileByName(t *testing.T) {
	for name, want := range map[string]program.Timing{"ideal": Ideal(), "published": Published()} {
		if got, err := Profile(name); err != nil || got != want {
			t.Errorf("Profile(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if Ideal() != (program.Timing{}) || Published().AQLDispatch != 5*time.Microsecond {
		t.Errorf("ideal is %v and published %v; want no latency, and 5µs AQL dispatch", Ideal(), Published())
	}
	_, err := Profile("fast")
	if !errors.Is(err, failure.Invalid) || !strings.Contains(err.Error(), `"ideal" or "published"`) {
		t.Errorf("Profile(\"fast\") = %v; want an invalid error naming the profiles", err)
	}
}

// Figure reaches every figure of the timing by its name, and refuses
// another name with the list of figures.
func TestFigureByName(t *testing.T) {
	tm := Published()
	for _, name := range program.TimingFigures {
		d, err := Figure(&tm, name)
		if err != nil {
			t.Fatalf("Figure(%q): %v", name, err)
		}
		*d = 7 * time.Second
	}
	for _, name := range program.TimingFigures {
		if d, _ := tm.Figure(name); *d != 7*time.Second {
			t.Errorf("after setting %s through Figure it is %v", name, *d)
		}
	}
	if _, err := Figure(&tm, "dispatch"); !errors.Is(err, failure.Invalid) || !strings.Contains(err.Error(), "aql_dispatch") {
		t.Errorf("Figure(\"dispatch\") = %v; want an invalid error listing the figures", err)
	}
}
