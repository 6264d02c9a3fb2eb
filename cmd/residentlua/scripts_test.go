package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image"
	_ "image/png" // image.DecodeConfig reads PNG
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/backends/cuda"
)

// scriptCase is how one file of examples/ or scripts/ is run and what its
// output must show.
type scriptCase struct {
	args   []string // after the script name; "{dir}" is a temporary directory
	seed   string
	stdout []string // key lines, in order
	stderr []string
	code   int
	// onGPU, for a script that needs a real GPU, is what it must show where
	// one is present (it then runs in real time, so its output varies); the
	// case itself is what it shows elsewhere.
	onGPU *scriptCase
}

// scriptCases covers every .lua file in examples/ and scripts/; a file with
// no entry fails TestEveryScriptIsTested.
var scriptCases = map[string]scriptCase{
	"examples/hello.lua": {stdout: []string{
		"made        session 1 (undecided, aql, rounds=4, credits=2, slot_bytes=256)",
		"started     state=running",
		"waited      both retired: true, state=retired",
		"exchanged   4 rounds, 1024 bytes, verified: true",
		"closed      retired",
		"budget      0 bytes still charged",
	}},
	"examples/faults.lua": {stdout: []string{
		"submit_npu  failed: device: dispatch: npu0 rejected the dispatch: queue full (kind device)",
		"wait        both retired: true, state=aborted",
		"close       retired",
		"wait        both retired: false",
		"close       quarantined",
		"budget      384 bytes charged, 384 bytes of them quarantined",
		"quarantined 1 session\n",
		"new session busy: dispatch: gpu0 is held by a quarantined session",
		"after reset 0 sessions quarantined, 0 bytes charged",
		"new session both retired: true, close: retired",
		"violations  0",
	}},
	"scripts/partial_admission.lua": {stdout: []string{
		"1. GPU accepted, NPU rejected by the device",
		"submit_npu raised          device: dispatch: npu0 rejected the dispatch: command queue full",
		"error kind/op              device / dispatch",
		"after the rejection        state=aborted",
		"GPU and NPU retired        true",
		"ABORT published            true",
		"payload writes by the GPU  0",
		"close                      retired",
		"2. NPU accepted first, GPU rejected",
		"submit_gpu raised          device: dispatch: gpu0 rejected the dispatch: ring full",
		"3. Why a rejected session cannot start",
		"start raised               busy: ",
		"budget charged 0 bytes, violations 0",
	}},
	"scripts/publication_failure.lua": {stdout: []string{
		"1. the release for one queue family fails",
		"start raised        publish: ",
		"doorbell write failed",
		"error kind          publish",
		"state               poisoned",
		"abort raised        busy: ",
		"close               quarantined",
		"quarantined         1 session\n",
		"after reset         0 quarantined, 0 bytes charged",
		"2. the store happens but the NPU's release is skipped",
		"wait(0.01)          both retired: false",
		"\n  gpu0 observed       RUN\n", // in the column of the lines around it
		"npu0 never observed anything",
		"close               quarantined",
		"after reset         0 quarantined, 0 bytes charged",
		"violations 0",
	}},
	"scripts/quarantine_and_reset.lua": {stdout: []string{
		"wait(0.01)      both retired: false",
		"close(0.01)     quarantined",
		"state           quarantined",
		"budget          limit 1073741824 bytes, 2752 bytes charged, 2752 bytes of them quarantined",
		"quarantined     session 1, ",
		"waiting for gpu0 and npu0",
		"new session     busy: dispatch: npu0 is held by a quarantined session",
		"reset npu       1 quarantined",
		"reset gpu       0 quarantined, 0 bytes charged",
		"new session     both retired: true, close: retired",
		"violations      0",
	}},
	"scripts/sweep.lua": {
		args: []string{"{dir}/sweep.csv", "8"},
		stdout: []string{
			"slot_bytes credits rounds elapsed_us first_round_us round_us MB_per_s npu_observe_us verified",
			"        64       1      8    150.000         60.000   12.000    5.333         52.000     true",
			"      4096       4      8   1158.000        186.000  138.000   29.681         52.000     true",
			"wrote 12 rows to ",
			"drew latency against slot size to ",
			"drew throughput against slot size to ",
		},
		stderr: []string{"timing=published"},
	},
	"scripts/gpu_lifecycle.lua": {
		code: 1,
		stderr: []string{
			"gpu_lifecycle.lua needs a real NVIDIA GPU: unsupported: ",
			"docs/cuda.md says how",
		},
		onGPU: &scriptCase{
			args: []string{"20", "1000"},
			stdout: []string{
				"gpu          cuda: ",
				"  wait       both retired: true",
				"  verified   true",
				"  kernel saw RUN ",
				"  close      retired",
				"2. 20 lifecycles, rounds=1000",
				"  observation latency (kernel's clock)   median ",
				"  exchange per round (GPU -> NPU -> GPU)  median ",
				"3. 20 one-round lifecycles, each step timed with resident.now()",
				"  medians (us): startup ",
				"  whole lifecycle: median ",
				"4. a hung kernel: quarantine, then reset",
				"  close      quarantined",
				"  after reset 0 quarantined",
				"  new session both retired: true, close: retired",
				"violations   0",
			},
			stderr: []string{"mode=realtime"},
		},
	},
	"scripts/user_kernel.lua": {
		code: 1,
		stderr: []string{
			"user_kernel.lua needs a real NVIDIA GPU: unsupported: ",
			"docs/cuda.md says how",
		},
		onGPU: &scriptCase{
			args: []string{"1000"},
			stdout: []string{
				"gpu          cuda: ",
				"kernel       kernel exchange_gpu (programs/exchange/exchange_gpu.ptx)",
				"  wait       both retired: true",
				"  check      true",
				"  close      retired",
				"2. the kernel hangs (gpu.run hang)",
				"  wait(0.2)  both retired: false",
				"  close      quarantined",
				"  after reset 0 quarantined",
				"  new session both retired: true, close: retired",
				"violations   0",
			},
			stderr: []string{"mode=realtime"},
		},
	},
	// A campaign of the exchange's Lua programs; run directly, one trial.
	"scripts/program_campaign.lua": {
		seed: "7",
		stdout: []string{
			"one trial, seed 7, no violation",
			"  events = ",
			"for a campaign: residentlua campaign scripts/program_campaign.lua --trials 10000",
		},
	},
	// A trial script for residentlua campaign (campaign_test.go runs it
	// there); run directly, it runs one trial.
	"scripts/campaign.lua": {
		seed: "1",
		stdout: []string{
			"one trial, seed 1: quarantined",
			"  decision to retirement = 160 µs\n",

			"  payload bytes = 0",
			"for a campaign: residentlua campaign scripts/campaign.lua --trials 1000",
		},
	},
}

func TestEveryScriptIsTested(t *testing.T) {
	for _, dir := range []string{"examples", "scripts"} {
		files, err := filepath.Glob(filepath.Join(repoRoot, dir, "*.lua"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("no .lua files in %s", dir)
		}
		for _, f := range files {
			name := dir + "/" + filepath.Base(f)
			if _, ok := scriptCases[name]; !ok {
				t.Errorf("%s has no entry in scriptCases", name)
			}
		}
	}
}

// TestScripts runs every example and script in simulated time with a fixed
// seed, checks its key lines in order, and runs it again to check that the
// output is the same byte for byte.
func TestScripts(t *testing.T) {
	gpu := gpuPresent()
	for name, tc := range scriptCases {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			if tc.onGPU != nil && gpu {
				runOnGPU(t, name, *tc.onGPU)
				return
			}
			t.Parallel()
			dir := t.TempDir()
			seed := tc.seed
			if seed == "" {
				seed = "1"
			}
			args := []string{"--mode", "sim", "--seed", seed, name}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "{dir}", dir))
			}
			r := runCmd(t, "", "", args...)
			r.wantCode(t, tc.code)
			inOrder(t, name+" stdout", r.stdout, tc.stdout)
			if tc.code == 0 {
				contains(t, name+" stderr", r.stderr, "mode=sim seed="+seed)
			}
			contains(t, name+" stderr", r.stderr, tc.stderr...)
			if strings.Contains(r.stderr, "stack traceback") {
				t.Errorf("%s raised an error:\n%s", name, r.stderr)
			}
			again := runCmd(t, "", "", args...)
			if again.stdout != r.stdout {
				t.Errorf("%s: a second run with the same seed printed something else:\n%s\n---\n%s", name, r.stdout, again.stdout)
			}
		})
	}
}

// gpuPresent reports whether a CUDA GPU can be opened here.
func gpuPresent() bool {
	g, err := cuda.Open()
	if err != nil {
		return false
	}
	_ = g.Close()
	return true
}

// runOnGPU runs a script that needs a real GPU where one is present.
func runOnGPU(t *testing.T, name string, tc scriptCase) {
	r := runCmd(t, "", "", append([]string{name}, tc.args...)...)
	r.wantCode(t, tc.code)
	inOrder(t, name+" stdout", r.stdout, tc.stdout)
	contains(t, name+" stderr", r.stderr, tc.stderr...)
	t.Logf("%s on a real GPU:\n%s", name, r.stdout)
}

// inOrder fails the test unless s holds every one of wants, each after the
// one before.
func inOrder(t *testing.T, what, s string, wants []string) {
	t.Helper()
	rest := s
	for _, w := range wants {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("%s lacks %q (in order) in:\n%s", what, w, s)
			return
		}
		rest = rest[i+len(w):]
	}
}

func TestSweepCSV(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "out.csv")
	r := runCmd(t, "", "", "--mode", "sim", "--seed", "1", "scripts/sweep.lua", csv, "4")
	r.wantCode(t, 0)
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	const header = "slot_bytes,credits,rounds,samples,payload_bytes," +
		"elapsed_us,elapsed_us_min,elapsed_us_max,first_round_us,first_round_us_min,first_round_us_max," +
		"round_us,round_us_min,round_us_max,MB_per_s,MB_per_s_min,MB_per_s_max," +
		"npu_observe_us,npu_observe_us_min,npu_observe_us_max,verified"
	if lines[0] != header {
		t.Errorf("CSV header %q", lines[0])
	}
	if len(lines) != 1+4*3 {
		t.Fatalf("%d CSV lines, want 13:\n%s", len(lines), data)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		// Simulated time: one sample, so the median is the smallest and the largest.
		if len(f) != 21 || f[2] != "4" || f[3] != "1" || f[20] != "true" || f[11] == "n/a" || f[5] != f[6] || f[5] != f[7] {
			t.Errorf("CSV row %q", l)
		}
	}
	contains(t, "stdout", r.stdout, "simulated time: one sample per cell; the model charges no time for the GPU's writes,")

	// Real time: each cell is several samples, reported as median, smallest and largest.
	r = runCmd(t, "", "", "--mode", "realtime", "scripts/sweep.lua", csv, "4", "ideal", "3")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "real time: median of 3 samples per cell")
	data, _ = os.ReadFile(csv)
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(l, ",")
		med, _ := strconv.ParseFloat(f[5], 64)
		lo, _ := strconv.ParseFloat(f[6], 64)
		hi, _ := strconv.ParseFloat(f[7], 64)
		if f[3] != "3" || lo > med || med > hi {
			t.Errorf("real-time CSV row %q", l)
		}
	}
	// Without an argument the CSV goes to sweep.csv in the working directory.
	script, _ := filepath.Abs(filepath.Join(repoRoot, "scripts", "sweep.lua"))
	r = runCmd(t, dir, "", "--mode", "sim", "--seed", "1", script)
	r.wantCode(t, 0)
	if _, err := os.Stat(filepath.Join(dir, "sweep.csv")); err != nil {
		t.Errorf("default CSV: %v", err)
	}
}

// TestSweepSteadyState checks that the sweep's time per round is the
// steady state, apart from the time to the first round: for every shape it
// varies by less than 10% between 8, 32 and 128 rounds, while the time to
// the first round (which holds the NPU's start) stays out of it.
func TestSweepSteadyState(t *testing.T) {
	dir := t.TempDir()
	perRound := map[string][]float64{} // by slot_bytes and credits
	for _, rounds := range []string{"8", "32", "128"} {
		csv := filepath.Join(dir, "r"+rounds+".csv")
		r := runCmd(t, "", "", "--mode", "sim", "--seed", "1", "scripts/sweep.lua", csv, rounds)
		r.wantCode(t, 0)
		lines := strings.Split(strings.TrimSpace(string(readFile(t, csv))), "\n")
		col := map[string]int{}
		for i, name := range strings.Split(lines[0], ",") {
			col[name] = i
		}
		for _, l := range lines[1:] {
			f := strings.Split(l, ",")
			round, err1 := strconv.ParseFloat(f[col["round_us"]], 64)
			first, err2 := strconv.ParseFloat(f[col["first_round_us"]], 64)
			if err1 != nil || err2 != nil || round <= 0 || first <= round {
				t.Fatalf("%s rounds: row %q: want a time per round > 0 and a longer first round", rounds, l)
			}
			shape := f[col["slot_bytes"]] + " bytes, " + f[col["credits"]] + " credits"
			perRound[shape] = append(perRound[shape], round)
		}
	}
	if len(perRound) != 12 {
		t.Fatalf("%d shapes, want 12", len(perRound))
	}
	for shape, v := range perRound {
		lo, hi := slices.Min(v), slices.Max(v)
		if (hi-lo)/lo >= 0.10 {
			t.Errorf("%s: time per round %v µs for 8, 32 and 128 rounds: varies by %.0f%%, want < 10%%", shape, v, 100*(hi-lo)/lo)
		}
	}
}

// TestSweepRefusesBadArguments checks that the sweep refuses what it cannot
// use before it runs a session: rounds that are not a whole number, a CSV
// it cannot write, a picture of no known format.
func TestSweepRefusesBadArguments(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "x.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{csv, "abc"}, `sweep.lua: rounds must be a whole number of at least 1, got "abc"`},
		{[]string{csv, "0"}, `sweep.lua: rounds must be a whole number of at least 1, got "0"`},
		{[]string{csv, "2.5"}, `sweep.lua: rounds must be a whole number of at least 1, got "2.5"`},
		{[]string{filepath.Join(dir, "missing", "x.csv"), "8"}, "sweep.lua: cannot write the CSV: " + filepath.Join(dir, "missing", "x.csv") + ": No such file or directory"},
		{[]string{csv, "8", "published", "1", filepath.Join(dir, "fig.pdf")}, `sweep.lua: the picture "` + filepath.Join(dir, "fig.pdf") + `" must end in .svg or .png`},
	} {
		r := runCmd(t, "", "", append([]string{"--mode", "sim", "--seed", "1", "scripts/sweep.lua"}, tc.args...)...)
		r.wantCode(t, 1)
		if first := strings.SplitN(r.stderr, "\n", 2)[0]; first != tc.want {
			t.Errorf("sweep.lua %v: stderr starts %q, want %q", tc.args, first, tc.want)
		}
		if r.stdout != "" || strings.Contains(r.stderr, "traceback") || strings.Contains(r.stderr, "fabric mode=") {
			t.Errorf("sweep.lua %v ran before it refused: stdout %q, stderr %q", tc.args, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(csv); err == nil {
		t.Errorf("a refused sweep left %s behind", csv)
	}
	// gpu_lifecycle.lua refuses its bad arguments before it looks for a GPU.
	r := runCmd(t, "", "", "scripts/gpu_lifecycle.lua", "20", "many")
	r.wantCode(t, 1)
	if want := `gpu_lifecycle.lua: rounds must be a whole number of at least 1, got "many"`; !strings.HasPrefix(r.stderr, want) || r.stdout != "" {
		t.Errorf("gpu_lifecycle.lua 20 many: stdout %q, stderr %q; want it refused with %q", r.stdout, r.stderr, want)
	}
}

// TestSweepPlot checks the pictures of scripts/sweep.lua: an SVG of each
// figure next to the CSV by default (16 cm x 10 cm, one line per credits
// value), a PNG of 605 x 378 pixels when the picture's name says .png, and
// none where no time passed.
func TestSweepPlot(t *testing.T) {
	dir := t.TempDir()
	r := runCmd(t, "", "", "--mode", "sim", "--seed", "1", "scripts/sweep.lua", filepath.Join(dir, "out.csv"), "4")
	r.wantCode(t, 0)
	for _, what := range []string{"latency", "throughput"} {
		file := filepath.Join(dir, "out_"+what+".svg")
		contains(t, "stdout", r.stdout, "drew "+what+" against slot size to "+file)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var root struct{ XMLName xml.Name }
		if err := xml.Unmarshal(data, &root); err != nil || root.XMLName.Local != "svg" {
			t.Fatalf("%s: root %v, error %v; want an <svg> document", file, root.XMLName, err)
		}
		contains(t, file, string(data), `<svg width="453.54pt" height="283.46pt"`, "<title>"+what+", 4 rounds (simulated time)</title>",
			"\ncredits=1\n", "\ncredits=2\n", "\ncredits=4\n", "\nslot size (bytes)\n")
	}

	png := filepath.Join(dir, "fig.png")
	r = runCmd(t, "", "", "--mode", "sim", "--seed", "1", "scripts/sweep.lua", filepath.Join(dir, "out.csv"), "4", "published", "1", png)
	r.wantCode(t, 0)
	for _, what := range []string{"latency", "throughput"} {
		f, err := os.Open(filepath.Join(dir, "fig_"+what+".png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(f)
		f.Close()
		if err != nil || format != "png" || cfg.Width != 605 || cfg.Height != 378 {
			t.Errorf("fig_%s.png: %s %dx%d, error %v; want a png of 605x378", what, format, cfg.Width, cfg.Height, err)
		}
	}

	// Under the ideal timing no simulated time passes: nothing to draw.
	r = runCmd(t, "", "", "--mode", "sim", "--seed", "1", "scripts/sweep.lua", filepath.Join(dir, "ideal.csv"), "4", "ideal")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "no latency to draw (no cell has one: a single round, or no time passed); ", "no throughput to draw")
	if matches, _ := filepath.Glob(filepath.Join(dir, "ideal_*")); len(matches) != 0 {
		t.Errorf("pictures with nothing in them: %v", matches)
	}
}

func TestCampaignReplay(t *testing.T) {
	// Every trial of a campaign of scripts/campaign.lua is replayable alone:
	// --replay SEED gives the outcome the campaign's --out recorded for it.
	out := filepath.Join(t.TempDir(), "trials.jsonl")
	r := campaignRun(t, nil, "scripts/campaign.lua", "--trials", "8", "--seed", "2000", "--out", out)
	r.wantCode(t, 0)
	contains(t, "summary", r.stdout, "campaign: 8 trials of scripts/campaign.lua, seeds 2000..2007", "oracle violations: 0", "failures: 0")
	type trialLine struct {
		Seed    uint64
		Outcome string
		Records map[string][]float64
	}
	var trials []trialLine
	for _, l := range strings.Split(strings.TrimSpace(string(readFile(t, out))), "\n") {
		var tr trialLine
		if err := json.Unmarshal([]byte(l), &tr); err != nil {
			t.Fatal(err)
		}
		trials = append(trials, tr)
	}
	if len(trials) != 8 {
		t.Fatalf("%d trials in --out, want 8", len(trials))
	}
	for i, tr := range trials {
		seed := strconv.FormatUint(tr.Seed, 10)
		one := campaignRun(t, nil, "scripts/campaign.lua", "--seed", "2000", "--replay", seed)
		one.wantCode(t, 0)
		// The report lists the measurements, as recorded.
		want := "trial of scripts/campaign.lua, index " + strconv.Itoa(i) + ", seed " + seed + ": " + tr.Outcome + "\n"
		if len(tr.Records) > 0 {
			want += "measurements:\n"
		}
		if !strings.HasPrefix(one.stdout, want) {
			t.Errorf("replay of seed %s: %q, want %q", seed, one.stdout, want)
		}
		for name, values := range tr.Records {
			if !strings.Contains(one.stdout, fmt.Sprintf("\n  %s: %v\n", name, values[0])) {
				t.Errorf("replay of seed %s: %q lacks the measurement %s = %v", seed, one.stdout, name, values)
			}
		}
	}
}
