package luaapi

import "testing"

// TestBadInput shows the exact message of every kind of bad input. Each case
// runs in a fresh state where s is an open session (id 1) and c a closed one
// (id 4). Bad argument messages carry the position, as Lua's do; protocol
// errors are values whose tostring is "<kind>: <op>: <message>".
func TestBadInput(t *testing.T) {
	const sizeHint = `give bytes as a number or a string like "64", "4KiB", "2MiB" or "1GiB"`
	cases := []struct {
		name, code, want string
	}{
		// Wrong types and nil.
		{"startup number", `resident.startup(5)`, `<string>:1: bad argument #1 to 'startup' (table expected, got number)`},
		{"startup string field", `resident.startup{rounds="x"}`, `<string>:1: bad argument #1 to 'startup' (field 'rounds': number expected, got string)`},
		{"startup fractional", `resident.startup{rounds=1.5}`, `<string>:1: bad argument #1 to 'startup' (field 'rounds': number has no integer representation, got 1.5)`},
		{"startup unknown field", `resident.startup{credit=4}`, `<string>:1: bad argument #1 to 'startup' (unknown field 'credit'; fields are gpu, npu, rounds, credits, slot_bytes, queue, buffers, args)`},
		{"startup gpu type", `resident.startup{gpu=1}`, `<string>:1: bad argument #1 to 'startup' (field 'gpu': string expected, got number)`},
		{"startup size type", `resident.startup{slot_bytes=true}`, `<string>:1: bad argument #1 to 'startup' (field 'slot_bytes': number or string expected, got boolean)`},
		{"submit no value", `resident.submit_gpu()`, `<string>:1: bad argument #1 to 'submit_gpu' (session expected, got no value)`},
		{"submit nil", `resident.submit_npu(nil)`, `<string>:1: bad argument #1 to 'submit_npu' (session expected, got nil)`},
		{"start table", `resident.start({})`, `<string>:1: bad argument #1 to 'start' (session expected, got table)`},
		{"abort string", `resident.abort("s")`, `<string>:1: bad argument #1 to 'abort' (session expected, got string)`},
		{"wait no seconds", `resident.wait(s)`, `<string>:1: bad argument #2 to 'wait' (number expected, got no value)`},
		{"wait string seconds", `s:wait("1")`, `<string>:1: bad argument #2 to 'wait' (number expected, got string)`},
		{"close string seconds", `s:close("x")`, `<string>:1: bad argument #2 to 'close' (number expected, got string)`},
		{"is_complete number", `resident.is_complete(1)`, `<string>:1: bad argument #1 to 'is_complete' (session expected, got number)`},
		{"stats nil", `resident.stats(nil)`, `<string>:1: bad argument #1 to 'stats' (session expected, got nil)`},
		{"fault site number", `resident.fault(1, "off")`, `<string>:1: bad argument #1 to 'fault' (string expected, got number)`},
		{"fault no term", `resident.fault("gpu.dispatch")`, `<string>:1: bad argument #2 to 'fault' (string expected, got no value)`},
		{"reset no device", `resident.reset()`, `<string>:1: bad argument #1 to 'reset' (string expected, got no value)`},
		{"fabric number", `s:close(); resident.fabric(7)`, `<string>:1: bad argument #1 to 'fabric' (table expected, got number)`},
		{"fabric npu type", `s:close(); resident.fabric{npu=1}`, `<string>:1: bad argument #1 to 'fabric' (field 'npu': table or false expected, got number)`},
		{"fabric gpu field", `s:close(); resident.fabric{gpu={colour="red"}}`, `<string>:1: bad argument #1 to 'fabric' (field 'gpu': unknown field 'colour'; fields are backend, fine_grained, name, queues)`},
		{"fabric gpu backend", `s:close(); resident.fabric{gpu={backend="rocm"}}`, `invalid: fabric: unknown GPU backend "rocm"; use "sim", "fake" or "fake-absent"`},
		{"fabric gpu backend type", `s:close(); resident.fabric{gpu={backend=1}}`, `<string>:1: bad argument #1 to 'fabric' (field 'gpu.backend': string expected, got number)`},
		{"fabric hardware without fine-grained", `s:close(); resident.fabric{mode="realtime", gpu={backend="fake", fine_grained=false}}`, `invalid: fabric: fine_grained = false (NoFineGrained) does not apply to the fake backend, whose memory is always pinned; leave it out`},
		{"fabric hardware in sim", `s:close(); resident.fabric{mode="sim", gpu={backend="fake"}}`, `invalid: fabric: the fake backend is a real GPU, which runs in real time; use mode "realtime"`},
		{"read-only field", `s.id = 5`, `<string>:1: a session's fields are read-only; cannot set 'id'`},

		// Closed sessions.
		{"start closed", `resident.start(c)`, `busy: start: session 2 is closed`},
		{"submit closed", `c:submit_gpu()`, `busy: submit_gpu: session 2 is closed`},
		{"wait closed", `c:wait(1)`, `busy: wait: session 2 is closed`},
		{"is_complete closed", `resident.is_complete(c)`, `busy: is_complete: session 2 is closed`},
		{"abort closed", `c:abort()`, `busy: abort: session 2 is closed`},

		// Seconds.
		{"NaN seconds", `resident.wait(s, 0/0)`, `invalid: wait: the wait timeout must be a finite number of seconds, got nan`},
		{"infinite seconds", `resident.wait(s, 1/0)`, `invalid: wait: the wait timeout must be a finite number of seconds, got inf`},
		{"negative seconds", `resident.wait(s, -1)`, `invalid: wait: the wait timeout must be zero or more seconds, got -1`},
		{"huge seconds", `resident.wait(s, 1e300)`, `invalid: wait: the wait timeout must be at most 1e9 seconds (about 31 years), got 1e+300`},
		{"negative close", `s:close(-0.5)`, `invalid: close: the close timeout must be zero or more seconds, got -0.5`},
		{"NaN timing figure", `s:close(); resident.fabric{timing={aql_dispatch=0/0}}`, `invalid: fabric: timing.aql_dispatch must be a finite number of seconds, got nan`},
		{"huge duration string", `s:close(); resident.fabric{timing={completion="999999h"}}`, `invalid: fabric: timing.completion must be at most 1e9 seconds (about 31 years), got "999999h"`},

		// Sizes.
		{"size unit", `resident.startup{slot_bytes="4KB"}`, `invalid: startup: slot_bytes: "4KB" is not a size; ` + sizeHint},
		{"huge size string", `resident.startup{slot_bytes="1e30"}`, `invalid: startup: slot_bytes: size "1e30" is too large; the most is 8PiB (9007199254740992 bytes)`},
		{"huge size number", `resident.startup{slot_bytes=1e30}`, `invalid: startup: slot_bytes: size 1e+30 is too large; the most is 8PiB (9007199254740992 bytes)`},
		{"huge size in range", `resident.startup{slot_bytes="2MiB"}`, `invalid: startup: slot_bytes must be a multiple of 8 from 8 to 1048576, got 2097152`},
		{"negative size", `resident.startup{slot_bytes=-8}`, `invalid: startup: slot_bytes: size -8 is negative; ` + sizeHint},
		{"fractional size", `resident.startup{slot_bytes="1.3B"}`, `invalid: startup: slot_bytes: size "1.3B" is not a whole number of bytes`},
		{"odd size", `resident.startup{slot_bytes=12}`, `invalid: startup: slot_bytes must be a multiple of 8 from 8 to 1048576, got 12`},
		{"huge budget", `s:close(); resident.fabric{budget="9999999TiB"}`, `invalid: fabric: budget: size "9999999TiB" is too large; the most is 8PiB (9007199254740992 bytes)`},
		{"budget above the most", `s:close(); resident.fabric{budget="9PiB"}`, `invalid: fabric: budget: size "9PiB" is too large; the most is 8PiB (9007199254740992 bytes)`},
		{"zero budget", `s:close(); resident.fabric{budget=0}`, `invalid: fabric: budget: a budget of 0 bytes leaves no memory; give a positive size`},
		{"bad budget", `s:close(); resident.fabric{budget="lots"}`, `invalid: fabric: budget: "lots" is not a size; ` + sizeHint},

		// Values out of range.
		{"zero rounds", `resident.startup{rounds=0}`, `invalid: startup: rounds must be from 1 to 1000000, got 0`},
		{"too many credits", `resident.startup{credits=65}`, `invalid: startup: credits must be from 1 to 64, got 65`},
		{"sdma queue", `resident.startup{gpu="sdma"}`, `invalid: startup: gpu: the GPU's queue kind must be "aql" or "pm4", got "sdma"`},
		{"unknown queue", `resident.startup{gpu="warp"}`, `invalid: startup: gpu: the GPU's queue kind must be "aql" or "pm4", got "warp"`},
		{"upper-case queue", `resident.startup{gpu="AQL"}`, `invalid: startup: gpu: the GPU's queue kind must be "aql" or "pm4", got "AQL" (queue kinds are lower case: "aql")`},
		{"negative seed", `s:close(); resident.fabric{seed=-1}`, `invalid: fabric: seed must be zero (derive one from the run's) or a whole number from 1 to 2^53-1 (9007199254740991), got -1`},
		{"seed above 2^53-1", `s:close(); resident.fabric{seed=2^53}`, `invalid: fabric: seed must be zero (derive one from the run's) or a whole number from 1 to 2^53-1 (9007199254740991), got 9007199254740992`},

		// A trial's numbers, checked as startup's are.
		{"trial huge sessions", `resident.trial{sessions=1e9}`, `invalid: trial: sessions must be from 1 to 10000, got 1000000000`},
		{"trial sessions 2^53", `resident.trial{sessions=2^53}`, `invalid: trial: sessions must be from 1 to 10000, got 9007199254740992`},
		{"trial zero sessions", `resident.trial{sessions=0}`, `invalid: trial: sessions must be from 1 to 10000, got 0`},
		{"trial negative rounds", `resident.trial{rounds=-5}`, `invalid: trial: rounds must be from 1 to 1000000, got -5`},
		{"trial too many credits", `resident.trial{credits=1000}`, `invalid: trial: credits must be from 1 to 64, got 1000`},
		{"trial negative faults", `resident.trial{faults=-3}`, `invalid: trial: faults must be from 0 to 10, got -3`},
		{"trial negative seed", `resident.trial{seed=-1}`, `invalid: trial: seed must be a whole number from 1 to 2^53-1 (9007199254740991), got -1`},
		{"trial zero seed", `resident.trial{seed=0}`, `invalid: trial: seed must be a whole number from 1 to 2^53-1 (9007199254740991), got 0`},

		// Faults.
		{"unknown fault site", `resident.fault("gpu.dispatchx", "error")`, `invalid: fault: unknown fault site "gpu.dispatchx"; sites are gpu.dispatch, npu.dispatch, gpu.run, npu.run, gpu.complete, npu.complete, host.publish, memory.alloc; sites programs defined: npu.drain, payload.corrupt`},
		{"bad term", `resident.fault("gpu.dispatch", "explode")`, `invalid: fault: fault term "explode" at gpu.dispatch: unknown action "explode"; gpu.dispatch allows error, delay, off`},
		{"action not allowed", `resident.fault("gpu.run", "flip")`, `invalid: fault: fault term "flip" at gpu.run: flip is not allowed at gpu.run; gpu.run allows hang, crash, delay, ignore_abort, off`},

		// Fabrics.
		{"new fabric with open sessions", `resident.startup{}; resident.fabric{mode="sim"}`, `invalid: fabric: cannot make a new fabric while sessions are open: 1, 3; close them with s:close() first`},
		{"unknown mode", `s:close(); resident.fabric{mode="warp"}`, `invalid: fabric: unknown mode "warp"; use "sim" or "realtime"`},
		{"unknown timing figure", `s:close(); resident.fabric{timing={aql_dispatchx=1}}`, `invalid: timing: unknown timing figure "aql_dispatchx"; figures are [aql_dispatch pm4_dispatch xdna_dispatch host_to_gpu npu_dma_line completion stall]`},
		{"unknown timing profile", `s:close(); resident.fabric{timing="fast"}`, `invalid: timing: unknown timing profile "fast"; use "ideal" or "published"`},
		{"bad duration", `s:close(); resident.fabric{timing={xdna_dispatch="soon"}}`, `invalid: fabric: timing.xdna_dispatch: "soon" is not a duration; give seconds as a number or a duration like "5us"`},
		{"duplicate device name", `s:close(); resident.fabric{gpu={name="npu0"}}`, `invalid: fabric: two devices are named npu0; give each device its own name`},
		{"unknown gpu queue", `s:close(); resident.fabric{gpu={queues={"pm4","warp"}}}`, `invalid: queue: unknown queue kind "warp"; use pm4, aql, sdma or xdna`},
		{"no npu", `s:close(); resident.fabric{npu=false}; resident.startup{}`, `unsupported: startup: resident startup requires a GPU and an NPU`},
		{"no fine-grained memory", `s:close(); resident.fabric{gpu={fine_grained=false}}; resident.startup{}`, `unsupported: startup: resident startup requires coherent GPU backing`},
		{"no aql queue", `s:close(); resident.fabric{gpu={queues={"pm4"}}}; resident.startup{gpu="aql"}`, `unsupported: queue: gpu0 has no aql queue family`},
		{"unknown device", `resident.reset("tpu")`, `invalid: reset: no device "tpu" on this fabric; give "gpu", "npu" or one of gpu0, npu0`},

		// Protocol order.
		{"wait undecided", `resident.wait(s, 1)`, `busy: wait: resident startup remains undecided`},
		{"start before admission", `s:start()`, `busy: start: both resident participants must be accepted before RUN`},
		{"submit twice", `s:submit_gpu(); s:submit_gpu()`, `busy: submit_gpu: GPU participant already submitted`},
		{"abort after start", `s:submit_gpu(); s:submit_npu(); s:start(); s:abort()`, `busy: abort: resident startup is already decided or failed`},
		{"device occupied", `s:submit_gpu(); local t = resident.startup{}; t:submit_gpu()`, `busy: dispatch: gpu0 is occupied by invocation 5; one invocation runs per device, wait for it to retire`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := sim(t)
			h.run(`s = startup{}; c = startup{}; c:close()`)
			if got := h.fails(tc.code); got != tc.want {
				t.Errorf("%s\n got: %s\nwant: %s", tc.code, got, tc.want)
			}
		})
	}
}

// TestStringErrorsCalledByPcall checks a string error of a module function
// that pcall calls directly (no Lua code between them to give a position)
// is the message alone, as Lua 5.1's luaL_error makes it: no leading space.
func TestStringErrorsCalledByPcall(t *testing.T) {
	h := sim(t)
	for code, want := range map[string]string{
		`select(2, pcall(resident.wait, {}, 1))`:                                                           `bad argument #1 to 'wait' (session expected, got table)`,
		`select(2, pcall(resident.plot, {file = "/nonexistent/p.svg", kind = "cdf", series = {a = {1}}}))`: `resident.plot: cannot write /nonexistent/p.svg: no such file or directory`,
		`select(2, pcall(function() resident.wait({}, 1) end))`:                                            `<string>:1: bad argument #1 to 'wait' (session expected, got table)`,
	} {
		if got := h.str(code); got != want {
			t.Errorf("%s = %q, want %q", code, got, want)
		}
	}
}
