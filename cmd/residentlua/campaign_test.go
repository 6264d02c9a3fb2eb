package main

import (
	"bytes"
	"encoding/xml"
	"image"
	_ "image/png" // image.DecodeConfig reads PNG
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/plot"
)

// trialScript is the trial script the docs run.
const trialScript = "scripts/campaign.lua"

// campaignRun runs residentlua campaign with args and extra environment.
func campaignRun(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runCmdEnv(t, "", "", env, append([]string{"campaign"}, args...)...)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCampaignSameStdoutForAnyWorkers(t *testing.T) {
	for _, script := range []string{"", trialScript} {
		args := []string{"--trials", "300", "--seed", "11"}
		if script != "" {
			args = append([]string{script}, args...)
		}
		one := campaignRun(t, nil, append(args, "--workers", "1")...)
		one.wantCode(t, 0)
		two := campaignRun(t, nil, append(args, "--workers", "2")...)
		two.wantCode(t, 0)
		if one.stdout != two.stdout {
			t.Errorf("%q: workers 1 and 2 print different summaries:\n%s\n---\n%s", script, one.stdout, two.stdout)
		}
		contains(t, "summary", one.stdout, "campaign: 300 ", "seeds 11..310", "oracle violations: 0", "failures: 0", "p99.9")
	}
}

func TestCampaignSlurmShardsMergeToSingleRun(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	for _, sub := range []string{"single", "merged"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	single := campaignRun(t, nil, trialScript, "--trials", "101", "--seed", "3", "--summary", whole, "--workers", "2",
		"--plot", filepath.Join(dir, "single", "c.svg"))
	single.wantCode(t, 0)
	var shards []string
	for k := range 4 {
		path := filepath.Join(dir, "shard"+strconv.Itoa(k)+".json")
		r := campaignRun(t, []string{"SLURM_ARRAY_TASK_ID=" + strconv.Itoa(k), "SLURM_ARRAY_TASK_COUNT=4"},
			trialScript, "--trials", "101", "--seed", "3", "--summary", path, "--workers", "1", "--shard", "auto")
		r.wantCode(t, 0)
		contains(t, "shard summary", r.stdout, "shard "+strconv.Itoa(k)+" of 4: ")
		shards = append(shards, path)
	}
	merged := filepath.Join(dir, "merged.json")
	m := campaignRun(t, nil, append(append([]string{"merge"}, shards...), "--summary", merged, "--plot", filepath.Join(dir, "merged", "c.svg"))...)
	m.wantCode(t, 0)
	if m.stdout != single.stdout {
		t.Errorf("merge prints:\n%s\nthe single run:\n%s", m.stdout, single.stdout)
	}
	if got, want := readFile(t, merged), readFile(t, whole); !bytes.Equal(got, want) {
		t.Errorf("merged summary differs from the single run's:\n%s\nwant:\n%s", got, want)
	}
	// The pictures come from the merged histograms: the same bytes.
	for _, name := range []string{"c_decision_to_retirement.svg", "c_payload_bytes.svg"} {
		if got, want := readFile(t, filepath.Join(dir, "merged", name)), readFile(t, filepath.Join(dir, "single", name)); !bytes.Equal(got, want) {
			t.Errorf("merge --plot drew another %s than the single run", name)
		}
	}
	again := campaignRun(t, nil, "merge", shards[0], shards[0])
	again.wantCode(t, 2)
	contains(t, "merge of a shard with itself", again.stderr, "both summaries hold shard 0 of 4")
}

func TestCampaignIndexedJobShard(t *testing.T) {
	r := campaignRun(t, []string{"JOB_COMPLETION_INDEX=2"}, "--trials", "10", "--shards", "4")
	r.wantCode(t, 0)
	contains(t, "summary", r.stdout, "shard 2 of 4: 2 trials")
	r = campaignRun(t, nil, "--trials", "10", "--shards", "4")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "JOB_COMPLETION_INDEX")
}

func TestCampaignOutHasALinePerTrial(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trials.jsonl")
	r := campaignRun(t, nil, trialScript, "--trials", "57", "--out", out)
	r.wantCode(t, 0)
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, out)), "\n"), "\n")
	if len(lines) != 57 {
		t.Fatalf("%d lines, want 57", len(lines))
	}
	if !strings.HasPrefix(lines[56], `{"index":56,"seed":57,"outcome":`) {
		t.Errorf("last line %s", lines[56])
	}
}

func TestCampaignFailuresAndReplay(t *testing.T) {
	const script = "campaign/testdata/failing.lua"
	r := campaignRun(t, nil, script, "--trials", "10", "--seed", "20")
	r.wantCode(t, 1)
	replay := "residentlua campaign " + script + " --seed 20 --trials 10 --replay 24"
	contains(t, "summary", r.stdout, "failures: 5", "FAIL seed 24 (error): "+script+":4: boom at 4", "  replay: "+replay)
	trace := filepath.Join(t.TempDir(), "t.json")
	rr := campaignRun(t, nil, append(strings.Fields(replay)[2:], "--trace", trace)...)
	rr.wantCode(t, 1)
	contains(t, "replay", rr.stdout, "trial of "+script+", index 4, seed 24: error", "boom at 4\nstack traceback:\n")
	contains(t, "trace", string(readFile(t, trace)), `"traceEvents"`, "seed 24")
}

func TestCampaignChecksFilesFirst(t *testing.T) {
	r := campaignRun(t, nil, "--trials", "5", "--out", "/nonexistent/dir/x.jsonl")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "--out /nonexistent/dir/x.jsonl: the directory /nonexistent/dir does not exist")
	if strings.Contains(r.stdout, "campaign:") {
		t.Errorf("ran before checking --out:\n%s", r.stdout)
	}
	r = campaignRun(t, nil, "--trials", "5", "--plot", "c.gif")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, `--plot c.gif: unknown picture format ".gif"; supported are .svg and .png`, "usage: residentlua campaign")
	r = campaignRun(t, nil, "merge", "a.json", "--plot", "/nonexistent/dir/c.svg")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "--plot /nonexistent/dir/c.svg: the directory /nonexistent/dir does not exist")
	r = campaignRun(t, nil, "--replay", "3", "--plot", "c.svg")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "--plot draws a campaign's measurements")
	r = campaignRun(t, nil, "--trace", "t.json")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "--trace goes with --replay")
}

func TestCampaignProgressOnATerminal(t *testing.T) {
	// The line is updated in place, then cleared for the summary.
	tm := startTerminal(t, "", "campaign", "--trials", "3000", "--workers", "2")
	tm.expect("\r")
	tm.expect("/3000 trials  ")
	tm.expect(" trials/s  ETA ")
	tm.expect("0 failures")
	tm.expect("\r\x1b[K")
	tm.expect("campaign: 3000 built-in trials")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit status %d", code)
	}
	// Not a terminal: no progress line.
	r := campaignRun(t, nil, "--trials", "50")
	if strings.Contains(r.stderr, "\r") || strings.Contains(r.stderr, "/50 trials") {
		t.Errorf("progress on a pipe: %q", r.stderr)
	}
}

func TestCampaignCtrlCWritesWhatFinished(t *testing.T) {
	dir := t.TempDir()
	sum, out := filepath.Join(dir, "s.json"), filepath.Join(dir, "t.jsonl")
	cmd := exec.Command(binary, "campaign", "--trials", "100000000", "--workers", "2", "--summary", sum, "--out", out)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), noExitSleep)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want status 130; stderr:\n%s", err, stderr.String())
	}
	contains(t, "stdout", stdout.String(), "stopped after ", " of 100000000 trials")
	contains(t, "stderr", stderr.String(), "interrupted: stopped after")
	lines := bytes.Count(readFile(t, out), []byte("\n"))
	contains(t, "summary file", string(readFile(t, sum)), `"trials": `+strconv.Itoa(lines)+",")
}

// svgRoot is the root element of an SVG file.
type svgRoot struct {
	XMLName xml.Name
	Width   string `xml:"width,attr"`
	Height  string `xml:"height,attr"`
}

func TestCampaignPlotSVG(t *testing.T) {
	dir := t.TempDir()
	r := campaignRun(t, nil, trialScript, "--trials", "300", "--plot", filepath.Join(dir, "c.svg"))
	r.wantCode(t, 0)
	drawn := filepath.Join(dir, "c_decision_to_retirement.svg")
	contains(t, "stderr", r.stderr, "--plot: drew "+drawn, "--plot: drew "+filepath.Join(dir, "c_payload_bytes.svg"))
	b := readFile(t, drawn)
	var root svgRoot
	if err := xml.Unmarshal(b, &root); err != nil || root.XMLName.Local != "svg" {
		t.Fatalf("%s: root %v (%v), want <svg>", drawn, root.XMLName, err)
	}
	if root.Width != "453.54pt" || root.Height != "283.46pt" {
		t.Errorf("%s: %s x %s, want 16 cm x 10 cm (453.54pt x 283.46pt)", drawn, root.Width, root.Height)
	}
	contains(t, drawn, string(b), "<title>decision to retirement by the trial&#39;s outcome (n = ", "\ndecision to retirement (seconds, log scale)\n", "\nretired", "\nquarantined")
	if _, err := os.Stat(filepath.Join(dir, "c.svg")); err == nil {
		t.Error("drew c.svg too, beside a file per measurement")
	}
}

func TestCampaignPlotPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "elapsed.png")
	r := campaignRun(t, nil, "--trials", "100", "--plot", path)
	r.wantCode(t, 0)
	f, err := os.Open(path) // one measurement: the file itself
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(f)
	w, h := int(math.Round(plot.Width.Dots(plot.DPI))), int(math.Round(plot.Height.Dots(plot.DPI)))
	if err != nil || format != "png" || cfg.Width != w || cfg.Height != h {
		t.Errorf("%s: %s %dx%d (%v), want a png of %dx%d", path, format, cfg.Width, cfg.Height, err, w, h)
	}
}
