package luacampaign

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/residentlua/residentlua/campaign"
)

// TestDocsTrialScript runs the trial script docs/campaigns.md shows: it
// loads, its trials end retired or quarantined, and it records what it says.
func TestDocsTrialScript(t *testing.T) {
	doc, err := os.ReadFile("../docs/campaigns.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```lua\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/campaigns.md shows no trial script")
	}
	script := filepath.Join(t.TempDir(), "trial.lua")
	if err := os.WriteFile(script, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := campaign.Run(context.Background(), campaign.Config{Runners: Script(script, Options{}), Trials: 40, Workers: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Violations != 0 || len(sum.Failures) != 0 {
		t.Errorf("%d violations, failures %+v", sum.Violations, sum.Failures)
	}
	for outcome := range sum.Outcomes {
		if outcome != "retired" && outcome != "quarantined" {
			t.Errorf("outcome %q; the doc says retired or quarantined", outcome)
		}
	}
	if sum.Measurements["decision to GPU retirement"] == nil {
		t.Errorf("no measurement %q: %v", "decision to GPU retirement", sum.Measurements)
	}
}
