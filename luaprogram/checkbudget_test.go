package luaprogram_test

import (
	"io"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/luaprogram"
)

// checkOf runs one session of a GPU program that does nothing and an NPU
// program whose check is check (over a buffer of 300 × 255 words), with
// opts, and returns what the check found.
func checkOf(t *testing.T, check string, opts luaprogram.Options) error {
	t.Helper()
	opts.Stdout = io.Discard
	gpu, err := luaprogram.Compile("=gpu", "return function(p) end", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer gpu.Close()
	npu, err := luaprogram.Compile("=npu", "return {buffers = {data = 300 * 255 * 4}, run = function(p) end, check = "+check+"}", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer npu.Close()
	pair := luaprogram.Pair{GPU: gpu, NPU: npu, Buffers: []luaprogram.Sized{{Name: "data", Bytes: 300 * 255 * 4}}}
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := luaprogram.RunSession(t, f, pair)
	problem, done := s.Checked()
	if !done {
		t.Fatal("the check did not run")
	}
	s.Close()
	return problem
}

// TestCheckHasABudgetOfItsOwn checks a check over 300 × 255 words that
// runs more Lua instructions than a program's step may (10 million) and
// makes no memory operation: it passes, under the check's own budget. A
// check that never ends fails with an error that names its budget, not
// the advice to put a memory operation in every loop.
func TestCheckHasABudgetOfItsOwn(t *testing.T) {
	long := `function(c)
		local sum = 0
		for chunk = 0, 299 do
			local w = c:read(c.buffers.data, chunk * 255 * 4, 255)
			for i = 1, 255 do
				for k = 1, 60 do sum = sum + w[i] + k end
			end
		end
		return sum == 300 * 255 * 1830
	end`
	if err := checkOf(t, long, luaprogram.Options{}); err != nil {
		t.Fatalf("the long check failed: %v", err)
	}
	err := checkOf(t, "function(c) while true do end end", luaprogram.Options{CheckInstructions: 1_000_000})
	if err == nil || !strings.Contains(err.Error(), "the check ran 1000000 Lua instructions, its limit in all") || strings.Contains(err.Error(), "memory operation") {
		t.Fatalf("the endless check: %v", err)
	}
}
