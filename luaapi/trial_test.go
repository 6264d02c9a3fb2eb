package luaapi

import (
	"strings"
	"testing"
)

// TestTrialReportCountsInWords checks the trial's report says "1 round,
// 1 credit" and "1 violation", never "1 rounds" or "1 credits".
func TestTrialReportCountsInWords(t *testing.T) {
	h := sim(t)
	report := h.str(`resident.trial{seed = 7, sessions = 1, rounds = 1, credits = 1}.report`)
	if !strings.Contains(report, " new: 1 round, 1 credit, ") || !strings.Contains(report, "0 violations, 0 problems") {
		t.Errorf("report:\n%s", report)
	}
	for _, wrong := range []string{" 1 rounds", " 1 credits", " 1 violations", " 1 problems"} {
		if strings.Contains(report, wrong) {
			t.Errorf("report says %q:\n%s", wrong, report)
		}
	}
}
