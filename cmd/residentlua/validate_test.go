package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --events writes the run's sessions as a trace, and validate finds them
// clean; a trace that breaks an invariant exits 1 naming it, and one that
// is malformed exits 2 naming the line and field.
func TestEventsAndValidate(t *testing.T) {
	dir := t.TempDir()
	events := filepath.Join(dir, "run.jsonl")
	r := runCmd(t, dir, "", "--mode", "sim", "--seed", "2", "--events", events, "-e", `
		for i = 1, 3 do
			local s = startup{rounds = 2, slot_bytes = 64}
			if i == 2 then resident.fault("host.publish", "1*error(lost)") end
			s:submit_gpu(); s:submit_npu(); pcall(s.start, s); pcall(s.wait, s, 1); s:close(); resident.reset("gpu"); resident.reset("npu")
		end`)
	r.wantCode(t, 0)
	r = runCmd(t, dir, "", "validate", events)
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "3 sessions")
	contains(t, "stdout", r.stdout, "held         9:")
	contains(t, "stdout", r.stdout, "not checked 15:")

	// The same trace with the NPU's join left out of a Wait.
	data, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	dropped := false
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !dropped && strings.Contains(l, `"kind":"join","participant":"npu"`) {
			dropped = true
			continue
		}
		kept = append(kept, l)
	}
	broken := filepath.Join(dir, "broken.jsonl")
	if err := os.WriteFile(broken, []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCmd(t, dir, "", "validate", broken)
	r.wantCode(t, 1)
	contains(t, "stdout", r.stdout, "VIOLATED invariant 6: every Wait attempts both joins")
	contains(t, "stdout", r.stdout, "the session's events up to it")

	// A malformed line.
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(data), `"kind":"decide","decision":"RUN"`, `"kind":"decide","decision":"GO"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCmd(t, dir, "", "validate", bad)
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, `bad.jsonl:`)
	contains(t, "stderr", r.stderr, `field "decision": expected a startup word`)

	r = runCmd(t, dir, "", "validate")
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "name one trace at least")
	r = runCmd(t, dir, "", "validate", "--help")
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "usage: residentlua validate TRACE...")
}

// The traces of randomized trials, of the built-in exchange and of its
// halves written in Lua, validate clean: residentlua's own sessions under
// faults keep every invariant a trace can judge.
func TestTrialsEventsValidate(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, chunk string }{
		{"builtin", `for seed = 1, 40 do assert(resident.trial{seed = seed}.ok) end`},
		{"lua", `local g = resident.program{file = "programs/exchange/exchange_gpu.lua"}
			local n = resident.program{file = "programs/exchange/exchange_npu.lua"}
			for seed = 1, 40 do assert(resident.trial{seed = seed, gpu = g, npu = n}.ok) end`},
	} {
		events := filepath.Join(dir, c.name+".jsonl")
		r := runCmd(t, "", "", "--mode", "sim", "--seed", "1", "--events", events, "-e", c.chunk)
		r.wantCode(t, 0)
		r = runCmd(t, "", "", "validate", events)
		r.wantCode(t, 0)
		contains(t, "stdout", r.stdout, "held        13:")
	}
}

// residentlua campaign --events writes the trials of every worker as one
// trace that validates clean.
func TestCampaignEvents(t *testing.T) {
	dir := t.TempDir()
	events := filepath.Join(dir, "campaign.jsonl")
	r := runCmd(t, dir, "", "campaign", "--trials", "200", "--workers", "3", "--events", events)
	r.wantCode(t, 0)
	r = runCmd(t, dir, "", "validate", events)
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "held        14:")
	// A trial script's trials, each driving its sessions from Lua.
	script := filepath.Join(repoRoot, "scripts", "program_campaign.lua")
	r = runCmd(t, "", "", "campaign", script, "--trials", "40", "--workers", "2", "--events", events)
	r.wantCode(t, 0)
	r = runCmd(t, dir, "", "validate", events)
	r.wantCode(t, 0)
	r = runCmd(t, dir, "", "campaign", "--replay", "3", "--events", events)
	r.wantCode(t, 2)
	contains(t, "stderr", r.stderr, "--events does not go with --replay")
}
