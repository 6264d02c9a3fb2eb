package campaign

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNeitherLuaNorPlotting checks that a program that runs campaigns
// of its own Go trials links neither the Lua interpreter nor the plotting
// library: those come with packages luacampaign and plot/campaignplot.
func TestLinksNeitherLuaNorPlotting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output() // go test puts its toolchain first on PATH
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
	} else if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "github.com/residentlua/residentlua/campaign/trial\n") {
		t.Fatalf("go list -deps listed %d packages, not this package's dependencies:\n%s", len(deps), out)
	}
	for _, dep := range deps {
		for _, banned := range []string{"github.com/yuin/gopher-lua", "gonum.org/", "github.com/residentlua/residentlua/lua", "github.com/residentlua/residentlua/plot"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("package campaign depends on %s", dep)
			}
		}
	}
}
