package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// process is the command running in the background, for signal tests.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	err            error
}

// startCommand starts the built command with args in the repository root.
func startCommand(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(binary, args...), done: make(chan struct{})}
	p.cmd.Dir = repoRoot
	p.cmd.Env = append(os.Environ(), noExitSleep)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits up to limit for the command to end and returns its status
// (-1 when a signal ended it) and how long it took.
func (p *process) wait(t *testing.T, limit time.Duration) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	select {
	case <-p.done:
	case <-time.After(limit):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("still running %v after; stdout:\n%s\nstderr:\n%s", limit, p.stdout.String(), p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode(), time.Since(start)
}

// signalledBy reports whether a signal ended the command, and which.
func (p *process) signalledBy() (syscall.Signal, bool) {
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws.Signal(), ok && ws.Signaled()
}

// waitForFile waits (generously) until path exists.
func waitForFile(t *testing.T, p *process, path string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("the command ended before %s appeared; stderr:\n%s", path, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readJSONLines decodes a JSONL file, failing the test on a line that is not
// JSON.
func readJSONLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, path)))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: line %d is not JSON: %v", path, len(lines)+1, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// noTemporaryFiles fails the test if a temporary file is left in dir.
func noTemporaryFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// hungScript is a trial script whose trial of index 2 never returns (and
// of index 3, with odd); the others record a measurement, and the one of
// index 49 writes the file marker.
func hungScript(t *testing.T, dir, marker string, odd bool) string {
	hung := "2"
	if odd {
		hung = "3"
	}
	return writeFile(t, dir, "loop"+hung+".lua", `function trial(t)
  if t.index == `+hung+` then while true do end end
  t.record("index", t.index)
  if t.index == 49 then io.open("`+marker+`", "w"):close() end
  return "fine"
end`)
}

// TestCampaignSignalStopsHungTrial checks the first Ctrl-C and SIGTERM
// against a campaign of 50 trials of which one never returns: once the 49
// others finished, the signal interrupts it, and the command exits (143
// after SIGTERM, within 5 s, 130 after Ctrl-C) with the JSONL, the summary
// and the picture holding the 49 finished trials and the interrupted one.
func TestCampaignSignalStopsHungTrial(t *testing.T) {
	for _, c := range []struct {
		sig    syscall.Signal
		status int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		dir := t.TempDir()
		marker := filepath.Join(dir, "49-done")
		out, sum, pic := filepath.Join(dir, "o.jsonl"), filepath.Join(dir, "s.json"), filepath.Join(dir, "c.svg")
		p := startCommand(t, "campaign", hungScript(t, dir, marker, false), "--trials", "50", "--workers", "2",
			"--out", out, "--summary", sum, "--plot", pic)
		waitForFile(t, p, marker)
		time.Sleep(100 * time.Millisecond) // the 49th trial returns
		p.cmd.Process.Signal(c.sig)
		status, took := p.wait(t, 30*time.Second)
		if status != c.status || took > 5*time.Second {
			t.Fatalf("%v: exit status %d after %v, want %d within 5s; stderr:\n%s", c.sig, status, took, c.status, p.stderr.String())
		}
		lines := readJSONLines(t, out)
		fine := 0
		for i, l := range lines {
			if l["index"] != float64(i) {
				t.Fatalf("%v: line %d is trial %v", c.sig, i, l["index"])
			}
			if l["outcome"] == "fine" {
				fine++
			}
		}
		if len(lines) != 50 || fine != 49 || lines[2]["outcome"] != "interrupted" {
			t.Errorf("%v: %d lines, %d fine, the third %v", c.sig, len(lines), fine, lines[2])
		}
		s := string(readFile(t, sum))
		contains(t, "summary", s, `"trials": 50,`, `"fine": 49`, `"interrupted": 1`, `"count": 49,`)
		contains(t, "picture", string(readFile(t, pic)), "index by the trial&#39;s outcome (n = 49)")
		contains(t, "stdout", p.stdout.String(), "stopped after 49 of 50 trials; 1 trial interrupted")
		noTemporaryFiles(t, dir)
	}
}

// TestCampaignSecondSignalEndsAtOnce checks that a second Ctrl-C (or
// SIGTERM) ends a campaign whose trial does not heed the first (it waits
// on a command it started) at once, removing its temporary files: the
// previous --out is left whole, and no partial file is left.
func TestCampaignSecondSignalEndsAtOnce(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		marker, out := filepath.Join(dir, "started"), filepath.Join(dir, "o.jsonl")
		writeFile(t, dir, "o.jsonl", "{\"previous\": true}\n")
		// The command makes the marker, so that the signal comes while the
		// trial waits on it, never before it started it.
		script := writeFile(t, dir, "stuck.lua", `function trial(t)
  if t.index == 3 then os.execute("touch '`+marker+`' && exec sleep 20 >/dev/null 2>&1") end
end`)
		p := startCommand(t, "campaign", script, "--trials", "10", "--workers", "2", "--out", out)
		waitForFile(t, p, marker)
		p.cmd.Process.Signal(sig)
		time.Sleep(200 * time.Millisecond)
		p.cmd.Process.Signal(sig)
		status, _ := p.wait(t, 10*time.Second)
		if got, ok := p.signalledBy(); (!ok || got != sig) && status != 128+int(sig) {
			t.Errorf("%v twice: ended %v, want by %v; stderr:\n%s", sig, p.cmd.ProcessState, sig, p.stderr.String())
		}
		if got := string(readFile(t, out)); got != "{\"previous\": true}\n" {
			t.Errorf("%v twice: --out became %q", sig, got)
		}
		noTemporaryFiles(t, dir)
	}
}

// TestCampaignTrialTimeout checks --trial-timeout: a trial past it (a loop
// that never returns, a slow trial, an error value whose __tostring never
// returns) is a "timeout" failure with its replay, the campaign completes
// (exit 1), and a bad duration is refused.
func TestCampaignTrialTimeout(t *testing.T) {
	dir := t.TempDir()
	for name, hang := range map[string]string{
		"loop":       `while true do end`,
		"slow":       `local t0 = os.time(); while os.time() - t0 < 30 do end`,
		"__tostring": `error(setmetatable({}, {__tostring = function() while true do end end}))`,
	} {
		script := writeFile(t, dir, name+".lua", "function trial(t) if t.index == 4 then "+hang+" end end")
		r := campaignRun(t, nil, script, "--trials", "10", "--workers", "2", "--trial-timeout", "500ms")
		r.wantCode(t, 1)
		contains(t, name+" stdout", r.stdout, "failures: 1\nFAIL seed 5 (timeout): the trial ran past its time limit of 500ms of wall time (--trial-timeout) and was stopped\n",
			"  replay: residentlua campaign "+script+" --seed 1 --trials 10 --replay 5\n")
	}
	r := campaignRun(t, nil, "--trial-timeout", "soon")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, `--trial-timeout "soon": give a duration such as 90s or 10m, or 0 for no limit`)
}

// TestCampaignOsExit checks that os.exit, kept in a local or called at the
// top level, cannot end a campaign: a trial that calls it fails, and the
// files are written; a script that calls it as it loads runs nothing.
func TestCampaignOsExit(t *testing.T) {
	dir := t.TempDir()
	sum, out := filepath.Join(dir, "s.json"), filepath.Join(dir, "o.jsonl")
	script := writeFile(t, dir, "exit.lua", "local exit = os.exit\nfunction trial(t) if t.index == 5 then exit(0) end return 'ran' end")
	r := campaignRun(t, nil, script, "--trials", "8", "--summary", sum, "--out", out)
	r.wantCode(t, 1)
	contains(t, "stdout", r.stdout, "FAIL seed 6 (error): ", "os.exit is not available in a campaign's trial script")
	if lines := readJSONLines(t, out); len(lines) != 8 {
		t.Errorf("%d lines in --out, want 8", len(lines))
	}
	contains(t, "summary", string(readFile(t, sum)), `"ran": 7`)
	top := writeFile(t, dir, "top.lua", "os.exit(9)\nfunction trial(t) end")
	r = campaignRun(t, nil, top, "--trials", "8", "--summary", filepath.Join(dir, "top.json"))
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "os.exit is not available")
	noTemporaryFiles(t, dir)
}

// TestSummaryOutputErrors checks that a summary that cannot be printed (a
// closed pipe, a full disk) is an error said on standard error, after the
// files were written: for campaign, merge and check.
func TestSummaryOutputErrors(t *testing.T) {
	dir := t.TempDir()
	sum := filepath.Join(dir, "s.json")
	// A closed pipe: the reader went away before the summary was printed.
	cmd := exec.Command(binary, "campaign", trialScript, "--trials", "20", "--summary", sum, "--out", filepath.Join(dir, "o.jsonl"))
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), noExitSleep)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("campaign | (closed): %v, want exit status 2; stderr:\n%s", err, stderr.String())
	}
	contains(t, "stderr", stderr.String(), "cannot print the summary on standard output: broken pipe")
	contains(t, "summary written", string(readFile(t, sum)), `"trials": 20`)
	// A full disk.
	for _, args := range [][]string{
		{"campaign", "--trials", "5"},
		{"campaign", "merge", sum},
		{"check", "--rounds", "1", "--credits", "1", "--faults", "0"},
	} {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(binary, args...)
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), noExitSleep)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &stderr
		err = cmd.Run()
		full.Close()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("%v > /dev/full: %v, want exit status 2; stderr:\n%s", args, err, stderr.String())
		}
		contains(t, strings.Join(args, " ")+" stderr", stderr.String(), "on standard output: no space left on device")
	}
}

// TestOutputsNeverClobberInputs checks that no result file may be the
// script, an input, another result file or a picture --plot may draw, and
// that an existing file of another kind is replaced only with --force.
func TestOutputsNeverClobberInputs(t *testing.T) {
	dir := t.TempDir()
	const scriptText = "function trial(t) t.record('x', 1) end\n"
	mine := writeFile(t, dir, "mine.lua", scriptText)
	writeFile(t, dir, "myexp.lua", "print('my experiment')\n")
	writeFile(t, dir, "notes.json", "these are my notes\n")
	os.Link(mine, filepath.Join(dir, "hard.jsonl"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"campaign", mine, "--out", mine}, "--out " + mine + " is the same file as the input " + mine},
		{[]string{"campaign", mine, "--summary", filepath.Join(dir, "hard.jsonl")}, "is the same file as the input " + mine},
		{[]string{"campaign", mine, "--plot", filepath.Join(dir, "c.svg"), "--summary", filepath.Join(dir, "c_x.svg")},
			"--plot " + filepath.Join(dir, "c.svg") + " may draw " + filepath.Join(dir, "c_x.svg")},
		{[]string{"campaign", mine, "--out", filepath.Join(dir, "a.json"), "--summary", filepath.Join(dir, ".", "a.json")}, "is the same file as --out"},
		{[]string{"campaign", "merge", filepath.Join(dir, "notes.json"), "--summary", filepath.Join(dir, "notes.json")}, "is the same file as the input"},
		{[]string{"--trace", mine, mine}, "--trace " + mine + " is the same file as the input " + mine},
		{[]string{"--stats", filepath.Join(dir, "myexp.lua"), "-e", "x = 1"}, "the file exists and is a Lua script, not what --stats writes (a JSON array); give another name, or --force to replace it"},
		{[]string{"--stats", filepath.Join(dir, "notes.json"), "-e", "x = 1"}, "the file exists and does not look like what --stats writes (a JSON array)"},
		{[]string{"check", mine, "--replay", "f0:0", "--trace", mine}, "--trace " + mine + " is the same file as the input"},
	} {
		r := runCmd(t, "", "", c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit status %d, stderr:\n%s\nwant %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if got := string(readFile(t, mine)); got != scriptText {
		t.Errorf("the script became %q", got)
	}
	contains(t, "myexp.lua", string(readFile(t, filepath.Join(dir, "myexp.lua"))), "my experiment")
	r := runCmd(t, "", "", "--stats", filepath.Join(dir, "myexp.lua"), "--force", "-e", "x = 1")
	r.wantCode(t, 0)
	if got := string(readFile(t, filepath.Join(dir, "myexp.lua"))); got != "[]\n" {
		t.Errorf("--force: the file became %q", got)
	}
}

// TestOutputsThroughLinksAndDevices checks that a symlink named as a
// result file is written through (the link stays), and that a FIFO, a
// device and /dev/stdout are written in place, never renamed over.
func TestOutputsThroughLinksAndDevices(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("target.json", link); err != nil {
		t.Fatal(err)
	}
	r := campaignRun(t, nil, "--trials", "5", "--summary", link)
	r.wantCode(t, 0)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	contains(t, "the link's target", string(readFile(t, target)), `"trials": 5`)

	// A FIFO: its reader gets the summary, and it stays a FIFO.
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	r = campaignRun(t, nil, "--trials", "5", "--summary", fifo)
	r.wantCode(t, 0)
	select {
	case b := <-got:
		contains(t, "what the FIFO's reader read", string(b), `"trials": 5`)
	case <-time.After(30 * time.Second):
		t.Fatal("the FIFO's reader got nothing")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO became %v (%v)", fi.Mode(), err)
	}

	// Devices, through links (the test never names a device directly: the
	// command before these checks renamed over it).
	null, full := filepath.Join(dir, "null.json"), filepath.Join(dir, "full.json")
	os.Symlink("/dev/null", null)
	os.Symlink("/dev/full", full)
	r = runCmd(t, "", "", "--mode", "sim", "--stats", null, "--trace", full, "-e", "startup{}:close()")
	r.wantCode(t, 1)
	contains(t, "stderr", r.stderr, "--trace: no space left on device")
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		if fi, err := os.Stat(dev); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s is now %v (%v)", dev, fi.Mode(), err)
		}
	}

	// /dev/stdout is the descriptor: the stats follow what was printed.
	stdoutFile := filepath.Join(dir, "stdout.txt")
	f, err := os.Create(stdoutFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--mode", "sim", "--stats", "/dev/stdout", "-e", "print('before'); startup{}:close()")
	cmd.Env = append(os.Environ(), noExitSleep)
	cmd.Stdout = f
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if s := string(readFile(t, stdoutFile)); !strings.HasPrefix(s, "before\n[\n") || !strings.Contains(s, `"state": "closed"`) {
		t.Errorf("stdout holds %q, want the print then the stats", s)
	}
	noTemporaryFiles(t, dir)
}

// shardSummaries runs the shards of a campaign of script (2 shards, 20
// trials) and returns their summary files.
func shardSummaries(t *testing.T, dir, script string) []string {
	t.Helper()
	var files []string
	for _, k := range []string{"0", "1"} {
		path := filepath.Join(dir, "shard-"+k+".json")
		r := campaignRun(t, nil, script, "--trials", "20", "--shard", k+"/2", "--summary", path)
		if r.code > 1 {
			t.Fatalf("shard %s: exit status %d\n%s", k, r.code, r.stderr)
		}
		files = append(files, path)
	}
	return files
}

// editJSON rewrites the JSON file at path with edit and writes it to a new
// file in dir, whose path it returns.
func editJSON(t *testing.T, dir, path, name string, edit func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(readFile(t, path), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, _ := json.MarshalIndent(m, "", "  ")
	return writeFile(t, dir, name, string(b))
}

// TestMergeByDigests checks that merge compares the scripts' bytes, not
// their paths: two scripts at one path are refused, one script under two
// paths is merged.
func TestMergeByDigests(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "scripts"), 0o755)
	shard := func(path, k string) string { // shard k of 2 of the script at path, as written
		summary := filepath.Join(dir, "s"+k+".json")
		r := runCmd(t, dir, "", "campaign", path, "--trials", "10", "--shard", k+"/2", "--summary", summary)
		r.wantCode(t, 0)
		return summary
	}
	writeFile(t, dir, "scripts/x.lua", "function trial(t) return 'a' end")
	shard0, shard1 := shard("./scripts/x.lua", "0"), shard("scripts/x.lua", "1")
	r := runCmd(t, dir, "", "campaign", "merge", shard0, shard1)
	r.wantCode(t, 0)
	contains(t, "merge", r.stdout, "campaign: 10 trials of ./scripts/x.lua", "      10  a\n")
	writeFile(t, dir, "scripts/x.lua", "function trial(t) return 'b' end")
	r = runCmd(t, dir, "", "campaign", "merge", shard0, shard("scripts/x.lua", "1"))
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "cannot merge different campaigns", "their trial scripts differ (by the SHA-256 of their bytes)")
}

// TestMergeRefusesForgedSummaries checks that merge refuses, with one line
// each, summaries no run could have written.
func TestMergeRefusesForgedSummaries(t *testing.T) {
	dir := t.TempDir()
	shards := shardSummaries(t, dir, "campaign/testdata/failing.lua")
	for _, c := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"negative", func(m map[string]any) { m["outcomes"].(map[string]any)["done"] = -5.0 }, "outcome \"done\" counts -5"},
		{"sum", func(m map[string]any) { m["outcomes"].(map[string]any)["done"] = 50.0 }, "the outcomes count"},
		{"replay", func(m map[string]any) {
			m["failures"].([]any)[0].(map[string]any)["replay"] = "rm -rf /"
		}, "its replay is not the command that replays it"},
		{"no shard", func(m map[string]any) { delete(m, "shard") }, "trials planned, where its shards of a campaign of 20 hold 20"},
		{"seed", func(m map[string]any) { m["seed"] = 9007199254740990.0 }, "not within 1..2^53-1"},
		{"null measurement", func(m map[string]any) { m["measurements"] = map[string]any{"x": nil} }, `measurement "x": null where a measurement belongs`},
		{"digest", func(m map[string]any) { delete(m, "script_sha256") }, "without the SHA-256 digests"},
	} {
		forged := editJSON(t, dir, shards[0], c.name+".json", c.edit)
		r := campaignRun(t, nil, "merge", forged, shards[1])
		r.wantCode(t, 2)
		if want := "residentlua: campaign merge: " + forged + ": not a campaign summary: "; !strings.HasPrefix(r.stderr, want) ||
			!strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: stderr %q, want one line %q...%q", c.name, r.stderr, want, c.want)
		}
	}
	joined := writeFile(t, dir, "joined.json", string(readFile(t, shards[0]))+string(readFile(t, shards[1])))
	// Outcomes that are not UTF-8 (which JSON decoders would each turn
	// into U+FFFD, one key for all).
	latin1 := writeFile(t, dir, "latin1.json", strings.Replace(string(readFile(t, shards[0])), `"done": `, "\"d\xf6ne\": ", 1))
	notOurs := writeFile(t, dir, "package.json", `{"name": "left-pad", "version": "1.3.0"}`)
	picture := writeFile(t, dir, "p.json", "\x89PNG\r\n\x1a\n....")
	for _, f := range []string{joined, notOurs, picture, latin1} {
		r := campaignRun(t, nil, "merge", f)
		r.wantCode(t, 2)
		if !strings.Contains(r.stderr, f+": not a campaign summary: ") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: stderr %q", filepath.Base(f), r.stderr)
		}
	}
}

// TestMergeOfIncompleteCampaign checks that a merge with a shard missing,
// or of a shard that was stopped, prints its summary and exits 2 naming
// them; a merge of every shard with failures exits 1.
func TestMergeOfIncompleteCampaign(t *testing.T) {
	dir := t.TempDir()
	shards := shardSummaries(t, dir, "campaign/testdata/failing.lua")
	r := campaignRun(t, nil, "merge", shards[0])
	r.wantCode(t, 2)
	contains(t, "stdout", r.stdout, "shard 0 of 2: 10 trials")
	contains(t, "stderr", r.stderr, "the campaign is incomplete: shard 1 of 2 missing")
	r = campaignRun(t, nil, append([]string{"merge"}, shards...)...)
	r.wantCode(t, 1)
	// A shard stopped by SIGTERM.
	marker := filepath.Join(dir, "49-done")
	stopped := filepath.Join(dir, "stopped.json")
	p := startCommand(t, "campaign", hungScript(t, dir, marker, true), "--trials", "100", "--shard", "1/2", "--workers", "2", "--summary", stopped)
	waitForFile(t, p, marker)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if status, _ := p.wait(t, 30*time.Second); status != 143 {
		t.Fatalf("the shard exited %d; stderr:\n%s", status, p.stderr.String())
	}
	first := filepath.Join(dir, "first.json")
	campaignRun(t, nil, hungScript(t, dir, marker, true), "--trials", "100", "--shard", "0/2", "--summary", first)
	r = campaignRun(t, nil, "merge", first, stopped)
	r.wantCode(t, 2)
	contains(t, "stdout", r.stdout, "campaign: 100 trials of ")
	contains(t, "stderr", r.stderr, "the campaign is incomplete: shard 1 ("+stopped+") stopped after ")
}

// TestCampaignDeterminismChecks checks what keeps a campaign a function of
// its seeds: no real-time fabric in a trial, trial_fabric's mode refused
// once before any trial, a warning for state kept between trials, the
// failure outcomes reserved, Slurm's variables ignored without --shard
// auto, and a script read from a pipe given to every worker.
func TestCampaignDeterminismChecks(t *testing.T) {
	dir := t.TempDir()
	realtime := writeFile(t, dir, "rt.lua", `function trial(t) resident.fabric{mode = "realtime"} end`)
	r := campaignRun(t, nil, realtime, "--trials", "3")
	r.wantCode(t, 1)
	contains(t, "stdout", r.stdout, "failures: 3", "only a simulated fabric can be made here")
	cuda := writeFile(t, dir, "cuda.lua", `function trial(t) resident.fabric{gpu = {backend = "cuda"}} end`)
	r = campaignRun(t, nil, cuda, "--trials", "3")
	r.wantCode(t, 1)
	contains(t, "stdout", r.stdout, "failures: 3", "only a simulated fabric can be made here")

	mode := writeFile(t, dir, "mode.lua", `trial_fabric = {mode = "realtime"}
function trial(t) end`)
	r = campaignRun(t, nil, mode, "--trials", "100", "--workers", "2")
	r.wantCode(t, 2)
	if want := "trial_fabric.mode: a campaign's trials always run in simulated time"; strings.Count(r.stderr, want) != 1 || r.stdout != "" {
		t.Errorf("stderr %q, stdout %q; want %q once and no summary", r.stderr, r.stdout, want)
	}

	// Every trial but a worker's first returns "many", and a fresh state
	// returns "few": of the three last trials, which the check runs again,
	// two workers cannot have run all as their first, however the trials
	// fell to them.
	counter := writeFile(t, dir, "counter.lua", `count = 0
function trial(t) count = count + 1; return count > 1 and "many" or "few" end`)
	r = campaignRun(t, nil, counter, "--trials", "60", "--workers", "2")
	r.wantCode(t, 0)
	contains(t, "stderr", r.stderr, "residentlua: warning: trials run again, each in a fresh Lua state, ended otherwise than in the campaign",
		`returned "many", then "few"`, "keeps state from one trial to the next")

	reserved := writeFile(t, dir, "reserved.lua", `function trial(t) return "violation" end`)
	r = campaignRun(t, nil, reserved, "--trials", "2")
	r.wantCode(t, 1)
	contains(t, "stdout", r.stdout, `FAIL seed 1 (error): trial returned "violation", an outcome the campaign keeps for its own verdicts`)

	slurm := []string{"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_COUNT=4"}
	r = campaignRun(t, slurm, "--trials", "12")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "campaign: 12 built-in trials")
	contains(t, "stderr", r.stderr, "SLURM_ARRAY_TASK_ID is set, but this runs the whole campaign; give --shard auto")
	if strings.Contains(r.stdout, "shard") {
		t.Errorf("sharded without --shard auto:\n%s", r.stdout)
	}
	r = campaignRun(t, slurm, "--trials", "12", "--shard", "auto")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "shard 1 of 4: 3 trials")
	r = campaignRun(t, nil, "--trials", "12", "--shard", "auto")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "--shard auto: SLURM_ARRAY_TASK_ID=\"\"")

	piped := runCmd(t, "", "function trial(t) t.record('n', t.index) return 'piped' end", "campaign", "/dev/stdin", "--trials", "40", "--workers", "2")
	piped.wantCode(t, 0)
	contains(t, "stdout", piped.stdout, "campaign: 40 trials of /dev/stdin", "      40  piped\n")
}

// TestCampaignMessages checks what a researcher reads: an unknown option
// is unrecognized, exact minimum and maximum and whole percentiles in the
// text, no table address from t.fail, a replay that refuses options it
// would ignore and a seed outside the campaign, and numbers with units.
func TestCampaignMessages(t *testing.T) {
	r := campaignRun(t, nil, "--bogus")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "residentlua: campaign: unrecognized option '--bogus'")
	for _, args := range [][]string{{"--out", "o.jsonl"}, {"--summary", "s.json"}, {"--shard", "0/2"}, {"--workers", "2"}, {"--shards", "2"}} {
		r = campaignRun(t, nil, append([]string{"--replay", "3"}, args...)...)
		r.wantCode(t, 2)
		contains(t, "stderr", r.stderr, args[0]+" does not go with --replay")
	}
	r = campaignRun(t, nil, "--replay", "1001")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "replay seed 1001 is not a trial of the campaign, whose seeds are 1..1000 (--seed 1, --trials 1000)")

	dir := t.TempDir()
	bytesScript := writeFile(t, dir, "bytes.lua", `function trial(t)
  t.record("payload bytes", (t.index % 257) * 8)
  t.record("latency", 1e-6 * (1000 + t.index) + 3e-9)
  if t.index == 0 then t.fail({}) end
end`)
	sum := filepath.Join(dir, "s.json")
	r = campaignRun(t, nil, bytesScript, "--trials", "1000", "--summary", sum)
	r.wantCode(t, 1)
	var s struct {
		Measurements map[string]map[string]any
	}
	if err := json.Unmarshal(readFile(t, sum), &s); err != nil {
		t.Fatal(err)
	}
	// The text's row of a count shows the JSON's figures as they are.
	pb := s.Measurements["payload bytes"]
	var want []string
	for _, k := range []string{"count", "mean", "min", "p50", "p90", "p99", "p99.9", "max"} {
		want = append(want, fmt.Sprint(pb[k]))
	}
	want[1] = "998" // the mean, to 3 digits
	if pb["max"] != 2048.0 {
		t.Errorf("payload bytes max %v in the JSON", pb["max"])
	}
	row := ""
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "  payload bytes ") {
			row = strings.Join(strings.Fields(strings.TrimPrefix(l, "  payload bytes ")), " ")
		}
	}
	if row != strings.Join(want, " ") {
		t.Errorf("the text's row of payload bytes is %q, want %q (the JSON's)", row, strings.Join(want, " "))
	}
	contains(t, "stdout", r.stdout, "min and max exact",
		"  latency         1000  1.5ms  1.000003ms ", " 1.999003ms\n",
		"FAIL seed 1 (failed): t.fail called with a table value\n")
	if strings.Contains(r.stdout, "0x") {
		t.Errorf("an address in the summary:\n%s", r.stdout)
	}
	contains(t, "stderr", r.stderr, "residentlua: 1000 trials in ", " trials a second)")
	r = campaignRun(t, nil, "--trials", "1")
	contains(t, "stderr", r.stderr, "residentlua: 1 trial in ")
	r = campaignRun(t, nil, "--replay", "1")
	contains(t, "replay", r.stdout, "s1 new: 5 rounds, 1 credit, 48-byte slots on pm4\n", "\nmeasurements:\n  elapsed: ")
}

// TestCampaignDocsExamples runs every command docs/campaigns.md shows with
// its output ("$ residentlua campaign ..."): the output must be what the
// command prints, but where a line "..." stands for lines left out.
func TestCampaignDocsExamples(t *testing.T) {
	doc := string(readFile(t, filepath.Join(repoRoot, "docs", "campaigns.md")))
	examples := regexp.MustCompile("(?s)```\n\\$ residentlua (campaign [^\n]*)\n(.*?)```").FindAllStringSubmatch(doc, -1)
	if len(examples) < 3 {
		t.Fatalf("%d examples in docs/campaigns.md, want the summary and the two replays", len(examples))
	}
	for _, ex := range examples {
		args := strings.Fields(ex[1])
		for i, a := range args {
			if a == "--trace" {
				args[i+1] = filepath.Join(t.TempDir(), args[i+1])
			}
		}
		r := runCmd(t, "", "", args...)
		want := ex[2]
		head, tail, elided := strings.Cut(want, "...\n")
		if i := strings.LastIndex(head, "\n"); elided && i >= 0 {
			head = head[:i+1] // the line of "..." is indented as the lines it stands for
		}
		if !elided && r.stdout != want || elided && (!strings.HasPrefix(r.stdout, head) || !strings.HasSuffix(r.stdout, tail)) {
			t.Errorf("residentlua %s prints:\n%s\nthe docs show:\n%s", ex[1], r.stdout, want)
		}
	}
}

// TestSignalsWaitForFilesBeingWritten checks that signals arriving while
// result files are written wait for them: a picture of a campaign and a
// trace of the interpreter are written into FIFOs that the test reads only
// after sending two Ctrl-Cs, and the command ends by the signal only once
// every file is complete, leaving no temporary file.
func TestSignalsWaitForFilesBeingWritten(t *testing.T) {
	for _, c := range []struct {
		name string
		args func(dir, fifo string) []string
		fifo string
		end  string // how the file the FIFO's reader gets ends
		more string // another result file, complete at the end
	}{
		{"campaign picture", func(dir, fifo string) []string {
			return []string{"campaign", "--trials", "50", "--summary", filepath.Join(dir, "s.json"), "--plot", fifo}
		}, "p.svg", "</svg>\n", "s.json"},
		{"interpreter trace", func(dir, fifo string) []string {
			return []string{"--mode", "sim", "--trace", fifo, "--stats", filepath.Join(dir, "s.json"), "-e", "startup{}:close()"}
		}, "t.json", "],\"displayTimeUnit\":\"ns\"}\n", "s.json"},
	} {
		dir := t.TempDir()
		fifo := filepath.Join(dir, c.fifo)
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		p := startCommand(t, c.args(dir, fifo)...)
		time.Sleep(time.Second) // the command is now writing into the FIFO, which waits for a reader
		p.cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(100 * time.Millisecond)
		p.cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(500 * time.Millisecond)
		select {
		case <-p.done:
			t.Fatalf("%s: the command ended while writing its files; stderr:\n%s", c.name, p.stderr.String())
		default:
		}
		b, err := os.ReadFile(fifo)
		if err != nil {
			t.Fatal(err)
		}
		p.wait(t, 30*time.Second)
		if !strings.HasSuffix(string(b), c.end) {
			t.Errorf("%s: the file read through the FIFO ends %q, want it whole", c.name, b[max(0, len(b)-40):])
		}
		if more := readFile(t, filepath.Join(dir, c.more)); !json.Valid(more) {
			t.Errorf("%s: %s is not whole: %q", c.name, c.more, more)
		}
		noTemporaryFiles(t, dir)
	}
}
