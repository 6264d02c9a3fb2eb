package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestTrialScriptArgs runs a campaign of the fill and sum pair whose shape
// the trial script takes from --arg: each trial reads the values from
// t.args, the script sees arg as a script does, a failure's replay command
// gives the arguments again and replays the failure, and merge refuses the
// summaries of other arguments.
func TestTrialScriptArgs(t *testing.T) {
	dir := writeFiles(t, map[string]string{"fill_gpu.lua": fillGPU, "sum_npu.lua": sumNPU, "trial.lua": `local gpu = resident.program{file = "fill_gpu.lua"}
local npu = resident.program{file = "sum_npu.lua"}
local seen = tostring(arg[-1]) .. " " .. tostring(arg[0]) .. " " .. tostring(arg[1]) .. " " .. tostring(arg[2]) .. " " .. tostring(arg[3])
function trial(t)
	local a = t.args
	if t.index == 7 then t.fail(seen .. " " .. type(a.words) .. " " .. tostring(a.label)) end
	local s = resident.startup{gpu = gpu, npu = npu, args = {chunks = a.chunks, words = a.words}}
	s:submit_gpu(); s:submit_npu(); s:start()
	s:wait(1)
	return s:close()
end
`})
	args := []string{"campaign", "trial.lua", "--trials", "20", "--workers", "2", "--arg", "chunks=3", "--arg=words=2", "--arg", "label=a b"}
	r := runCmdEnv(t, dir, "", nil, append(args, "--summary", "a.json")...)
	r.wantCode(t, 1)
	contains(t, "stdout", r.stdout, "19  retired", "a session made in 20 trials, decided RUN in 20, a RUN session retired in 20",
		"FAIL seed 8 (failed): campaign trial.lua chunks=3 words=2 label=a b number a b",
		"replay: residentlua campaign trial.lua --arg chunks=3 --arg words=2 --arg 'label=a b' --seed 1 --trials 20 --replay 8")
	m := regexp.MustCompile(`replay: residentlua (.*)\n`).FindStringSubmatch(r.stdout)
	replay := runCmdEnv(t, dir, "", nil, splitShellWords(t, m[1])...)
	replay.wantCode(t, 1)
	contains(t, "stdout", replay.stdout, "campaign trial.lua chunks=3 words=2 label=a b number a b")

	other := runCmdEnv(t, dir, "", nil, "campaign", "trial.lua", "--trials", "20", "--arg", "chunks=2", "--arg", "words=2", "--arg", "label=a b", "--summary", "b.json", "--shard", "1/2")
	other.wantCode(t, 1)
	runCmdEnv(t, dir, "", nil, "campaign", "trial.lua", "--trials", "20", "--arg", "chunks=3", "--arg", "words=2", "--arg", "label=a b", "--summary", "c.json", "--shard", "0/2").wantCode(t, 0)
	merged := runCmdEnv(t, dir, "", nil, "campaign", "merge", "c.json", "b.json")
	merged.wantCode(t, 2)
	contains(t, "stderr", merged.stderr, "their scripts' arguments differ")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"campaign", "--arg", "chunks=2"}, "--arg goes with a trial script"},
		{[]string{"campaign", "trial.lua", "--arg", "chunks"}, "give name=value"},
		{[]string{"campaign", "trial.lua", "--arg", "chunks=2", "--arg", "chunks=3"}, "chunks given twice"},
	} {
		r := runCmdEnv(t, dir, "", nil, c.args...)
		r.wantCode(t, 2)
		contains(t, "stderr", r.stderr, c.want)
	}
}

// TestScenarioScriptArgs checks a scenario script given --arg: scenario(c)
// reads the values as c.args, and the script sees arg as a script does.
func TestScenarioScriptArgs(t *testing.T) {
	dir := writeFiles(t, map[string]string{"fill_gpu.lua": fillGPU, "sum_npu.lua": sumNPU, "scenario.lua": `local gpu = resident.program{file = "fill_gpu.lua"}
local npu = resident.program{file = "sum_npu.lua"}
assert(arg[-1] == "check" and arg[0] == "scenario.lua" and arg[1] == "chunks=2" and arg[2] == "words=3", "arg is not the script's")
function scenario(c)
	local s = startup{gpu = gpu, npu = npu, args = {chunks = c.args.chunks, words = c.args.words}}
	submit_gpu(s); submit_npu(s); start(s)
	wait(s, 1)
	s:close()
end
`})
	r := runCmdEnv(t, dir, "", nil, "check", "scenario.lua", "--arg", "chunks=2", "--arg", "words=3", "--faults", "0", "--preemptions", "1")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "no invariant broken")
	bare := runCmdEnv(t, dir, "", nil, "check", "scenario.lua", "--faults", "0")
	bare.wantCode(t, 2)
	contains(t, "stderr", bare.stderr, "arg is not the script's")
	wrong := runCmdEnv(t, dir, "", nil, "check", "--arg", "chunks=2")
	wrong.wantCode(t, 2)
	contains(t, "stderr", wrong.stderr, "--arg goes with a scenario script")
}

// splitShellWords splits a command a summary printed into its words, as a
// POSIX shell does for the quoting shellQuote gives ('...' and '\”).
func splitShellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur []rune
	in, started, escaped := false, false, false
	for _, c := range line {
		switch {
		case escaped:
			cur, escaped = append(cur, c), false
		case c == '\'':
			in, started = !in, true
		case c == ' ' && !in:
			if started {
				words = append(words, string(cur))
			}
			cur, started = cur[:0], false
		case c == '\\' && !in:
			started, escaped = true, true
		default:
			cur, started = append(cur, c), true
		}
	}
	if in {
		t.Fatalf("unbalanced quotes in %q", line)
	}
	if started {
		words = append(words, string(cur))
	}
	return words
}

// TestCounterexampleNamesThePrograms checks a scenario script of the ring
// pair whose GPU half writes its flag before its data: the counterexample's
// startup names each program by its file, not as "resident.program".
func TestCounterexampleNamesThePrograms(t *testing.T) {
	dir := t.TempDir()
	writeRingVariant(t, dir, 1)
	writeFile(t, dir, "scenario.lua", `local gpu = resident.program{file = "gpu.lua"}
local npu = resident.program{file = "npu.lua"}
function scenario(c)
	local s = startup{gpu = gpu, npu = npu, args = {slots = c.args.slots, msgs = 3, words = 2}}
	submit_gpu(s); submit_npu(s); start(s)
	wait(s, 1)
	s:close()
end
`)
	r := runCmdEnv(t, dir, "", nil, "check", "scenario.lua", "--arg", "slots=2", "--faults", "0", "--preemptions", "1")
	r.wantCode(t, 1)
	contains(t, "stdout", r.stdout, `gpu = program "gpu.lua", npu = program "npu.lua"} = s1`)
	if strings.Contains(r.stdout, "resident.program") {
		t.Errorf("the counterexample names a program as resident.program:\n%s", r.stdout)
	}
}
