package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/residentlua/residentlua/campaign"
)

// scriptTrial is the trial script of the Lua-script figures: one session of
// a random shape on the trial's own fabric, driven through the Lua API, as
// the trials of scripts/campaign.lua are (without their faults, so that the
// figure measures the Lua path rather than the fault mix).
const scriptTrial = `function trial(t)
  local s = startup{rounds = t.random(1, 8), credits = t.random(1, 2)}
  s:submit_gpu(); s:submit_npu(); s:start()
  s:wait(0.01)
  return s:close(0.01)
end
`

// RunScriptTrials runs n trials of the Lua trial script on workers workers
// with package campaign, as residentlua campaign does, and returns the trials
// per second (each worker's Lua state made and closed within the time).
func RunScriptTrials(n, workers int) (perSecond float64, err error) {
	dir, err := os.MkdirTemp("", "residentbench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "trial.lua")
	if err := os.WriteFile(script, []byte(scriptTrial), 0o644); err != nil {
		return 0, err
	}
	return runCampaign(campaign.Config{Script: script, Trials: n, Workers: workers, Seed: 1})
}

// RunBuiltinTrials runs n built-in trials (engine/trial's default: three
// sessions of up to 8 rounds, up to three faults) on workers workers with
// package campaign, as residentlua campaign does without a script, and
// returns the trials per second.
func RunBuiltinTrials(n, workers int) (perSecond float64, err error) {
	return runCampaign(campaign.Config{Trials: n, Workers: workers, Seed: 1})
}

// runCampaign runs cfg under the campaign's garbage-collection target, as
// the command does, and returns its trials per second; a violation or a
// failed trial is an error, since a figure of a broken run means nothing.
func runCampaign(cfg campaign.Config) (perSecond float64, err error) {
	defer campaign.TuneGC()()
	start := time.Now()
	sum, err := campaign.Run(context.Background(), cfg)
	if err != nil {
		return 0, err
	}
	if sum.Violations != 0 || len(sum.Failures) != 0 {
		return 0, fmt.Errorf("bench: the campaign's trials found %d violations and %d failures", sum.Violations, len(sum.Failures))
	}
	return float64(cfg.Trials) / time.Since(start).Seconds(), nil
}

// scriptFigure is the Lua-script campaign's speed-up with all cores.
func scriptFigure(z sizes) (Figure, error) {
	return speedupFigure(z, "Lua-script trials", 0.7, RunScriptTrials)
}
