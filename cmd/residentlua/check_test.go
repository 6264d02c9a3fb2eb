package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// checkRun runs residentlua check with args.
func checkRun(t *testing.T, args ...string) result {
	t.Helper()
	return runCmdEnv(t, "", "", nil, append([]string{"check"}, args...)...)
}

// smallCheck are bounds under which the built-in scenario is explored in
// seconds.
var smallCheck = []string{"--rounds", "1", "--credits", "1", "--preemptions", "1", "--sessions", "1", "--misuse", "off"}

func TestCheckBuiltinClean(t *testing.T) {
	r := checkRun(t, smallCheck...)
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "check: the built-in scenario",
		"pair: the built-in exchange, rounds <= 1, credits <= 1 (digest c31dabf9)\n",
		"bounds: faults <= 1, preemptions <= 1, steps <= 200, sessions <= 1, misuse off\n",
		" distinct states, ", "bounded space exhausted in ", "no invariant broken")
	if !regexp.MustCompile(`\n[1-9][0-9]* schedules, [1-9][0-9]* distinct states`).MatchString(r.stdout) {
		t.Errorf("no schedules and states counted:\n%s", r.stdout)
	}
	// Not a terminal: no progress line.
	if strings.Contains(r.stderr, "\r") || strings.Contains(r.stderr, "schedules") {
		t.Errorf("progress on a pipe: %q", r.stderr)
	}
}

// TestCheckSessionsMisuseNoPrune runs the command with the sessions and
// misuse bounds, and without pruning: each report says its bounds, one
// session without misuse explores fewer schedules than the defaults, and
// the search without pruning hashes no state, explores more schedules and
// finds what the pruned one finds (nothing).
func TestCheckSessionsMisuseNoPrune(t *testing.T) {
	tiny := []string{"--rounds", "1", "--credits", "1", "--faults", "0", "--preemptions", "0"}
	schedules := func(r result) int {
		m := regexp.MustCompile(`\n([0-9]+) schedules, ([0-9]+) distinct states`).FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("no figures:\n%s", r.stdout)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	defaults := checkRun(t, tiny...)
	defaults.wantCode(t, 0)
	contains(t, "stdout", defaults.stdout, "steps <= 200, sessions <= 2, misuse on\n", "no invariant broken")
	one := checkRun(t, append([]string{"--sessions", "1", "--misuse", "off"}, tiny...)...)
	one.wantCode(t, 0)
	contains(t, "stdout", one.stdout, "sessions <= 1, misuse off\n", "no invariant broken")
	if a, b := schedules(one), schedules(defaults); a >= b {
		t.Errorf("one session without misuse explored %d schedules, the defaults %d: want fewer", a, b)
	}
	unpruned := checkRun(t, append([]string{"--sessions=1", "--misuse=0", "--no-prune"}, tiny...)...)
	unpruned.wantCode(t, 0)
	contains(t, "stdout", unpruned.stdout, "sessions <= 1, misuse off\nwithout pruning: no state hashed\n", " schedules, 0 distinct states, 0 pruned", "no invariant broken")
	if a, b := schedules(unpruned), schedules(one); a <= b {
		t.Errorf("without pruning %d schedules, with %d: want more", a, b)
	}
}

func TestCheckLuaScenario(t *testing.T) {
	dir := t.TempDir()
	// The scenario prints on every run: only --replay shows it.
	script := writeFile(t, dir, "s.lua", `function scenario(c)
  local s = startup{rounds = c.rounds, credits = c.credits}
  if c.choose(2) == 0 then
    local ok, err = pcall(s.start, s)
    assert(err.kind == "busy")
  else
    s:abort()
  end
  print("closing", s:close(1))
  c.reset()
end
`)
	r := checkRun(t, script, "--faults", "0", "--rounds", "1", "--credits", "1")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "check: the scenario of "+script, "faults <= 0", "bounded space exhausted", "no invariant broken")
	if strings.Contains(r.stdout, "closing") {
		t.Errorf("the search showed the scenario's prints:\n%s", r.stdout)
	}
	r = checkRun(t, script, "--rounds", "1", "--credits", "1", "--replay", "f0pc31dabf9:1")
	r.wantCode(t, 0)
	contains(t, "replay stdout", r.stdout, "closing\tretired\n", "replay f0pc31dabf9:1 of the scenario of "+script,
		"* host  host chooses 1 of 2 for c.choose(2)", "* host  s1:abort() = ok", "no invariant broken")
}

func TestCheckScenarioFails(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.lua", "function scenario(c) error('broken scenario') end\n")
	r := checkRun(t, bad)
	r.wantCode(t, 2)
	contains(t, "stdout", r.stdout, "the scenario itself failed in 1 run;", "broken scenario")
	contains(t, "stderr", r.stderr, "the scenario failed in 1 run, not explored further")
	none := writeFile(t, dir, "none.lua", "x = 1\n")
	r = checkRun(t, none)
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "is not a check scenario: it defines no function scenario(c)")
	r = checkRun(t, filepath.Join(dir, "missing.lua"))
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "missing.lua")
}

func TestCheckReplayWithTrace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.json")
	r := checkRun(t, "--rounds", "1", "--credits", "1", "--replay", "f1pc31dabf9:2.0.1", "--trace", trace)
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "replay f1pc31dabf9:2.0.1 of the built-in scenario (first alternatives marked -):",
		"  * host  host chooses the setup: fault npu.dispatch 50%1*error(rejected), rounds 1, credits 1",
		"  - host  host chooses the plan: submit_gpu, submit_npu, close(0s)",
		"  *       fault npu.dispatch fires (50%)",
		"  * host  s1:submit_npu() = error: device: dispatch: npu0 rejected the dispatch: rejected",
		"  * host  reset every device = ok", "no invariant broken")
	contains(t, "trace", string(readFile(t, trace)), `"traceEvents"`, `"dispatch.reject"`)
	r = checkRun(t, "--rounds", "1", "--credits", "1", "--replay", "f1pc31dabf9:999")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, `replay "f1pc31dabf9:999": choice 1 is 999 but has only`)
	r = checkRun(t, "--replay", "f1pc31dabf9:2.0.1")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, `was made by the programs whose digest is c31dabf9, not by the built-in exchange, rounds <= 2, credits <= 2 (digest 354c2724)`)
}

func TestCheckUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rounds", "0"}, `--rounds "0": rounds must be a whole number from 1 to 1000000, got 0`},
		{[]string{"--credits=65"}, `--credits "65": credits must be a whole number from 1 to 64, got 65`},
		{[]string{"--faults", "-1"}, `--faults "-1": faults must be a whole number from 0 to 100, got -1`},
		{[]string{"--preemptions", "two"}, `--preemptions "two": preemptions must be a whole number`},
		{[]string{"--steps"}, "check: '--steps' needs argument"},
		{[]string{"--bogus"}, "check: unrecognized option '--bogus'"},
		{[]string{"--force=yes"}, "check: '--force' takes no argument"},
		{[]string{"--seed", "1"}, "check: unrecognized option '--seed'"},
		{[]string{"-x"}, "check: unrecognized option '-x'"},
		{[]string{"a.lua", "b.lua"}, "one scenario script at most, got a.lua b.lua"},
		{[]string{"--trace", "t.json"}, "--trace goes with --replay STR"},
		{[]string{"--replay", "f1:", "--faults", "0"}, "--faults does not go with --replay"},
		{[]string{"--replay", "f1:", "--trace", "-e"}, `--trace "-e": give a file name`},
		{[]string{"--replay", "nope"}, `replay "nope" has no ':'`},
		{[]string{"--replay="}, `--replay "": give the replay string a counterexample printed`},
		{[]string{"--sessions", "4"}, `--sessions "4": sessions must be a whole number from 1 to 3, got 4`},
		{[]string{"--misuse", "maybe"}, `--misuse "maybe": misuse must be on or off (or 1 or 0)`},
		{[]string{"--misuse=2"}, `--misuse "2": misuse must be 0 (off) or 1 (on), got 2`},
		{[]string{"--no-prune=yes"}, "check: '--no-prune' takes no argument"},
		{[]string{"--replay", "f1:", "--sessions", "1"}, "--sessions does not go with --replay"},
		{[]string{"--replay", "f1:", "--no-prune"}, "--no-prune does not go with --replay: a replay runs one schedule, and prunes nothing"},
	} {
		r := checkRun(t, tc.args...)
		r.wantCode(t, 2)
		contains(t, strings.Join(tc.args, " ")+" stderr", r.stderr, "residentlua: "+tc.want)
	}
	r := checkRun(t, "--help")
	r.wantCode(t, 0)
	contains(t, "--help", r.stdout, "usage: residentlua check [SCENARIO.lua] [options]", "--rounds R", "--credits C",
		"--faults F", "--preemptions P", "--steps N", "--sessions S", "--misuse on|off", "--no-prune", "--replay STR", "--trace FILE", "docs/checking.md")
	r = runCmd(t, "", "", "--help")
	contains(t, "residentlua --help", r.stdout, "residentlua check --help")
}

// forgedDecision is a scenario with a violation a correct engine cannot
// make: when the host chooses so, it emits a second decision of the
// session's, which breaks invariant 1.
func forgedDecision(h *check.Host) {
	cfg := exchange.Default()
	cfg.Rounds, cfg.Credits = 1, 1
	s, err := h.NewSession(cfg)
	if err != nil {
		return
	}
	_ = s.Abort()
	if h.ChooseAmong("a forgery", []string{"none", "a second decision"}) == 1 {
		h.Fabric().Events().Emit(event.HostActor, s.ID(), oracle.EvDecide, uint64(program.StartupAbort), 0, "")
	}
	s.Close(0)
	h.ResetDevices()
}

// TestCheckReportsViolation runs the command's search and replay on a
// scenario that breaks an invariant: status 1, the counterexample in words,
// and a replay string that reproduces it.
func TestCheckReportsViolation(t *testing.T) {
	o := &checkOptions{}
	var out bytes.Buffer
	rep := check.Check(context.Background(), forgedDecision, check.Options{})
	if code := o.report(&rep, &out); code != checkBroken {
		t.Fatalf("status %d, want %d:\n%s", code, checkBroken, out.String())
	}
	contains(t, "report", out.String(), "bounded space exhausted",
		"invariant 1 (at most one decision per startup line, and it is RUN or ABORT) violated in session 1",
		"* host  host chooses a forgery: a second decision", "events that led to it:", "replay: f1:0.1")
	replay := regexp.MustCompile(`replay: (\S+)`).FindStringSubmatch(out.String())[1]
	out.Reset()
	o.replay = replay
	if code := o.runReplay(context.Background(), forgedDecision, &out); code != checkBroken {
		t.Fatalf("replay %s: status %d, want %d:\n%s", replay, code, checkBroken, out.String())
	}
	contains(t, "replay", out.String(), "* host  host chooses a forgery: a second decision",
		"invariant 1 (at most one decision", "events that led to it:", " decide ")
}

// TestCheckProgressAndCtrlC runs a search that takes seconds on a
// terminal: the progress line comes, and Ctrl-C stops the search with the
// report of what it explored, not exhausted, and status 1.
func TestCheckProgressAndCtrlC(t *testing.T) {
	tm := startTerminal(t, "", "check", "--rounds", "2", "--credits", "2", "--preemptions", "3")
	tm.expect("\r")
	tm.expect(" schedules  ")
	tm.expect(" states  0 violations  ")
	tm.expect("\r") // the line again, updated in place
	tm.expect(" schedules  ")
	tm.send("\x03")
	tm.expect("\r\ncheck: the built-in scenario") // the line ended before the report
	tm.expect("bounded space not exhausted (stopped)")
	tm.expect("interrupted: the search stopped after ")
	if code := tm.exit(); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
}

// TestCheckDocsExamples runs every "$ residentlua check ..." of
// docs/checking.md's console blocks and compares what it prints with what
// the block shows, the time taken aside.
func TestCheckDocsExamples(t *testing.T) {
	doc := string(readFile(t, filepath.Join(repoRoot, "docs", "checking.md")))
	blocks := regexp.MustCompile("(?s)```console\n\\$ residentlua (check[^\n]*)\n(.*?)```").FindAllStringSubmatch(doc, -1)
	if len(blocks) < 2 {
		t.Fatalf("docs/checking.md shows %d examples of the command, want at least 2", len(blocks))
	}
	elapsed := regexp.MustCompile(`exhausted in [0-9.]+[µmn]?s\n`)
	for _, b := range blocks {
		r := runCmd(t, "", "", strings.Fields(b[1])...)
		r.wantCode(t, 0)
		got, want := elapsed.ReplaceAllString(r.stdout, "exhausted in TIME\n"), elapsed.ReplaceAllString(b[2], "exhausted in TIME\n")
		if got != want {
			t.Errorf("residentlua %s printed\n%s\ndocs/checking.md shows\n%s", b[1], got, want)
		}
	}
}

// TestCheckFromScriptInterrupted stops resident.check with Ctrl-C
// (SIGINT) while its scenario runs, in a loop that never ends: the check
// stops, and the script ends with an error saying how far it came. (The
// scenario says it runs on standard error: a search discards its prints.)
func TestCheckFromScriptInterrupted(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "loop.lua", "function scenario(c)\n  io.stderr:write('running\\n')\n  while true do end\nend\n")
	cmd := exec.Command(binary, "-e", `resident.check{scenario = "loop.lua"}`)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), noExitSleep)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, len("running\n"))
	if _, err := io.ReadFull(stderr, line); err != nil || string(line) != "running\n" {
		cmd.Process.Kill()
		t.Fatalf("read %q, %v", line, err)
	}
	cmd.Process.Signal(os.Interrupt)
	rest, _ := io.ReadAll(stderr)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1; stderr:\n%s", err, rest)
	}
	contains(t, "stderr", string(rest), "resident.check interrupted before the end of the bounded space (schedules explored: 1,")
}

// The programs the checker runs in place of the exchange, and the bounds
// under which it finds the broken one's stale generation in seconds: two
// rounds through one credit, no fault, one preemption, one session and no
// misuse (how sessions share the devices does not depend on the programs).
var (
	programBounds = []string{"--rounds", "2", "--credits", "1", "--faults", "0", "--preemptions", "1", "--sessions", "1", "--misuse", "off"}
	goodPrograms  = "programs/exchange/exchange_gpu.lua,programs/exchange/exchange_npu.lua"
	badPrograms   = "programs/exchange/exchange_gpu.lua,programs/exchange/exchange_npu_early_credit.lua"
)

// TestCheckFindsABrokenProgram checks the exchange's Lua text and a broken
// NPU half that returns its credit before it reads the slot: the correct
// pair exhausts clean; the broken one breaks invariant 7 (its own check
// finds generation 1 read from generation 2's data), with a shortest
// schedule whose replay string reruns it.
func TestCheckFindsABrokenProgram(t *testing.T) {
	good := checkRun(t, append([]string{"--programs", goodPrograms}, programBounds...)...)
	good.wantCode(t, 0)
	contains(t, "stdout", good.stdout, "check: the built-in scenario with programs/exchange/exchange_gpu.lua and programs/exchange/exchange_npu.lua", "bounded space exhausted", "no invariant broken")

	bad := checkRun(t, append([]string{"--programs", badPrograms}, programBounds...)...)
	bad.wantCode(t, 1)
	contains(t, "stdout", bad.stdout, "invariant 7 (", "its NPU program's check failed: generation 1 has checksum", "the slot was corrupted", "shortest schedule found")
	m := regexp.MustCompile(`replay: (f0s1m0p[0-9a-f]{8}:[0-9.]+)`).FindStringSubmatch(bad.stdout)
	if m == nil {
		t.Fatalf("no replay string:\n%s", bad.stdout)
	}
	replay := checkRun(t, "--programs", badPrograms, "--rounds", "2", "--credits", "1", "--replay", m[1])
	replay.wantCode(t, 1)
	contains(t, "stdout", replay.stdout, "replay "+m[1]+" of the built-in scenario with", "invariant 7 (", "generation 1 has checksum")

	for _, c := range []struct{ args, want string }{
		{"--programs programs/exchange/exchange_gpu.lua", `--programs "programs/exchange/exchange_gpu.lua": give the GPU program's file and the NPU program's`},
		{"--programs no.lua,programs/exchange/exchange_npu.lua", "cannot read program no.lua"},
		{"luaapi/testdata/scenario.lua --programs " + goodPrograms, "--programs goes with the built-in scenario"},
	} {
		r := checkRun(t, strings.Fields(c.args)...)
		r.wantCode(t, 2)
		contains(t, "stderr", r.stderr, c.want)
	}
}

// TestCheckNotAScenario checks an ordinary script: the command says that
// it is not a scenario and what one is, rather than a Lua error of it.
func TestCheckNotAScenario(t *testing.T) {
	r := checkRun(t, "examples/hello.lua")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "residentlua: examples/hello.lua is not a check scenario: it defines no function scenario(c).",
		"A scenario is a script that defines function scenario(c)", "c.choose(n)", "docs/checking.md")
	if strings.Contains(r.stderr, "attempt to call") || strings.Contains(r.stderr, "traceback") {
		t.Errorf("a Lua error rather than what is wrong:\n%s", r.stderr)
	}
}

// TestCheckReplayValidatesBounds refuses replay strings whose bounds are
// out of the bound flags' ranges, rather than replaying other bounds.
func TestCheckReplayValidatesBounds(t *testing.T) {
	for replay, want := range map[string]string{
		"f-1:":     `replay "f-1:": faults must be a whole number from 0 to 100, got -1`,
		"f1s9:":    `replay "f1s9:": sessions must be a whole number from 1 to 3, got 9`,
		"r1c1f1:2": `replay "r1c1f1:2" does not begin with f<faults>`,
	} {
		r := checkRun(t, "--replay", replay)
		r.wantCode(t, 2)
		contains(t, replay+" stderr", r.stderr, "residentlua: "+want)
		if r.stdout != "" {
			t.Errorf("--replay %s replayed:\n%s", replay, r.stdout)
		}
	}
}

// TestCheckOsExit calls os.exit in a scenario, from a local that captured
// it and at the top level: an error of the scenario, never the end of the
// process with the scenario's status.
func TestCheckOsExit(t *testing.T) {
	dir := t.TempDir()
	inRun := writeFile(t, dir, "exit.lua", "local exit = os.exit\nfunction scenario(c)\n  if c.choose(2) == 1 then exit(3) end\nend\n")
	r := checkRun(t, inRun)
	r.wantCode(t, 2)
	contains(t, "stdout", r.stdout, "2 schedules", "the scenario itself failed in 1 run; the first: ", "os.exit is not available in a check scenario", "(replay f1p354c2724:1)")
	top := writeFile(t, dir, "top.lua", "os.exit(9)\nfunction scenario(c) end\n")
	r = checkRun(t, top)
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "top.lua:1: os.exit is not available in a check scenario")
	r = runCmd(t, dir, "", "-e", `print(pcall(resident.check, {scenario = "exit.lua"})) print("still here")`)
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "true\t", "still here")
}

// TestCheckNotDeterministic checks a scenario that keeps a counter in a
// file from one run to the next: the command says it is not
// deterministic, as docs/checking.md shows, and exits with status 2.
func TestCheckNotDeterministic(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "counter.lua", `function scenario(c)
  local f = io.open("count")
  local n = f and tonumber(f:read("*a")) or 0
  if f then f:close() end
  f = io.open("count", "w")
  f:write(n + 1)
  f:close()
  c.choose(2 + n % 2)
end
`)
	r := runCmd(t, dir, "", "check", script)
	r.wantCode(t, 2)
	doc := string(readFile(t, filepath.Join(repoRoot, "docs", "checking.md")))
	shown := regexp.MustCompile("(?m)^scenario is not deterministic: .*$").FindString(doc)
	if shown == "" {
		t.Fatal("docs/checking.md shows no nondeterministic scenario's message")
	}
	contains(t, "stderr", r.stderr, "residentlua: "+shown)
	contains(t, "stdout", r.stdout, "2 schedules", "bounded space not exhausted (stopped: the scenario is not deterministic)", shown)
	r = runCmd(t, dir, "", "-e", `local ok, err = pcall(resident.check, {scenario = "counter.lua"}) print(ok, err)`)
	contains(t, "resident.check", r.stdout, "false\t", "resident.check: scenario is not deterministic: ")
}

// TestCheckFreshStatePerRun checks a scenario that counts its runs in a
// global: each run is a fresh state, so the count is 1 in every run and
// the search ends clean.
func TestCheckFreshStatePerRun(t *testing.T) {
	script := writeFile(t, t.TempDir(), "globals.lua", "function scenario(c)\n  runs = (runs or 0) + 1\n  c.choose(runs + 1)\nend\n")
	r := checkRun(t, script)
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "\n2 schedules, ", "bounded space exhausted", "no invariant broken")
}

// peakMemory is the process's peak resident memory, from /proc.
func peakMemory(t *testing.T, p *process) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("no VmHWM in /proc status:\n%s", status)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// longWait is a scenario whose wait runs an exchange of a million rounds
// in simulated time (many minutes of steps); it makes the file marker as
// the wait begins.
func longWait(marker string) string {
	return `function scenario(c)
  local s = startup{rounds = 1000000, credits = 1}
  s:submit_gpu()
  s:submit_npu()
  s:start()
  io.open("` + marker + `", "w"):close()
  s:wait(3600)
end
`
}

// TestCheckStopsInALongWait sends SIGTERM, then Ctrl-C (SIGINT) to a
// search and a replay while a run waits on an exchange of a million
// rounds: the wait stops, and the search prints what it found before it
// exits.
func TestCheckStopsInALongWait(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "waiting")
	script := writeFile(t, dir, "long.lua", longWait(marker))
	p := startCommand(t, "check", script, "--faults", "0")
	waitForFile(t, p, marker)
	p.cmd.Process.Signal(syscall.SIGTERM)
	code, took := p.wait(t, 30*time.Second)
	t.Logf("the search ended %v after SIGTERM", took)
	if code != 143 {
		t.Errorf("exit status %d after SIGTERM, want 143\nstderr:\n%s", code, p.stderr.String())
	}
	contains(t, "stdout", p.stdout.String(), "check: the scenario of "+script, "\n1 schedule, ", "bounded space not exhausted (stopped)", "no invariant broken")
	os.Remove(marker)
	p = startCommand(t, "check", script, "--replay", "f0p354c2724:")
	waitForFile(t, p, marker)
	p.cmd.Process.Signal(os.Interrupt)
	code, took = p.wait(t, 30*time.Second)
	t.Logf("the replay ended %v after Ctrl-C", took)
	if code != 1 {
		t.Errorf("exit status %d after Ctrl-C, want 1\nstderr:\n%s", code, p.stderr.String())
	}
	contains(t, "stderr", p.stderr.String(), `replay "f0p354c2724:" interrupted before the end of the scenario`)
}

// TestCheckHugeBounds runs the built-in scenario under bounds with 896
// million setups (rounds up to a million, 64 credits): it runs in little
// memory, and stops with its report on Ctrl-C, from the command and from
// resident.check; a replay of one of those setups runs as any other.
func TestCheckHugeBounds(t *testing.T) {
	p := startCommand(t, "check", "--rounds", "1000000", "--credits", "64")
	time.Sleep(time.Second)
	peak := peakMemory(t, p)
	p.cmd.Process.Signal(os.Interrupt)
	code, took := p.wait(t, 30*time.Second)
	t.Logf("peak memory %d MiB; the search ended %v after Ctrl-C", peak>>20, took)
	if peak > 2<<30 {
		t.Errorf("peak memory %d MiB, want at most 2 GiB", peak>>20)
	}
	if code != 1 {
		t.Errorf("exit status %d after Ctrl-C, want 1\nstderr:\n%s", code, p.stderr.String())
	}
	contains(t, "stdout", p.stdout.String(), "pair: the built-in exchange, rounds <= 1000000, credits <= 64 (digest 5809033b)\nbounds: faults <= 1", "bounded space not exhausted (stopped)")
	p = startCommand(t, "-e", `resident.check{rounds = 1000000, credits = 64}`)
	time.Sleep(time.Second)
	p.cmd.Process.Signal(os.Interrupt)
	if code, _ := p.wait(t, 30*time.Second); code != 1 {
		t.Errorf("resident.check: exit status %d after Ctrl-C, want 1\nstderr:\n%s", code, p.stderr.String())
	}
	contains(t, "resident.check stderr", p.stderr.String(), "resident.check interrupted ")
	r := checkRun(t, "--rounds", "1000000", "--credits", "64", "--replay", "f1p5809033b:5")
	r.wantCode(t, 0)
	contains(t, "replay", r.stdout, "host chooses the setup: no fault, rounds 1, credits 6", "no invariant broken")
}

// TestCheckScenarioFromStdin checks a scenario read from standard input,
// read once for all its runs.
func TestCheckScenarioFromStdin(t *testing.T) {
	r := runCmd(t, "", "function scenario(c)\n  c.choose(3)\nend\n", "check", "-")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "check: the scenario of -", "\n3 schedules, ", "bounded space exhausted", "no invariant broken")
}

// TestCheckScenarioOfPrograms checks a Lua scenario that makes its sessions
// of the user's programs, as a trial script would: the exchange's Lua text
// exhausts clean; its broken NPU half breaks invariant 7, with a
// counterexample that shows the startup as the script wrote it.
func TestCheckScenarioOfPrograms(t *testing.T) {
	dir := t.TempDir()
	scenario := func(npu string) string {
		return writeFile(t, dir, "s_"+filepath.Base(npu), `local gpu = resident.program{file = "programs/exchange/exchange_gpu.lua"}
local npu = resident.program{file = "`+npu+`"}
function scenario(c)
  local s = startup{gpu = gpu, npu = npu, args = {rounds = c.rounds, credits = c.credits, slot_bytes = 64}}
  s:submit_gpu()
  s:submit_npu()
  s:start()
  s:wait(1)
  s:close(1)
  c.reset()
end
`)
	}
	good := checkRun(t, append([]string{scenario("programs/exchange/exchange_npu.lua")}, programBounds...)...)
	good.wantCode(t, 0)
	contains(t, "stdout", good.stdout, "bounded space exhausted", "no invariant broken")
	bad := checkRun(t, append([]string{scenario("programs/exchange/exchange_npu_early_credit.lua")}, programBounds...)...)
	bad.wantCode(t, 1)
	contains(t, "stdout", bad.stdout, "invariant 7 (", "generation 1 has checksum", "shortest schedule found",
		`resident.startup{args = {credits = 1, rounds = 2, slot_bytes = 64}, gpu = program "programs/exchange/exchange_gpu.lua", npu = program "programs/exchange/exchange_npu_early_credit.lua"} = s1`)
}
