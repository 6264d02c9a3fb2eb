package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fillGPU and sumNPU are a chunked fill and sum written from the docs
// alone: their buffers need args.chunks and args.words, which only --args
// gives them.
const (
	fillGPU = `return {
	buffers = function(a) return {data = a.chunks * a.words * 4, flags = 64} end,
	run = function(p, a)
		local seen = p:load(p.startup, 0)
		while seen == p.WAIT do seen = p:wait(p.startup, 0, seen) end
		p:event("observe", seen)
		if seen ~= p.RUN then return end
		for k = 1, a.chunks do
			local w = {}
			for i = 1, a.words do w[i] = k * 100 + i end
			p:write(p.buffers.data, (k - 1) * a.words * 4, w)
			p:store(p.buffers.flags, 0, k)
		end
	end,
}`
	sumNPU = `return {
	buffers = function(a) return {data = a.chunks * a.words * 4, flags = 64} end,
	run = function(p, a)
		local seen = p:load(p.startup, 0)
		while seen == p.WAIT do seen = p:wait(p.startup, 0, seen) end
		p:event("observe", seen)
		if seen ~= p.RUN then return end
		local f = p:load(p.buffers.flags, 0)
		while f < a.chunks do f = p:wait(p.buffers.flags, 0, f) end
		local w = p:read(p.buffers.data, 0, a.chunks * a.words)
		local sum = 0
		for i = 1, #w do sum = sum + w[i] end
		p:store(p.buffers.flags, 4, sum)
		p:drain(p.buffers.flags)
	end,
	check = function(c, a)
		local want = 0
		for k = 1, a.chunks do for i = 1, a.words do want = want + k * 100 + i end end
		local got = c:load(c.buffers.flags, 4)
		if got ~= want then return false, "sum " .. got .. ", want " .. want end
		return true
	end,
}`
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
	contains(t, "stdout", given.stdout, "args chunks=2,words=4", "bounded space exhausted", "no invariant broken")
	m := regexp.MustCompile(`a session made in ([0-9]+) schedules, decided RUN in ([0-9]+), a RUN session retired in ([0-9]+)`).FindStringSubmatch(given.stdout)
	if m == nil || m[2] == "0" || m[3] == "0" {
		t.Fatalf("no runs that decided RUN and retired counted:\n%s", given.stdout)
	}

	for _, c := range []struct{ args, want string }{
		{"--args chunks=2", "--args goes with --programs"},
		{"--programs " + pair + " --args chunks", `give name=value`},
		{"--programs " + pair + " --args chunks=2 --rounds 2", "--rounds is the built-in exchange's argument"},
		{"--programs " + pair + " --args chunks=2,chunks=3", "chunks given twice"},
	} {
		r := checkRun(t, strings.Fields(c.args)...)
		r.wantCode(t, 2)
		contains(t, "stderr", r.stderr, c.want)
	}
}

// TestCheckReplayOfAnotherPair checks that a replay string records the pair
// and its arguments that made it: replayed with other arguments, or with
// the built-in exchange, it is refused, naming both.
func TestCheckReplayOfAnotherPair(t *testing.T) {
	dir := writeFiles(t, map[string]string{"fill_gpu.lua": fillGPU, "sum_npu.lua": sumNPU})
	pair := filepath.Join(dir, "fill_gpu.lua") + "," + filepath.Join(dir, "sum_npu.lua")
	bare := checkRun(t, "--programs", pair, "--rounds", "1", "--credits", "1", "--faults", "0")
	m := regexp.MustCompile(`\(replay (r1c1f0p[0-9a-f]{8}:[0-9.]*)\)`).FindStringSubmatch(bare.stderr)
	if m == nil {
		t.Fatalf("no replay string of the pair's error:\n%s", bare.stderr)
	}
	other := checkRun(t, "--programs", pair, "--args", "chunks=2,words=4", "--replay", m[1])
	other.wantCode(t, 2)
	contains(t, "stderr", other.stderr, "was made by the programs whose digest is", "not by fill_gpu.lua,sum_npu.lua with chunks=2,words=4 (digest ")
	builtin := checkRun(t, "--replay", m[1])
	builtin.wantCode(t, 2)
	contains(t, "stderr", builtin.stderr, "not by no programs of one's own")
	same := checkRun(t, "--programs", pair, "--replay", m[1])
	contains(t, "stdout", same.stdout, "replay "+m[1])
}
