package campaign_test

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/campaign"
)

// TestOutcomeHistogramsHoldEveryValue checks that each measurement keeps
// every value again under the outcome of its trial, which the pictures
// draw from.
func TestOutcomeHistogramsHoldEveryValue(t *testing.T) {
	s := checkSameForWorkers(t, campaign.Config{Trials: 80, Seed: 7, Runners: sessions})
	for name, m := range s.Measurements {
		var total int64
		byOutcome := m.ByOutcome(1 << 20)
		for _, values := range byOutcome {
			total += int64(len(values))
		}
		if total != m.Count || len(byOutcome) == 0 {
			t.Errorf("%s: %d outcomes hold %d values, the count is %d", name, len(byOutcome), total, m.Count)
		}
	}
	rounds := s.Measurements["rounds"]
	if got, want := slices.Sorted(maps.Keys(rounds.ByOutcome(1))), slices.Sorted(maps.Keys(s.Outcomes)); !slices.Equal(got, want) {
		t.Errorf("rounds by outcome %v, want every outcome %v", got, want)
	}
}

func TestDecodeChecksOutcomeHistograms(t *testing.T) {
	s, _ := run(t, campaign.Config{Trials: 20, Runners: sessions})
	b, _ := s.JSON()
	// Drop the histograms by outcome of the first measurement.
	i := bytes.Index(b, []byte(`"by_outcome": {`))
	j := i + bytes.Index(b[i:], []byte("}"))
	bad := slices.Concat(b[:i], []byte(`"by_outcome": {`), b[j:])
	if _, err := campaign.Decode(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "by_outcome: the histograms hold 0 values, the count says") {
		t.Errorf("a summary without histograms by outcome: err = %v", err)
	}
}
