package campaignplot

import (
	"bytes"
	"context"
	"image"
	_ "image/png" // image.DecodeConfig reads PNG
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/campaign"
)

// summary is the summary of a campaign of trials whose outcome and
// measurements follow from their seed: "rounds" in every trial, "latency"
// in those that retired.
func summary(t *testing.T, trials int) *campaign.Summary {
	t.Helper()
	pictured := campaign.Func("pictured", func(_ context.Context, t *campaign.Trial) error {
		t.Outcome = map[bool]string{true: "retired", false: "quarantined"}[t.Seed%3 != 0]
		err := t.Record("rounds", float64(1+t.Seed%4))
		if t.Outcome == "retired" && err == nil {
			err = t.Record("latency", float64(t.Seed)*1.5e-6)
		}
		return err
	})
	s, err := campaign.Run(context.Background(), campaign.Config{Trials: trials, Seed: 7, Runners: pictured})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPlotPaths(t *testing.T) {
	s := &campaign.Summary{Measurements: map[string]*campaign.Measurement{"decision to retirement": nil}}
	if got := Paths(s, "out/p.svg"); got["decision to retirement"] != "out/p.svg" {
		t.Errorf("one measurement: %v, want the file itself", got)
	}
	s.Measurements = map[string]*campaign.Measurement{"decision to retirement": nil, "a/b": nil, "a b": nil, "µs": nil, "x-1": nil}
	want := map[string]string{
		"a b": "out/p_a_b.png", "a/b": "out/p_a_b_2.png", "decision to retirement": "out/p_decision_to_retirement.png",
		"x-1": "out/p_x-1.png", "µs": "out/p_s.png",
	}
	if got := Paths(s, "out/p.png"); !maps.Equal(got, want) {
		t.Errorf("Paths = %v, want %v", got, want)
	}
}

func TestPlotDrawsAPictureAMeasurement(t *testing.T) {
	s := summary(t, 40)
	dir := t.TempDir()
	drawn, err := Draw(s, filepath.Join(dir, "c.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "c_latency.svg"), filepath.Join(dir, "c_rounds.svg")}; !slices.Equal(drawn, want) {
		t.Fatalf("drew %v, want %v", drawn, want)
	}
	// Latency is recorded by retired trials alone, rounds by every trial.
	for i, wants := range [][]string{{"<title>latency by the trial&#39;s outcome (n = ", "latency (seconds, log scale)", "retired"}, {"<title>rounds by the trial&#39;s outcome (n = ", "\nrounds\n", "retired", "quarantined"}} {
		svg, err := os.ReadFile(drawn[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range append(wants, "<svg") {
			if !bytes.Contains(svg, []byte(want)) {
				t.Errorf("%s has no %q", drawn[i], want)
			}
		}
	}
	drawn, err = Draw(s, filepath.Join(dir, "c.png"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(drawn[1])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(f)
	// 16 cm x 10 cm at plot.DPI.
	if err != nil || format != "png" || cfg.Width != 605 || cfg.Height != 378 {
		t.Errorf("%s: %s %dx%d (%v), want a png of 605x378", drawn[1], format, cfg.Width, cfg.Height, err)
	}
	if _, err := Draw(s, filepath.Join(dir, "c.gif")); err == nil || !strings.Contains(err.Error(), "unknown picture format") {
		t.Errorf("a .gif: err = %v", err)
	}
	empty := &campaign.Summary{Measurements: map[string]*campaign.Measurement{}}
	if drawn, err := Draw(empty, filepath.Join(dir, "none.svg")); len(drawn) != 0 || err != nil {
		t.Errorf("no measurements: drew %v, %v", drawn, err)
	}
}
