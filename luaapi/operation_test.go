package luaapi

import (
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
)

// TestOnOperation opens the module with an operation hook and requires
// every call that acts to be seen once, written as the script wrote it,
// with what it returned or raised and the session it made or acted on;
// calls that only read are not operations.
func TestOnOperation(t *testing.T) {
	var texts []string
	sessions := 0
	f, err := devices.NewFabric(simConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := newHarness(t, Options{Fabric: f, Globals: true, onOperation: func(op operation) {
		texts = append(texts, op.text)
		if op.session != nil {
			sessions++
		}
	}})
	h.run(`local s = startup{rounds = 1, credits = 1, gpu = "pm4"}
resident.fault("npu.run", "delay(1us)")
submit_gpu(s)
pcall(s.start, s)
s:submit_npu()
s:start()
assert(s.state == "running" and s:is_complete() == false and resident.now() >= 0)
s:wait(0.5)
pcall(s.abort, s)
s:close()
s:close(1)
pcall(resident.reset, "tpu")
resident.reset("gpu")
resident.clear_faults()
pcall(resident.startup, {rounds = -1})
pcall(resident.startup, {rounds = {1, {2}}, [true] = io.stdout})
resident.fabric()`)
	want := []string{
		`resident.startup{credits = 1, gpu = "pm4", rounds = 1} = s1`,
		`resident.fault("npu.run", "delay(1us)") = ok`,
		`s1:submit_gpu() = ok`,
		`s1:start() = error: busy: start: both resident participants must be accepted before RUN`,
		`s1:submit_npu() = ok`,
		`s1:start() = ok`,
		`s1:wait(0.5) = true`,
		`s1:abort() = error: busy: `,
		`s1:close() = "retired"`,
		`s1:close(1) = "retired"`,
		`resident.reset("tpu") = error: invalid: reset: no device "tpu" on this fabric`,
		`resident.reset("gpu") = ok`,
		`resident.clear_faults() = ok`,
		`resident.startup{rounds = -1} = error: invalid: `,
		`resident.startup{[true] = userdata, rounds = {[1] = 1, [2] = {...}}} = error: bad argument #1 to 'startup'`,
		`resident.fabric() = {budget = `,
	}
	if len(texts) != len(want) {
		t.Fatalf("%d operations, want %d:\n%s", len(texts), len(want), strings.Join(texts, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(texts[i], want[i]) {
			t.Errorf("operation %d is %q, want %q", i+1, texts[i], want[i])
		}
	}
	if sessions != 8 { // startup and the calls on s1 up to its first close, which lets go of its engine session
		t.Errorf("%d operations named their session, want 8", sessions)
	}
}
