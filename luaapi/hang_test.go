package luaapi

import (
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
)

// TestSuspectedHangInRealTime runs, in real time, the ring pair whose NPU
// half reads ABORT as "not yet" and polls for ever: a wait gives up, and
// the close quarantines the session. With no fault armed, the module
// reports a suspected hang with the deadlines that were given, on standard
// error and in the session's stats. The correct pair retires and is not
// suspected, nor is the broken one while a fault is armed. The deadlines
// are generous: the test asserts outcomes, not speed.
func TestSuspectedHangInRealTime(t *testing.T) {
	h := newHarness(t, Options{Config: devices.Config{Mode: devices.RealTime, Seed: 5}, Globals: true, CloseTimeout: time.Second})
	h.run(`hang = resident.program{name = "hang_npu.lua", source = ` + luaQuote(ringVariant(t, "ring_npu.lua",
		"while seen == p.WAIT do seen = p:wait(line, 0, seen) end\n\t\tp:event(\"observe\", seen)\n\t\tif seen ~= p.RUN then return end",
		"while seen ~= p.RUN do seen = p:wait(line, 0, seen) end\n\t\tp:event(\"observe\", seen)")) + `}
g = resident.program{file = "../examples/ring/ring_gpu.lua"}
n = resident.program{file = "../examples/ring/ring_npu.lua"}
args = {slots = 2, msgs = 3, words = 2}
function aborted(npu)
	local s = resident.startup{gpu = g, npu = npu, args = args}
	s:submit_gpu(); s:submit_npu(); s:abort()
	local ok = s:wait(0.3)
	local out = s:close(0.3)
	resident.reset("gpu0"); resident.reset("npu0")
	return tostring(ok) .. " " .. out .. " " .. tostring(s:stats().suspected_hang)
end
hung = aborted(hang)
fine = aborted(n)
local s = resident.startup{gpu = g, npu = n, args = args}
s:submit_gpu(); s:submit_npu(); s:start()
ran = tostring(s:wait(30)) .. " " .. s:close(30) .. " " .. tostring(s:stats().suspected_hang)
resident.fault("npu.dispatch", "delay(1us)")
faulted = aborted(hang)`)
	hung := h.str("hung")
	if !strings.HasPrefix(hung, "false quarantined suspected hang: the host decided ABORT, a wait given 300ms gave up, and a close given 300ms quarantined the session") {
		t.Errorf("the pair that polls after ABORT: %s", hung)
	}
	if got := h.stderr.String(); !strings.Contains(got, "resident: session 1: suspected hang: ") || strings.Count(got, "suspected hang") != 1 {
		t.Errorf("standard error does not report the one suspected hang:\n%s", got)
	}
	for _, c := range []struct{ name, want string }{{"fine", "true retired nil"}, {"ran", "true retired nil"}, {"faulted", "false quarantined nil"}} {
		if got := h.str(c.name); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
