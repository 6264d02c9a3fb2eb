package luaprogram

import (
	"strconv"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
)

// TestChecksPassAgainOnlyWhatTheyPassed runs sessions of a program whose
// run stores a random 1, 2 or 3 (printing it) and whose check fails on 2,
// each with another seed on a renewed fabric, so that the same session
// ends with the same results again and again: every session whose run
// stored 2 fails its check, whatever passed before, and the checks that
// passed ran once for each result (the memo holds one input for each),
// not once a session. A check that prints runs every time.
func TestChecksPassAgainOnlyWhatTheyPassed(t *testing.T) {
	for _, c := range []struct {
		name, check string
		memo        bool
	}{
		{"pure", `function(c) local v = c:load(c.buffers.out, 0) if v == 2 then return false, "two" end return true end`, true},
		{"prints", `function(c) local v = c:load(c.buffers.out, 0) print("checked") if v == 2 then return false, "two" end return true end`, false},
		{"draws", `function(c) local v, r = c:load(c.buffers.out, 0), math.random() if v == 2 then return false, "two" end return r < 2 end`, false},
	} {
		var out strings.Builder
		gpu, err := Compile("=gpu", `return {
			buffers = function() return {out = 64} end,
			run = function(p) local v = math.random(1, 3) p:store(p.buffers.out, 0, v) print(v) end,
			check = `+c.check+`}`, Options{Stdout: &out})
		if err != nil {
			t.Fatal(err)
		}
		npu, err := Compile("=npu", "return function(p) while p:load(p.startup, 0) == p.WAIT do end end", Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		pair := Pair{GPU: gpu, NPU: npu, Buffers: []Sized{{Name: "out", Bytes: 64}}}
		passes, checks := 0, 0
		for seed := range uint64(24) {
			if err := f.Renew(devices.Config{Mode: devices.Simulated, Seed: seed + 1}); err != nil {
				t.Fatal(err)
			}
			out.Reset()
			pair.Seed = seed + 1 // the run's math.random
			s := runSession(t, f, pair)
			printed := strings.Fields(out.String())
			if len(printed) == 0 {
				t.Fatalf("%s, seed %d: the run printed nothing", c.name, seed+1)
			}
			stored, _ := strconv.Atoi(printed[0])
			problem, _ := s.Checked()
			if (problem != nil) != (stored == 2) {
				t.Errorf("%s, seed %d: the run stored %d and the check gave %v", c.name, seed+1, stored, problem)
			}
			if problem == nil {
				passes++
			}
			checks += strings.Count(out.String(), "checked")
			s.CloseWithin(t.Context(), 0)
		}
		gpu.mu.Lock()
		remembered := 0
		for _, m := range gpu.idle {
			for _, inputs := range m.memo.passed {
				remembered += len(inputs)
			}
		}
		gpu.mu.Unlock()
		switch {
		case c.memo && (remembered == 0 || remembered >= passes):
			t.Errorf("%s: %d of %d passing checks were remembered; want the distinct results' (at most 2)", c.name, remembered, passes)
		case !c.memo && remembered != 0:
			t.Errorf("%s: %d checks were remembered; want none", c.name, remembered)
		case c.name == "prints" && checks != 24:
			t.Errorf("prints: the check printed %d times in 24 sessions", checks)
		}
		f.Close()
		gpu.Close()
		npu.Close()
	}
}
