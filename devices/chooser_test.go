package devices_test

import (
	"errors"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/choice"
	"github.com/residentlua/residentlua/devices/failure"
)

// firstChooser takes the first alternative of every choice.
type firstChooser struct{ kinds map[choice.Kind]int }

func (c *firstChooser) Choose(ch choice.Choice) int {
	c.kinds[ch.Kind]++
	return 0
}

// TestChooserNeedsSimulatedTime refuses a chooser in real time, where the
// devices' threads decide.
func TestChooserNeedsSimulatedTime(t *testing.T) {
	_, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Chooser: &firstChooser{}})
	var de *failure.Error
	if !errors.As(err, &de) || de.Kind != failure.Invalid {
		t.Fatalf("NewFabric with a chooser in real time: %v, want an invalid error", err)
	}
}

// TestChooserDecidesFaults leaves every probability to the chooser.
func TestChooserDecidesFaults(t *testing.T) {
	ch := &firstChooser{kinds: map[choice.Kind]int{}}
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Chooser: ch})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Faults().Set(0, "50%error(x)"); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if fired := f.Faults().Hit(0); fired.Action != 0 {
			t.Fatalf("the chooser said no, yet %v fired", fired.Action)
		}
	}
	if ch.kinds[choice.Fault] != 5 {
		t.Errorf("the chooser was asked %d fault choices, want 5", ch.kinds[choice.Fault])
	}
}
