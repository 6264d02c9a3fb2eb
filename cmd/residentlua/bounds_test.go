package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/lua51"
)

// TestEndlessInputsAreRefusedWithTheLimit checks that an input with no end
// (/dev/zero) is read only up to its kind's limit, and ends the command
// with an error that says the limit and what to do, not in running out
// of memory.
func TestEndlessInputsAreRefusedWithTheLimit(t *testing.T) {
	const lua = "larger than 4 MiB, the limit on a Lua source (keep large data out of the source: read it from a file with io.open)"
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"/dev/zero"}, 1, "residentlua: cannot read /dev/zero: it is " + lua},
		{[]string{"campaign", "/dev/zero"}, 2, "residentlua: campaign: cannot read the trial script /dev/zero: it is " + lua},
		{[]string{"check", "/dev/zero"}, 2, "residentlua: cannot read /dev/zero: it is " + lua},
		{[]string{"check", "--programs", "/dev/zero,programs/stream/stream_npu.lua"}, 2, "residentlua: cannot read program /dev/zero: it is " + lua},
		{[]string{"campaign", "merge", "/dev/zero"}, 2, "/dev/zero: it is larger than 64 MiB, the limit on a campaign summary"},
		{[]string{"-e", `resident.program{file = "/dev/zero"}`}, 1, "cannot read program /dev/zero: it is " + lua},
		{[]string{"-e", `resident.kernel{ptx = "/dev/zero", entry = "k"}`}, 1, "cannot read PTX /dev/zero: it is larger than 16 MiB, the limit on a PTX module"},
	}
	for _, c := range cases {
		r := runCmd(t, "", "", c.args...)
		r.wantCode(t, c.code)
		contains(t, "stderr", r.stderr, c.want)
	}
}

// TestEndlessStandardInputIsRefused checks the same of a chunk read from
// standard input, by a script, a campaign or the REPL.
func TestEndlessStandardInputIsRefused(t *testing.T) {
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	for _, args := range [][]string{{"-"}, {"campaign", "-"}, {"-i"}} {
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "RESIDENTLUA_HISTORY=", noExitSleep)
		cmd.Stdin = zero
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Run(); err == nil {
			t.Errorf("%v with /dev/zero as standard input succeeded", args)
		}
		contains(t, "stderr", errb.String(), "stdin: it is larger than 4 MiB, the limit on a Lua source")
	}
}

// TestWorkersAreCappedByMemory checks that --workers is refused, before
// anything runs, past what the memory budget holds at workerMemory a
// worker or past workerCap, with the count and the reason; and that the
// default fits.
func TestWorkersAreCappedByMemory(t *testing.T) {
	r := campaignRun(t, nil, "--workers", "20000", "--trials", "1")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "residentlua: --workers 20000: ", "give at most ")
	most := maxWorkers()
	if most < 1 || most > workerCap || int64(most) > max(1, lua51.DefaultMemoryLimit()/workerMemory) {
		t.Fatalf("maxWorkers() = %d with a memory budget of %d bytes", most, lua51.DefaultMemoryLimit())
	}
	if n, err := workerCount(strconv.Itoa(most)); err != nil || n != most {
		t.Errorf("workerCount(%d) = %d, %v", most, n, err)
	}
	_, err := workerCount(strconv.Itoa(most + 1))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("--workers %d: ", most+1)) || !strings.Contains(err.Error(), fmt.Sprintf("give at most %d", most)) {
		t.Errorf("workerCount(%d) = %v", most+1, err)
	}
	o, err := parseCampaignArgs([]string{"x.lua"})
	if err != nil || o.cfg.Workers != min(runtime.NumCPU(), most) {
		t.Errorf("default workers = %d, %v; want %d", o.cfg.Workers, err, min(runtime.NumCPU(), most))
	}
}

// TestMergeRefusesShardsThatReadDifferentProgramFiles checks that merge
// compares the program files a script read, not only the script's bytes:
// shards whose program file changed between them are refused, naming the
// file, and shards that read the same file merge.
func TestMergeRefusesShardsThatReadDifferentProgramFiles(t *testing.T) {
	dir := t.TempDir()
	program := string(readFile(t, filepath.Join(repoRoot, "programs/exchange/exchange_gpu.lua")))
	writeFile(t, dir, "gpu.lua", program)
	writeFile(t, dir, "s.lua", "local gpu = resident.program{file = \"gpu.lua\"}\nfunction trial(t) end\n")
	shard := func(k string) string {
		t.Helper()
		r := runCmd(t, dir, "", "campaign", "s.lua", "--trials", "10", "--shard", k+"/3", "--summary", k+".json")
		r.wantCode(t, 0)
		return k + ".json"
	}
	a, b := shard("0"), shard("1")
	writeFile(t, dir, "gpu.lua", program+"-- changed\n")
	c := shard("2")
	r := runCmd(t, dir, "", "campaign", "merge", a, b)
	r.wantCode(t, 2) // incomplete, but merged
	contains(t, "stderr", r.stderr, "shard 2 of 3 missing")
	r = runCmd(t, dir, "", "campaign", "merge", a, b, c)
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "residentlua: campaign merge: 2.json: campaign: cannot merge different campaigns", `their scripts read different files "gpu.lua" (by the SHA-256 of their bytes)`)
}

// TestSignalDuringMergePlotStopsBetweenPictures checks that SIGTERM or
// Ctrl-C while merge draws its pictures stops it after the picture being
// drawn: no temporary file left, the summary written, the message saying
// how many pictures were drawn, and the exit status a campaign's.
func TestSignalDuringMergePlotStopsBetweenPictures(t *testing.T) {
	dir := t.TempDir()
	// Enough pictures that a signal sent once the first is drawn comes
	// before the last; few enough that the race detector's build merges
	// them in seconds.
	const pictures = 40
	script := writeFile(t, dir, "many.lua", fmt.Sprintf(`function trial(t) for i = 1, %d do t.record(string.format("m%%03d", i), t.random() * 1e-3) end end`, pictures))
	shard := filepath.Join(dir, "shard.json")
	runCmd(t, dir, "", "campaign", script, "--trials", "2", "--summary", shard).wantCode(t, 0)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		out := t.TempDir()
		merged := filepath.Join(out, "merged.json")
		p := startCommand(t, "campaign", "merge", shard, "--summary", merged, "--plot", filepath.Join(out, "p.svg"))
		waitForFile(t, p, filepath.Join(out, "p_m001.svg"))
		p.cmd.Process.Signal(c.sig)
		code, _ := p.wait(t, 60*time.Second)
		if code != c.code {
			t.Fatalf("%v: exit status %d, want %d; stderr:\n%s", c.sig, code, c.code, p.stderr.String())
		}
		noTemporaryFiles(t, out)
		drawn, _ := filepath.Glob(filepath.Join(out, "p_*.svg"))
		contains(t, "stderr", p.stderr.String(), fmt.Sprintf("residentlua: --plot: interrupted: drew %d of %d pictures; ", len(drawn), pictures),
			"residentlua: campaign merge: interrupted: the merge of 1 summary is printed and written to "+merged)
		if len(drawn) == pictures {
			t.Errorf("%v: every picture was drawn after the signal", c.sig)
		}
		if _, err := campaign.Decode(bytes.NewReader(readFile(t, merged))); err != nil {
			t.Errorf("%v: the merged summary: %v", c.sig, err)
		}
	}
}

// TestTrialTimeoutIsBoundedAsDurationsAre checks that --trial-timeout
// takes at most 1e9 seconds, the bound of every duration the Lua API takes.
func TestTrialTimeoutIsBoundedAsDurationsAre(t *testing.T) {
	if _, err := parseCampaignArgs([]string{"--trial-timeout", "277777h", "x.lua"}); err != nil { // just under 1e9 s
		t.Errorf("--trial-timeout 277777h: %v", err)
	}
	_, err := parseCampaignArgs([]string{"--trial-timeout", "277778h", "x.lua"})
	if err == nil || err.Error() != `--trial-timeout "277778h": give at most 1e9 seconds (about 31 years), or 0 for no limit` {
		t.Errorf("--trial-timeout 277778h: %v", err)
	}
}

// TestToStringReturningATableSaysSo checks that an error value whose
// __tostring returns a table gives a message saying so, at the command
// and in a campaign's failure, rather than an empty one.
func TestToStringReturningATableSaysSo(t *testing.T) {
	const want = "(error object is a table value whose __tostring returned a table value, not a string)"
	raise := `error(setmetatable({}, {__tostring = function() return {} end}))`
	r := runCmd(t, "", "", "-e", raise)
	r.wantCode(t, 1)
	contains(t, "stderr", r.stderr, "residentlua: "+want+"\n")
	script := writeFile(t, t.TempDir(), "t.lua", "function trial(t) "+raise+" end\n")
	r = campaignRun(t, nil, script, "--trials", "1")
	r.wantCode(t, 1)
	contains(t, "stdout", r.stdout, "FAIL seed 1 (error): "+want+"\n")
}

// TestSlowTopLevelSaysNoTrialRan checks that a trial script whose top
// level runs past --trial-timeout is stopped with a message that says the
// top level, not a trial, ran too long.
func TestSlowTopLevelSaysNoTrialRan(t *testing.T) {
	script := writeFile(t, t.TempDir(), "slow.lua", "local x = 0 while true do x = x + 1 end\nfunction trial(t) end\n")
	r := campaignRun(t, nil, script, "--trials", "3", "--trial-timeout", "1s")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "residentlua: the trials' runner (a script's top level) ran past the time limit of 1s of wall time (--trial-timeout) before any trial ran, and was stopped")
	if strings.Contains(r.stderr, "the trial ran past") {
		t.Errorf("the message blames a trial, though none ran:\n%s", r.stderr)
	}
}

// slowCompile is a chunk that gopher-lua's compiler takes minutes over: it
// looks each new constant up among all the earlier ones, and each of
// these 250,000 assignments names a new global.
func slowCompile(extra string) string {
	var b strings.Builder
	for i := range 250000 {
		fmt.Fprintf(&b, "k%d=1\n", i)
	}
	return b.String() + extra
}

// TestLongCompileIsStopped checks that a script, or a device program,
// whose compile takes minutes is stopped by SIGTERM and, in a campaign, by
// --trial-timeout, while it compiles: the compile is deaf to both, so the
// load leaves it.
func TestLongCompileIsStopped(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "slow.lua", slowCompile(""))
	program := writeFile(t, dir, "slow_gpu.lua", slowCompile("return function(p) end\n"))
	mark := filepath.Join(dir, "mark")
	touch := fmt.Sprintf("io.open(%q, 'w'):close()", mark)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-e", touch, script}, "slow.lua: interrupted"},
		{[]string{"--mode", "sim", "-e", touch + fmt.Sprintf(" resident.program{file = %q}", program)}, "interrupted"},
	} {
		os.Remove(mark)
		cmd := exec.Command(binary, tc.args...)
		cmd.Env = append(os.Environ(), noExitSleep)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(mark); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("the command never ran its -e")
			}
		}
		// The compile begins a few instructions after the mark and lasts
		// minutes; a signal before it also ends the run at once.
		time.Sleep(500 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitTerminated {
				t.Fatalf("%v: exit %v, want status %d; stderr:\n%s", tc.args, err, exitTerminated, stderr.String())
			}
			contains(t, "stderr", stderr.String(), tc.want)
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatalf("%v: SIGTERM did not stop the compile", tc.args)
		}
	}

	campaignScript := writeFile(t, dir, "slowtrials.lua", slowCompile("function trial(t) t.record('x', 1) end\n"))
	r := campaignRun(t, nil, campaignScript, "--trials", "2", "--trial-timeout", "1s")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "ran past the time limit of 1s of wall time (--trial-timeout) before any trial ran")
}

// TestREPLPastedLongChunk checks that a long chunk pasted into the REPL
// (a table of 8,000 lines) runs as one chunk, and that lines read past a
// syntax error found late (inside an open table or function) are read
// again as the next chunks, so the errors come as lua5.1 -i gives them.
func TestREPLPastedLongChunk(t *testing.T) {
	var b strings.Builder
	b.WriteString("t = {\n")
	for i := range 8000 {
		fmt.Fprintf(&b, "  %d,\n", i)
	}
	b.WriteString("}\nprint('count', #t, t[8000])\n")
	b.WriteString("u = {\n 1 2,\n 3,\n}\nfunction f()\n  local x = 1\n  x = = 2\n  return x\nend\nprint('after')\n")
	r := runCmd(t, "", b.String(), "-i")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "count\t8000\t7999\n", "after\n")
	var errs []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "stdin:") {
			errs = append(errs, l)
		}
	}
	want := []string{ // as lua5.1 -i gives them
		"stdin:2: '}' expected (to close '{' at line 1) near '2'",
		"stdin:1: unexpected symbol near '3'",
		"stdin:1: unexpected symbol near '}'",
		"stdin:3: unexpected symbol near '='",
		"stdin:1: '<eof>' expected near 'end'",
	}
	if !slices.Equal(errs, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
}

// TestContinuationFollowsBlocksAndStrings checks when the REPL's
// continuation says a chunk may be complete.
func TestContinuationFollowsBlocksAndStrings(t *testing.T) {
	cases := []struct {
		lines []string
		may   bool
	}{
		{[]string{"x = 1"}, true},
		{[]string{"t = {"}, false},
		{[]string{"t = {", "1, 2,", "}"}, true},
		{[]string{"for i = 1, 3 do", "print(i)"}, false},
		{[]string{"for i = 1, 3 do", "print(i)", "end"}, true},
		{[]string{"while x do if y then z() elseif w then v() else u() end"}, false},
		{[]string{"while x do if y then z() elseif w then v() else u() end end"}, true},
		{[]string{"repeat", "x = x + 1", "until x > 3"}, true},
		{[]string{"f = function(a)", "return a end"}, true},
		{[]string{"s = [[", "end {", "]]"}, true},
		{[]string{"s = [==[", "]]", "]=]"}, false},
		{[]string{"--[[ do", "end ]] x = {"}, false},
		{[]string{"x = 1 -- do {"}, true},
		{[]string{`s = "do \`, `end {"`}, true},
		{[]string{`s = 'a "{'`}, true},
		{[]string{"x = t[ [[a]] ] + 0x1e"}, true},
	}
	for _, c := range cases {
		cont := newContinuation()
		for _, l := range c.lines {
			cont.add(l)
		}
		if got := cont.mayBeComplete(); got != c.may {
			t.Errorf("%q: mayBeComplete = %v, want %v", c.lines, got, c.may)
		}
	}
}

// TestCheckStoppedDescribesWhatItFound checks that a search of a pair of
// programs that never retire, stopped by SIGTERM, describes the violation
// it found (invariant 15) by rerunning it: the rerun's programs are not
// stopped by the signal, so it is not taken for a scenario that is not
// deterministic.
func TestCheckStoppedDescribesWhatItFound(t *testing.T) {
	dir := t.TempDir()
	spin := "return function(p) while true do p:load(p.startup, 0) end end\n"
	gpu, npu := writeFile(t, dir, "spin_gpu.lua", spin), writeFile(t, dir, "spin_npu.lua", spin)
	cmd := exec.Command(binary, "check", "--programs", gpu+","+npu, "--rounds", "1", "--credits", "1", "--faults", "0", "--preemptions", "2", "--sessions", "1", "--misuse", "off")
	cmd.Env = append(os.Environ(), noExitSleep)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.Sleep(2 * time.Second) // the search finds the violation in its first hundred schedules
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitTerminated {
			t.Fatalf("exit %v, want status %d; stderr:\n%s", err, exitTerminated, stderr.String())
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("SIGTERM did not stop the search")
	}
	out := stdout.String() + stderr.String()
	contains(t, "output", out, "not exhausted (stopped)", "invariant 15 (a fault-free session retires", "shortest schedule found")
	if strings.Contains(out, "not deterministic") {
		t.Errorf("a stopped search is reported as not deterministic:\n%.2000s", out)
	}
}
