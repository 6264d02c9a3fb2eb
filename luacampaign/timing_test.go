package luacampaign

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/campaign"
)

// TestSweepOfAPairGrowsWithTheWords runs testdata/mailbox/sweep.lua, a
// campaign that sweeps a user's pair over 4 to 64 words a message in
// simulated time under the published figures with a stall of 10 µs (the
// published 100 µs stall, a bound for exploring orders, would drown a
// line's DMA): the pair's memory operations cost the model's time, so its
// latency grows with the lines a message takes (one line up to 16 words,
// then 2 and 4), and the jitter spreads each size's latencies over many
// values.
func TestSweepOfAPairGrowsWithTheWords(t *testing.T) {
	s := run(t, campaign.Config{Trials: 100, Workers: 2, Seed: 1, Runners: Script("testdata/mailbox/sweep.lua", Options{})})
	if s.Failed() != 0 {
		t.Fatalf("the sweep failed:\n%s", s.Text())
	}
	median := map[int]float64{}
	for _, words := range []int{4, 8, 16, 32, 64} {
		m := s.Measurements[fmt.Sprintf("%02d words", words)]
		if m == nil || m.Count != 20 {
			t.Fatalf("no 20 latencies of %d words:\n%s", words, s.Text())
		}
		if m.Min == m.Max {
			t.Errorf("every latency of %d words is %v: the CDF is one value", words, m.Min)
		}
		median[words] = m.Quantile(0.5)
	}
	// Up to 16 words a message is one line, which costs the same: their
	// medians differ by the jitter alone. 32 words are 2 lines, 64 are 4.
	for _, w := range []int{8, 16} {
		if median[w] < 0.8*median[4] || median[w] > 1.25*median[4] {
			t.Errorf("median latency of %d words %v is not about that of 4 words %v (one line each)", w, median[w], median[4])
		}
	}
	t.Logf("median latency by words a message: %v", median)
	if !(median[4] < median[32] && median[16] < median[32] && median[32] < median[64]) {
		t.Errorf("median latencies by words %v do not grow with the lines a message takes", median)
	}
}

// TestPublishedTimingReachesAFlagRaisedBeforeItsData runs a campaign of the
// mailbox pair whose GPU raises the slot's flag before it writes the
// message: the NPU, woken by the flag, reads the slot a line's DMA later,
// and the GPU's writes come sooner on the published figures, so only a GPU
// slower than them shows the bug. The published timing's jitter and stalls
// make it so in some sessions, and the campaign reports the violation;
// with them turned off (stall = 0) the same campaign finds nothing. The
// correct pair passes under the jitter.
func TestPublishedTimingReachesAFlagRaisedBeforeItsData(t *testing.T) {
	gpu, err := os.ReadFile("testdata/mailbox/gpu.lua")
	if err != nil {
		t.Fatal(err)
	}
	npu, err := os.ReadFile("testdata/mailbox/npu.lua")
	if err != nil {
		t.Fatal(err)
	}
	const right, wrong = "p:write(data, 0, words)\n\t\t\tp:store(flags, 0, m)", "p:store(flags, 0, m)\n\t\t\tp:write(data, 0, words)"
	if !strings.Contains(string(gpu), right) {
		t.Fatalf("gpu.lua has no %q", right)
	}
	for _, c := range []struct {
		name, timing   string
		broken, caught bool
	}{
		{"correct, published", `"published"`, false, false},
		{"flag first, published", `"published"`, true, true},
		{"flag first, published without jitter", `{profile = "published", stall = 0}`, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			text := string(gpu)
			if c.broken {
				text = strings.Replace(text, right, wrong, 1)
			}
			script := `trial_fabric = {timing = ` + c.timing + `}
local gpu = resident.program{file = "gpu.lua"}
local npu = resident.program{file = "npu.lua"}
function trial(t)
	local s = resident.startup{gpu = gpu, npu = npu, args = {msgs = 4, words = 8}}
	s:submit_gpu(); s:submit_npu(); s:start()
	s:wait(1)
	return s:close()
end
`
			for name, body := range map[string]string{"gpu.lua": text, "npu.lua": string(npu), "trial.lua": script} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := run(t, campaign.Config{Trials: 60, Workers: 2, Seed: 1, Runners: Script(filepath.Join(dir, "trial.lua"), Options{})})
			violations := s.Outcomes["violation"]
			if c.caught && violations == 0 {
				t.Errorf("no trial of 60 found the flag raised before the data:\n%s", s.Text())
			}
			if !c.caught && violations != 0 {
				t.Errorf("%d violations:\n%s", violations, s.Text())
			}
			if c.caught {
				t.Logf("%d of 60 trials caught it", violations)
			}
		})
	}
}

// TestPublishedTimingReachesTheOneWayPairsBugs runs campaigns of a one-way
// pair, testdata/chunk: the GPU fills chunks and raises a flag after each,
// the NPU waits for each flag in turn and sums the chunk. The GPU starts
// 5 µs after its dispatch and is done a few µs later, the NPU starts at
// 50 µs, so on the published figures the GPU has finished before the NPU
// looks, and a GPU that raises a flag before its chunk (caught as a wrong
// sum, invariant 7, or a read of the chunk's plain stores no release store
// published, invariant 16), or raises it with a plain store (invariant 16),
// passes. Only a GPU held up by more than the dispatch figures' difference
// shows them: the published stall reaches that far, so a campaign of
// modest size catches each, and the correct pair passes.
func TestPublishedTimingReachesTheOneWayPairsBugs(t *testing.T) {
	gpu, err := os.ReadFile("testdata/chunk/gpu.lua")
	if err != nil {
		t.Fatal(err)
	}
	npu, err := os.ReadFile("testdata/chunk/npu.lua")
	if err != nil {
		t.Fatal(err)
	}
	const right = "p:write(data, k * a.words * 4, w)\n\t\t\tp:store(flags, 4 * k, 1)"
	if !strings.Contains(string(gpu), right) {
		t.Fatalf("gpu.lua has no %q", right)
	}
	const trials = 200
	for _, c := range []struct {
		name, fill string
		invariants []string // each is reported by some trial; none when empty
	}{
		{"correct", right, nil},
		{"flag before its chunk", "p:store(flags, 4 * k, 1)\n\t\t\tp:write(data, k * a.words * 4, w)", []string{"invariant 7 ", "invariant 16 "}},
		{"flag by a plain store", "p:write(data, k * a.words * 4, w)\n\t\t\tp:store_plain(flags, 4 * k, 1)", []string{"invariant 16 "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			script := `trial_fabric = {timing = "published"}
local gpu = resident.program{file = "gpu.lua"}
local npu = resident.program{file = "npu.lua"}
function trial(t)
	local s = resident.startup{gpu = gpu, npu = npu, args = {chunks = 3, words = 2}}
	if t.random() < 0.5 then s:submit_gpu(); s:submit_npu() else s:submit_npu(); s:submit_gpu() end
	if t.random() < 0.8 then s:start() else s:abort() end
	s:wait(t.random() < 0.5 and 0.001 or 1)
	return s:close()
end
`
			files := map[string]string{"gpu.lua": strings.Replace(string(gpu), right, c.fill, 1), "npu.lua": string(npu), "trial.lua": script}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := run(t, campaign.Config{Trials: trials, Workers: 2, Seed: 1, Runners: Script(filepath.Join(dir, "trial.lua"), Options{})})
			if s.Reach == nil || s.Reach.Decided == 0 {
				t.Fatalf("no trial decided RUN:\n%s", s.Text())
			}
			if len(c.invariants) == 0 {
				if s.Failed() != 0 {
					t.Errorf("the correct pair failed %d trials:\n%s", s.Failed(), s.Text())
				}
				return
			}
			for _, inv := range c.invariants {
				caught := 0
				for _, f := range s.Failures {
					if f.Outcome == "violation" && strings.HasPrefix(f.Message, inv) {
						caught++
					}
				}
				if caught == 0 {
					t.Errorf("no trial of %d reported %s:\n%s", trials, inv, s.Text())
				}
				t.Logf("%d of %d trials reported %s", caught, trials, inv)
			}
		})
	}
}
