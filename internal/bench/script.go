package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/internal/gctune"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luacampaign"
	"github.com/residentlua/residentlua/programs"
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
	return runCampaign(campaign.Config{Runners: luacampaign.Script(script, luacampaign.Options{}), Trials: n, Workers: workers, Seed: 1})
}

// RunBuiltinTrials runs n built-in trials (campaign/trial's default: three
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
	defer gctune.ForBatch(lua51.DefaultMemoryLimit())()
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

// programTrial is the trial script of the Lua-program figure: the
// randomized protocol trial (resident.trial: random faults, random host
// operations), with the exchange's two Lua programs in place of the
// built-in exchange when they are given, as scripts/program_campaign.lua
// runs it.
const programTrial = `local gpu, npu = ...
if gpu then
  gpu, npu = resident.program{source = gpu, name = "exchange_gpu.lua"}, resident.program{source = npu, name = "exchange_npu.lua"}
end
function trial(t)
  local r = resident.trial{seed = t.seed, gpu = gpu, npu = npu}
  if #r.violations > 0 or #r.problems > 0 then t.fail(r.report) end
end
`

// RunProgramTrials runs n randomized trials of the built-in exchange's Lua
// programs (or of the built-in exchange, when lua is false) from one
// trial script on workers workers, and returns the trials per second of
// the process's processor time: on a machine shared with other work, wall
// time would count their turns on the processor too.
func RunProgramTrials(n, workers int, lua bool) (perSecond float64, err error) {
	dir, err := os.MkdirTemp("", "residentbench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	text := programTrial
	if lua {
		gpu, err := programs.Files.ReadFile("exchange/exchange_gpu.lua")
		if err != nil {
			return 0, err
		}
		npu, err := programs.Files.ReadFile("exchange/exchange_npu.lua")
		if err != nil {
			return 0, err
		}
		text = "local gpu, npu = " + strconv.Quote(string(gpu)) + ", " + strconv.Quote(string(npu)) + "\n" + strings.TrimPrefix(text, "local gpu, npu = ...\n")
	}
	script := filepath.Join(dir, "trial.lua")
	if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
		return 0, err
	}
	start := processTime()
	if _, err := runCampaign(campaign.Config{Runners: luacampaign.Script(script, luacampaign.Options{}), Trials: n, Workers: workers, Seed: 1}); err != nil {
		return 0, err
	}
	return float64(n) / (processTime() - start).Seconds(), nil
}

// programFigure is the Lua programs' trials per second of processor time
// on one core against the same trials of the built-in exchange, from the
// same script, interleaved.
func programFigure(z sizes) (Figure, error) {
	n := z.trials/z.repeats/10 + 1
	var lua, builtin []float64
	for i := 0; i < z.repeats; i++ {
		for _, c := range []struct {
			dst *[]float64
			lua bool
		}{{&builtin, false}, {&lua, true}} {
			v, err := OnOneCore(func() (float64, error) { return RunProgramTrials(n, 1, c.lua) })
			if err != nil {
				return Figure{}, err
			}
			*c.dst = append(*c.dst, v)
		}
	}
	v, base := Summarise(lua), Summarise(builtin)
	f := Figure{Name: "Lua-program trials, one core", Unit: "trials/CPU-s", Value: v}
	r := v.Median / base.Median
	f.compare(base, "the built-in exchange's", r, "≥ 0.2×", r >= 0.2)
	return f, nil
}
