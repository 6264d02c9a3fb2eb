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
// simulated time under the published timing: the pair's memory operations
// cost the model's time, so its latency grows with the lines a message
// takes (one line up to 16 words, then 2 and 4), and the published
// timing's jitter spreads each size's latencies over many values.
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
