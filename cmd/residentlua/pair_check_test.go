package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/internal/bench"
)

// fillGPU and sumNPU are a chunked fill and sum written from the docs
// alone (the checker's benchmark pair): their buffers need args.chunks and
// args.words, which only --args gives them.
const (
	fillGPU = bench.FillGPU
	sumNPU  = bench.SumNPU
)

// writeFiles writes each name's text into a fresh folder and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCheckPairWithoutItsArgs checks the fill and sum pair without the
// arguments its buffers need: no session is ever made, and the check fails
// with exit 2 and the programs' error, instead of a pass of nothing. With
// its arguments, it explores and passes, and its report counts the
// schedules that made, decided and retired a session.
func TestCheckPairWithoutItsArgs(t *testing.T) {
	dir := writeFiles(t, map[string]string{"fill_gpu.lua": fillGPU, "sum_npu.lua": sumNPU})
	pair := filepath.Join(dir, "fill_gpu.lua") + "," + filepath.Join(dir, "sum_npu.lua")
	bare := checkRun(t, "--programs", pair, "--rounds", "1", "--credits", "1", "--faults", "1", "--preemptions", "1")
	bare.wantCode(t, 2)
	contains(t, "stdout", bare.stdout, "a session made in 0 schedules, decided RUN in 0", "nothing checked: no schedule made a session")
	contains(t, "stderr", bare.stderr, "fill_gpu.lua: buffers: ", "attempt to perform arithmetic on field 'chunks' (a nil value)", "the programs never ran")
	if strings.Contains(bare.stdout, "no invariant broken") {
		t.Errorf("a check that made no session says no invariant broke:\n%s", bare.stdout)
	}

	given := checkRun(t, "--programs", pair, "--args", "chunks=2,words=4", "--faults", "0", "--preemptions", "1", "--sessions", "1", "--misuse", "off")
	given.wantCode(t, 0)
	contains(t, "stdout", given.stdout, "args chunks=2,words=4", "bounds: faults <= 0, preemptions <= 1, steps <= 200, sessions <= 1, misuse off\n", "bounded space exhausted", "no invariant broken")
	m := regexp.MustCompile(`a session made in ([0-9]+) schedules, decided RUN in ([0-9]+), a RUN session retired in ([0-9]+)`).FindStringSubmatch(given.stdout)
	if m == nil || m[2] == "0" || m[3] == "0" {
		t.Fatalf("no runs that decided RUN and retired counted:\n%s", given.stdout)
	}

	for _, c := range []struct{ args, want string }{
		{"--args chunks=2", "--args goes with --programs"},
		{"--programs " + pair + " --args chunks", `give name=value`},
		{"--programs " + pair + " --args chunks=2 --rounds 2", "--rounds is the built-in exchange's argument, not this pair's"},
		{"--programs " + pair + " --args chunks=2,chunks=3", "chunks given twice"},
	} {
		r := checkRun(t, strings.Fields(c.args)...)
		r.wantCode(t, 2)
		contains(t, "stderr", r.stderr, c.want)
	}
}

// TestCheckReplayOfAnotherPair checks that a replay string records the pair
// and its arguments that made it: replayed with other arguments (its own,
// or another exchange shape), or with the built-in exchange, it is
// refused, naming both.
func TestCheckReplayOfAnotherPair(t *testing.T) {
	dir := writeFiles(t, map[string]string{"fill_gpu.lua": fillGPU, "sum_npu.lua": sumNPU})
	pair := filepath.Join(dir, "fill_gpu.lua") + "," + filepath.Join(dir, "sum_npu.lua")
	bare := checkRun(t, "--programs", pair, "--rounds", "1", "--credits", "1", "--faults", "0")
	m := regexp.MustCompile(`\(replay (f0p[0-9a-f]{8}:[0-9.]*)\)`).FindStringSubmatch(bare.stderr)
	if m == nil {
		t.Fatalf("no replay string of the pair's error:\n%s", bare.stderr)
	}
	other := checkRun(t, "--programs", pair, "--args", "chunks=2,words=4", "--replay", m[1])
	other.wantCode(t, 2)
	contains(t, "stderr", other.stderr, "was made by the programs whose digest is", "not by fill_gpu.lua,sum_npu.lua with chunks=2,words=4 (digest ")
	builtin := checkRun(t, "--rounds", "1", "--credits", "1", "--replay", m[1])
	builtin.wantCode(t, 2)
	contains(t, "stderr", builtin.stderr, "not by the built-in exchange, rounds <= 1, credits <= 1 (digest ")
	shaped := checkRun(t, "--programs", pair, "--replay", m[1])
	shaped.wantCode(t, 2)
	contains(t, "stderr", shaped.stderr, "not by fill_gpu.lua,sum_npu.lua shaped as the built-in exchange, rounds <= 2, credits <= 2 (digest ")
	same := checkRun(t, "--programs", pair, "--rounds", "1", "--credits", "1", "--replay", m[1])
	contains(t, "stdout", same.stdout, "replay "+m[1])
}

// ringVariants are examples/ring's pair and its broken variants, each with
// the invariants that may name what is wrong: the flag written before the
// data, the credit returned before the slot is read, ABORT read as "not
// yet", and the flag raised by a plain store.
var ringVariants = []struct {
	name, gpuOld, gpuNew, npuOld, npuNew string
	invariants                           []string
}{
	{name: "correct"},
	{name: "flag_first", gpuOld: "p:write(data, s * a.words * 4, words)\n\t\t\tp:store(flags, 4 * s, m)", gpuNew: "p:store(flags, 4 * s, m)\n\t\t\tp:write(data, s * a.words * 4, words)", invariants: []string{"invariant 7 (", "invariant 16 ("}},
	{name: "early_credit", npuOld: "p:read(data, s * a.words * 4, a.words, words)\n\t\t\tp:store(flags, 128 + 4 * s, m)\n\t\t\tp:drain(flags)", npuNew: "p:store(flags, 128 + 4 * s, m)\n\t\t\tp:drain(flags)\n\t\t\tp:read(data, s * a.words * 4, a.words, words)", invariants: []string{"invariant 7 (", "invariant 16 ("}},
	{name: "abort_wait", npuOld: "while seen == p.WAIT do seen = p:wait(line, 0, seen) end\n\t\tp:event(\"observe\", seen)\n\t\tif seen ~= p.RUN then return end", npuNew: "while seen ~= p.RUN do seen = p:wait(line, 0, seen) end\n\t\tp:event(\"observe\", seen)", invariants: []string{"invariant 15 ("}},
	{name: "plain_flag", gpuOld: "p:store(flags, 4 * s, m)", gpuNew: "p:store_plain(flags, 4 * s, m)", invariants: []string{"invariant 15 (", "invariant 16 ("}},
}

// writeRingVariant writes the ring pair's variant into dir, as gpu.lua and
// npu.lua, and returns their paths.
func writeRingVariant(t *testing.T, dir string, i int) (gpu, npu string) {
	t.Helper()
	v := ringVariants[i]
	files := map[string]string{}
	for _, f := range []struct{ src, dst, old, new string }{{"ring_gpu.lua", "gpu.lua", v.gpuOld, v.gpuNew}, {"ring_npu.lua", "npu.lua", v.npuOld, v.npuNew}} {
		b, err := os.ReadFile(filepath.Join(repoRoot, "examples/ring", f.src))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if f.old != "" {
			if !strings.Contains(text, f.old) {
				t.Fatalf("%s lacks %q", f.src, f.old)
			}
			text = strings.Replace(text, f.old, f.new, 1)
		}
		files[f.dst] = text
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "gpu.lua"), filepath.Join(dir, "npu.lua")
}

// namesOne reports whether out names one of the invariants.
func namesOne(out string, invariants []string) bool {
	for _, inv := range invariants {
		if strings.Contains(out, inv) {
			return true
		}
	}
	return false
}

// TestRingVariantsCaught checks the ring pair and its four broken variants
// with each tool that judges programs: residentlua check (one session, no
// fault, no misuse), whose counterexample's replay reproduces it; a script
// campaign of 3,000 trials under published timing; and resident.trial.
// Each broken variant is caught, named by an invariant; the correct pair
// passes all three.
func TestRingVariantsCaught(t *testing.T) {
	for i, v := range ringVariants {
		t.Run(v.name, func(t *testing.T) {
			dir := t.TempDir()
			gpu, npu := writeRingVariant(t, dir, i)
			args := "slots=2,msgs=3,words=2"

			c := checkRun(t, "--programs", gpu+","+npu, "--args", args, "--faults", "0", "--sessions", "1", "--misuse", "off", "--preemptions", "1")
			if v.invariants == nil {
				c.wantCode(t, 0)
			} else {
				c.wantCode(t, 1)
				if !namesOne(c.stdout, v.invariants) {
					t.Errorf("check names none of %v:\n%s", v.invariants, c.stdout)
				}
				m := regexp.MustCompile(`replay: (f[0-9a-z]+:[0-9.]*)`).FindStringSubmatch(c.stdout)
				if m == nil {
					t.Fatalf("no replay string:\n%s", c.stdout)
				}
				r := checkRun(t, "--programs", gpu+","+npu, "--args", args, "--replay", m[1])
				r.wantCode(t, 1)
				if !namesOne(r.stdout, v.invariants) {
					t.Errorf("the replay names none of %v:\n%s", v.invariants, r.stdout)
				}
			}

			script := writeFile(t, dir, "trial.lua", `local gpu = resident.program{file = "`+gpu+`"}
local npu = resident.program{file = "`+npu+`"}
function trial(t)
	resident.fabric{mode = "sim", seed = t.seed, timing = "published"}
	local s = resident.startup{gpu = gpu, npu = npu, args = {slots = 2, msgs = 3, words = 2}}
	if t.random() < 0.5 then s:submit_gpu(); s:submit_npu() else s:submit_npu(); s:submit_gpu() end
	if t.random() < 0.8 then s:start() else s:abort() end
	s:wait(t.random() < 0.5 and 0.001 or 1)
	s:close()
end
`)
			camp := runCmdEnv(t, "", "", nil, "campaign", script, "--trials", "3000", "--workers", "2")
			if v.invariants == nil {
				camp.wantCode(t, 0)
			} else {
				camp.wantCode(t, 1)
				if !namesOne(camp.stdout+camp.stderr, v.invariants) {
					t.Errorf("the campaign names none of %v:\n%s", v.invariants, camp.stdout)
				}
			}

			trials := writeFile(t, dir, "trials.lua", `local gpu = resident.program{file = "`+gpu+`"}
local npu = resident.program{file = "`+npu+`"}
local found = {}
for seed = 1, 200 do
	local r = resident.trial{seed = seed, gpu = gpu, npu = npu, args = {slots = 2, msgs = 3, words = 2}}
	for _, v in ipairs(r.violations) do found[#found + 1] = "invariant " .. v.invariant .. " (" end
end
print(#found, table.concat(found, " "))
`)
			tr := runCmdEnv(t, "", "", nil, "--mode", "sim", trials)
			tr.wantCode(t, 0)
			if v.invariants == nil {
				if !strings.HasPrefix(tr.stdout, "0\t") {
					t.Errorf("resident.trial found violations of the correct pair: %s", tr.stdout)
				}
			} else if !namesOne(tr.stdout, v.invariants) {
				t.Errorf("resident.trial names none of %v: %s", v.invariants, tr.stdout)
			}
		})
	}
}

// TestProgramsBesideTheScript runs a script, and a campaign of a trial
// script, that name their programs' files relative to their own folder,
// from another folder: the files are found beside the script.
func TestProgramsBesideTheScript(t *testing.T) {
	files := map[string]string{}
	for _, f := range []string{"ring_gpu.lua", "ring_npu.lua"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, "examples/ring", f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
	}
	body := `local g = resident.program{file = "ring_gpu.lua"}
local n = resident.program{file = "ring_npu.lua"}
local function one()
	local s = resident.startup{gpu = g, npu = n, args = {slots = 2, msgs = 3, words = 2}}
	s:submit_gpu(); s:submit_npu(); s:start()
	return s:wait(1), s:close()
end
`
	files["run.lua"] = body + "print(one())\n"
	files["trial.lua"] = body + "function trial(t) local ok, out = one(); if not ok then t.fail(out) end end\n"
	dir := writeFiles(t, files)
	r := runCmdEnv(t, "", "", nil, "--mode", "sim", filepath.Join(dir, "run.lua"))
	r.wantCode(t, 0)
	contains(t, "stdout", r.stdout, "true\tretired")
	c := runCmdEnv(t, "", "", nil, "campaign", filepath.Join(dir, "trial.lua"), "--trials", "20")
	c.wantCode(t, 0)
	contains(t, "stdout", c.stdout, "20  ok")
}

// TestRingVariantsCaughtAtDefaultBounds checks the ring pair and its four
// broken variants with residentlua check at its default bounds for a pair of
// one's own (no bound given: one session, no misuse, a fault, two
// preemptions): the correct pair's search is exhausted clean, and each
// broken variant's names its invariant or rule. Minutes of search, so CI
// runs it without the race detector, beside the checker's other
// default-bounds run.
func TestRingVariantsCaughtAtDefaultBounds(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("minutes of search a pair; .ci/run runs it without the race detector")
	}
	for i, v := range ringVariants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			gpu, npu := writeRingVariant(t, dir, i)
			c := checkRun(t, "--programs", gpu+","+npu, "--args", "slots=2,msgs=3,words=2")
			contains(t, "stdout", c.stdout, "bounds: faults <= 1, preemptions <= 2, steps <= 200, sessions <= 1, misuse off\n", "bounded space exhausted")
			if v.invariants == nil {
				c.wantCode(t, 0)
				contains(t, "stdout", c.stdout, "no invariant broken")
				return
			}
			c.wantCode(t, 1)
			if !namesOne(c.stdout, v.invariants) {
				t.Errorf("check names none of %v:\n%s", v.invariants, c.stdout)
			}
		})
	}
}
