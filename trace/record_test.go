package trace_test

import (
	"bytes"
	"context"
	"flag"
	"slices"
	"testing"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/campaign/trial"
	"github.com/residentlua/residentlua/trace"
)

var roundTrips = flag.Int("trace.trials", 300, "seeded campaign trials whose traces TestOwnTrialsValidateClean validates (the acceptance bar is 3000)")

// record runs the campaign's trial of seed with a Recorder attached and
// returns its trace.
func record(t *testing.T, cfg trial.Config) ([]byte, trial.Result) {
	t.Helper()
	var buf bytes.Buffer
	rec := trace.NewRecorder(&buf)
	cfg.OnFabric = rec.Attach
	res := trial.Run(cfg)
	if err := rec.Close(); err != nil {
		t.Fatalf("seed %d: %v", cfg.Seed, err)
	}
	return buf.Bytes(), res
}

// The traces of residentlua's own randomized trials (random faults, random
// host operations) validate, and the validator finds what the live oracle
// found: nothing, in a correct engine.
func TestOwnTrialsValidateClean(t *testing.T) {
	n := *roundTrips
	if testing.Short() {
		n = 30
	}
	events := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		text, res := record(t, trial.Config{Seed: seed})
		r, err := trace.Validate(trace.Input{Name: "trial.jsonl", R: bytes.NewReader(text)})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var live []int
		for _, v := range res.Violations {
			if v.Invariant != 15 && !slices.Contains(live, v.Invariant) {
				live = append(live, v.Invariant)
			}
		}
		var got []int
		for _, v := range r.Violations {
			got = append(got, v.Invariant)
		}
		slices.Sort(live)
		slices.Sort(got)
		// A trial whose sessions were never made (an allocation fault) checks
		// nothing, and its report says so rather than pass.
		if !slices.Equal(live, got) || !r.OK() && len(live) == 0 && r.Sessions > 0 {
			t.Fatalf("seed %d: the live oracle broke %v, the trace's validation %v:\n%s", seed, live, got, r)
		}
		if len(r.Checked) != 14 {
			t.Fatalf("seed %d: a simulated trace of every kind checked %v, want all but 15", seed, r.Checked)
		}
		events += r.Events
	}
	t.Logf("%d trials, %d events validated", n, events)
}

// A campaign's workers run trials at once, each on a simulated fabric with
// a clock of its own; recorded into one trace, their sessions come one
// fabric at a time, and the trace validates clean.
func TestCampaignOfManyWorkersValidates(t *testing.T) {
	var buf bytes.Buffer
	rec := trace.NewRecorder(&buf)
	sum, err := campaign.Run(context.Background(), campaign.Config{Trials: 100, Workers: 4, Seed: 7, Runners: campaign.Builtin(rec.Attach)})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := trace.Validate(trace.Input{Name: "campaign.jsonl", R: bytes.NewReader(buf.Bytes())})
	if err != nil {
		t.Fatalf("%v (%d trials)", err, sum.Trials)
	}
	if !r.OK() || r.Sessions < 60 {
		t.Fatalf("%d sessions:\n%s", r.Sessions, r)
	}
}
