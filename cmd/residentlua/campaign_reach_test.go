package main

import (
	"regexp"
	"strings"
	"testing"
)

// reachTrial is a trial script of the fill and sum pair whose arguments
// are args (a Lua table's text): it makes its session in a pcall, so that a
// session that cannot be made is an outcome, not a failure.
func reachTrial(args string) string {
	return `local gpu = resident.program{file = "fill_gpu.lua"}
local npu = resident.program{file = "sum_npu.lua"}
function trial(t)
	local ok, s = pcall(resident.startup, {gpu = gpu, npu = npu, args = ` + args + `})
	if not ok then return "not made" end
	s:submit_gpu(); s:submit_npu()
	if t.random() < 0.7 then s:start() else s:abort() end
	s:wait(1)
	return s:close()
end
`
}

// TestCampaignCountsTheSessionsReached runs a campaign of the fill and sum
// pair without the arguments its buffers need: no trial makes a session,
// and the campaign fails with exit 2 and the programs' error, where it
// passed with every trial "not made". With its arguments the summary counts
// the trials that made, decided and retired a session, and it passes.
func TestCampaignCountsTheSessionsReached(t *testing.T) {
	dir := writeFiles(t, map[string]string{"fill_gpu.lua": fillGPU, "sum_npu.lua": sumNPU,
		"bare.lua": reachTrial("{}"), "given.lua": reachTrial("{chunks = 2, words = 4}")})

	bare := runCmdEnv(t, dir, "", nil, "campaign", "bare.lua", "--trials", "40", "--workers", "2", "--summary", "bare.json")
	bare.wantCode(t, 2)
	contains(t, "stdout", bare.stdout, "40  not made", "sessions reached: a session made in 0 trials, decided RUN in 0, a RUN session retired in 0",
		"nothing checked: no trial made a session")
	contains(t, "stderr", bare.stderr, "nothing checked: no trial made a session", "the first trial's reason (seed 1): ",
		"fill_gpu.lua: buffers: ", "attempt to perform arithmetic on field 'chunks' (a nil value)")
	if strings.Contains(bare.stderr, "stack traceback") {
		t.Errorf("the reason carries a traceback:\n%s", bare.stderr)
	}
	// The counts and the reason are in the summary, which merge reads back.
	merged := runCmdEnv(t, dir, "", nil, "campaign", "merge", "bare.json")
	merged.wantCode(t, 2)
	contains(t, "stdout", merged.stdout, "a session made in 0 trials", "nothing checked")

	given := runCmdEnv(t, dir, "", nil, "campaign", "given.lua", "--trials", "40", "--workers", "2")
	given.wantCode(t, 0)
	m := regexp.MustCompile(`sessions reached: a session made in ([0-9]+) trials, decided RUN in ([0-9]+), a RUN session retired in ([0-9]+)`).FindStringSubmatch(given.stdout)
	if m == nil || m[1] != "40" || m[2] == "0" || m[3] == "0" || m[2] == "40" {
		t.Errorf("want every trial made, some decided RUN and retired, some not:\n%s", given.stdout)
	}
	if strings.Contains(given.stdout, "nothing checked") {
		t.Errorf("a campaign that ran its programs says it checked nothing:\n%s", given.stdout)
	}

	// A trial that makes no attempt at a session is not counted, and its
	// campaign passes as before.
	none := runCmdEnv(t, dir, "function trial(t) t.record('n', t.index) end", nil, "campaign", "/dev/stdin", "--trials", "10")
	none.wantCode(t, 0)
	if strings.Contains(none.stdout, "sessions reached") {
		t.Errorf("a campaign of trials that make no session counts sessions:\n%s", none.stdout)
	}
}
