package campaign

import (
	"testing"
	"time"
)

// TestDefaults checks what a Config's zero fields become.
func TestDefaults(t *testing.T) {
	if c, _ := (Config{Trials: 1}).withDefaults(); c.TrialTimeout != time.Minute || c.MaxMeasurements != 1000 || c.Runners == nil || c.Seed != 1 {
		t.Errorf("the defaults are %v, %d names, runners %v and seed %d", c.TrialTimeout, c.MaxMeasurements, c.Runners, c.Seed)
	}
}
