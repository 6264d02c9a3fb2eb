package luaapi

import (
	"fmt"
	"os"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
)

// exchangeProgramsScript makes a session of the exchange's Lua programs.
const exchangeProgramsScript = `
	local gpu = resident.program{file = "../programs/exchange/exchange_gpu.lua"}
	local npu = resident.program{file = "../programs/exchange/exchange_npu.lua"}
`

func TestProgramsRunTheExchange(t *testing.T) {
	h := sim(t)
	h.run(exchangeProgramsScript + `
		s = startup{gpu = gpu, npu = npu, queue = "pm4", args = {rounds = 6, credits = 2, slot_bytes = 64}}
		assert(tostring(gpu) == "program ../programs/exchange/exchange_gpu.lua", tostring(gpu))
		assert(gpu.name == "../programs/exchange/exchange_gpu.lua")
		s:submit_gpu(); s:submit_npu(); s:start()
		assert(s:wait(1), "the Lua exchange did not retire")
		st = s:stats()
		assert(s:close() == "retired")
	`)
	if got := h.str("s"); got != "session 1 (closed, pm4, programs ../programs/exchange/exchange_gpu.lua and ../programs/exchange/exchange_npu.lua)" {
		t.Errorf("tostring(s) = %q", got)
	}
	if got := h.str("st.check.ok") + " " + h.str("st.programs.npu") + " " + h.str("st.gpu_queue"); got != "true ../programs/exchange/exchange_npu.lua pm4" {
		t.Errorf("stats: check.ok, programs.npu, gpu_queue = %q", got)
	}
	if got := h.str("#s:events()"); got == "0" {
		t.Errorf("the session has no events")
	}
}

func TestProgramsOfAnotherShape(t *testing.T) {
	h := sim(t)
	h.run(`
		local gpu = resident.program{file = "../programs/stream/stream_gpu.lua"}
		local npu = resident.program{file = "../programs/stream/stream_npu.lua"}
		s = startup{gpu = gpu, npu = npu, args = {chunks = 9, words = 20}}
		s:submit_npu(); s:submit_gpu(); s:start()
		assert(s:wait(1))
		st = s:stats()
		notes = {}
		for _, e in ipairs(s:events()) do
			if e.kind == "note" then notes[#notes + 1] = e.detail .. e.b end
		end
		assert(s:close() == "retired")
	`)
	if got := h.str("st.check and st.check.ok"); got != "true" {
		t.Errorf("the stream's check: %s (%s)", got, h.str("st.check and st.check.problem"))
	}
	if got := h.str("table.concat(notes, ',')"); !strings.HasPrefix(got, "chunk.sent1,") || !strings.Contains(got, "chunk.received9") {
		t.Errorf("the stream's notes: %s", got)
	}
}

// TestBadProgramsFailClearlyAndLeaveTheFabricUsable runs programs that go
// wrong in every way a program can, each as the NPU beside the correct GPU
// half: each fails its session with a message that says what went wrong,
// and a built-in session on the same fabric runs afterwards.
func TestBadProgramsFailClearlyAndLeaveTheFabricUsable(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"lua error", `local function inner() error("the NPU program broke") end
			inner()`, "the NPU program broke\nstack traceback:\n\tbad.lua:2: in function 'inner'"},
		{"endless loop", `local n = 0
			while true do n = n + 1 end`, "Lua instructions without a memory operation"},
		{"endless loop in a pcall", `local ok, err = pcall(function() local n = 0 while true do n = n + 1 end end)
			error(err, 0)`, "Lua instructions without a memory operation"},
		{"outside its buffer", `p:load(p.buffers.payload, p.buffers.payload.size)`, "p:load: offset 4096 of buffer payload (4096 bytes) is outside it"},
		{"unaligned", `p:load(p.buffers.payload, 6)`, "offsets are multiples of 4"},
		{"undeclared buffer", `p:load(p.buffers.results, 0)`, "p:load: argument #1 must be a buffer (p.startup or one of p.buffers), got nil"},
		{"writes the startup line", `p:store(p.startup, 0, p.RUN)`, "p:store: the startup line is the host's: a program never writes it"},
		{"an operation inside pcall", `local ok, err = pcall(p.load, p, p.startup, 0)`, "p:load was called inside pcall"},
		{"a bad word", `p:store(p.buffers.payload, 0, 1.5)`, "a word is a whole number from -2^31 to 2^32-1, got 1.5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := sim(t)
			h.L.SetGlobal("body", lua.LString(c.body))
			h.run(`
				local gpu = resident.program{file = "../programs/exchange/exchange_gpu.lua"}
				local bad = resident.program{name = "bad.lua", source = "return function(p)\n" .. body .. "\nend", instructions = 100000}
				s = startup{gpu = gpu, npu = bad, args = {rounds = 1, credits = 1, slot_bytes = 8}, buffers = {payload = 4096}}
				s:submit_gpu(); s:submit_npu(); s:start()
				ok, err = pcall(s.wait, s, 1)
				outcome = s:close(0)
				resident.reset("gpu"); resident.reset("npu")
				local again = startup{}
				again:submit_gpu(); again:submit_npu(); again:start()
				assert(again:wait(1) and again:close() == "retired", "the fabric is not usable after the bad program")
			`)
			if got := h.str("ok"); got != "false" {
				t.Fatalf("wait succeeded with the bad program")
			}
			msg := h.str("err")
			if !strings.HasPrefix(msg, "device: ") || !strings.Contains(msg, c.want) {
				t.Errorf("error %q, want a device error containing %q", msg, c.want)
			}
			if got := h.str("outcome"); got != "quarantined" {
				t.Errorf("close = %s, want quarantined (a participant failed)", got)
			}
		})
	}
}

func TestBadProgramFiles(t *testing.T) {
	h := sim(t)
	cases := []struct{ code, want string }{
		{`resident.program{file = "no/such/program.lua"}`, "cannot read program no/such/program.lua: no such file or directory"},
		{`resident.program{source = "return function(p) p:load( end", name = "syntax.lua"}`, "syntax.lua:1: unexpected symbol near 'end'"},
		{`resident.program{source = "return 42"}`, "program does not return a program: end it with return function(p, args) ... end"},
		{`resident.program{source = "return {run = function() end, rounds = 3}"}`, "unknown field rounds"},
		{`resident.program{source = "x", file = "y"}`, "give file or source, not both"},
		{`resident.program{}`, "give the program's file, or its text as source"},
		{`resident.program{source = "return function() end", instructions = 1.5}`, "instructions: give a whole number"},
	}
	for _, c := range cases {
		if got := h.fails(c.code); !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %q\nwant it to contain %q", c.code, got, c.want)
		}
	}
}

func TestStartupWithProgramsRefusesWhatItCannotRun(t *testing.T) {
	h := sim(t)
	h.run(exchangeProgramsScript)
	h.run(`gpu = resident.program{file = "../programs/exchange/exchange_gpu.lua"}; npu = resident.program{file = "../programs/exchange/exchange_npu.lua"}`)
	cases := []struct{ code, want string }{
		{`startup{gpu = gpu, npu = npu, rounds = 3, args = {rounds = 3, credits = 1, slot_bytes = 8}}`, "rounds, credits and slot_bytes shape the built-in exchange"},
		{`startup{gpu = gpu, args = {rounds = 3, credits = 1, slot_bytes = 8}}`, "field 'npu': program expected, got nil"},
		{`startup{npu = npu}`, "field 'npu' goes with programs"},
		{`startup{gpu = gpu, npu = npu, args = {rounds = 1, credits = 1, slot_bytes = 8}, buffers = {payload = "2GiB"}}`, "buffers.payload: a buffer holds 1 byte to 1GiB"},
		{`startup{gpu = gpu, npu = npu, args = {rounds = 1, credits = 1, slot_bytes = 8, f = print}}`, "args.f is a function"},
		{`startup{gpu = gpu, npu = npu, queue = "xdna", args = {rounds = 1, credits = 1, slot_bytes = 8}}`, `queue: the GPU's queue kind must be "aql" or "pm4"`},
		{`startup{gpu = gpu, npu = npu}`, "exchange_gpu.lua: buffers: ../programs/exchange/exchange_gpu.lua:18: attempt to index local 'a' (a nil value)"},
	}
	for _, c := range cases {
		if got := h.fails(c.code); !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %q\nwant it to contain %q", c.code, got, c.want)
		}
	}
	if n := h.str("#resident.sessions()"); n != "0" {
		t.Errorf("%s sessions left open by refused startups", n)
	}
}

// TestProgramsFaultSitesOfTheirOwn arms the stream's own site: the dropped
// chunk fails the NPU's check, and the oracle, seeing the fault at a site
// of the program's own, reports no violation.
func TestProgramsFaultSitesOfTheirOwn(t *testing.T) {
	h := sim(t)
	h.run(`
		local gpu = resident.program{file = "../programs/stream/stream_gpu.lua"}
		local npu = resident.program{file = "../programs/stream/stream_npu.lua"}
		resident.fault("stream.drop", "1*off->1*skip")
		s = startup{gpu = gpu, npu = npu, args = {chunks = 4, words = 8}}
		s:submit_gpu(); s:submit_npu(); s:start()
		assert(s:wait(1))
		st = s:stats()
		faults = resident.faults()
		assert(s:close() == "retired")
	`)
	if got := h.str("st.check.ok") + " " + h.str("st.check.problem"); !strings.HasPrefix(got, "false the NPU summed") {
		t.Errorf("check after a dropped chunk: %s", got)
	}
	if got := h.str("#resident.violations()"); got != "0" {
		t.Errorf("%s violations; a fault at the program's own site explains its failed check", got)
	}
	if got := h.fails(`resident.fault("stream.dorp", "skip")`); !strings.Contains(got, `unknown fault site "stream.dorp"`) || !strings.Contains(got, "sites programs defined: npu.drain, payload.corrupt, stream.drop") {
		t.Errorf("a misspelt site: %s", got)
	}
}

// TestTrialOfPrograms runs the randomized protocol trial on the exchange's
// Lua programs: the same seed gives the built-in exchange's digest.
func TestTrialOfPrograms(t *testing.T) {
	h := sim(t)
	h.run(exchangeProgramsScript + `
		for seed = 1, 20 do
			local a = resident.trial{seed = seed}
			local b = resident.trial{seed = seed, gpu = gpu, npu = npu}
			assert(a.digest == b.digest, "seed " .. seed .. ": digests " .. a.digest .. " and " .. b.digest)
			assert(#b.violations == 0 and b.ok, b.report)
		end
	`)
	if got := h.fails(exchangeProgramsScript + `resident.trial{gpu = gpu}`); !strings.Contains(got, "gpu and npu go together") {
		t.Errorf("a trial with one program: %s", got)
	}
}

// TestKernelNeedsARealGPU: on a simulated GPU, or with a file that cannot
// be read, resident.kernel says so before anything is dispatched.
func TestKernelNeedsARealGPU(t *testing.T) {
	h := sim(t)
	dir := t.TempDir()
	ptx := dir + "/k.ptx"
	if err := os.WriteFile(ptx, []byte(".version 8.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ code, want string }{
		{`resident.kernel{ptx = "` + ptx + `", entry = "k"}`, "unsupported: kernel: resident.kernel runs a PTX kernel on a real GPU, and this fabric's GPU is simulated: run with --gpu cuda"},
		{`resident.kernel{ptx = "` + dir + `/none.ptx", entry = "k"}`, "cannot read PTX " + dir + "/none.ptx: no such file or directory"},
		{`resident.kernel{ptx = "` + ptx + `"}`, "give the kernel's PTX file as ptx and its name as entry"},
		{`resident.kernel{ptx = "` + ptx + `", entry = "k", args = {1}}`, "field 'args': item 1 is not a name"},
	} {
		if got := h.fails(c.code); !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %q\nwant it to contain %q", c.code, got, c.want)
		}
	}
	if n := h.str("#resident.sessions()"); n != "0" {
		t.Errorf("%s sessions made", n)
	}
}

// TestProgramsDrawTheirSessionsNumbers: an invocation's math.random is
// seeded from the fabric's seed, its session and its device, also where
// an earlier invocation ran in the same Lua state: the same fabric seed
// draws the same numbers, another session other numbers, and a program
// that seeds math.random itself draws lua5.1's numbers for that seed.
func TestProgramsDrawTheirSessionsNumbers(t *testing.T) {
	draws := func(seed uint64) string {
		h := newHarness(t, Options{Globals: true, Config: devices.Config{Mode: devices.Simulated, Seed: seed}})
		h.run(`
			local draw = [[return function(p) p:event("draw", math.random(1, 1000000)); p:event("draw", math.random(1, 1000000)) end]]
			local seeded = [[return function(p) math.randomseed(42); p:event("seeded", math.random(1, 1000)) end]]
			local gpu, npu = resident.program{source = draw, name = "gpu"}, resident.program{source = draw, name = "npu"}
			local fixed = resident.program{source = seeded, name = "fixed"}
			out = {}
			for _, pair in ipairs{{gpu, npu}, {gpu, npu}, {fixed, npu}} do
				local s = startup{gpu = pair[1], npu = pair[2]}
				s:submit_gpu(); s:submit_npu(); s:start()
				assert(s:wait(1))
				local notes = {}
				for _, e in ipairs(s:events()) do
					if e.kind == "note" then notes[#notes + 1] = e.detail .. e.b end
				end
				out[#out + 1] = table.concat(notes, " ")
				assert(s:close() == "retired")
			end
		`)
		return h.str("table.concat(out, ',')")
	}
	a, b, other := draws(testSeed), draws(testSeed), draws(testSeed+1)
	if a != b {
		t.Fatalf("one fabric seed drew %q, then %q", a, b)
	}
	sessions := strings.Split(a, ",")
	if len(sessions) != 3 || sessions[0] == sessions[1] || sessions[0] == strings.Split(other, ",")[0] {
		t.Fatalf("two sessions of one pair drew %q; on a fabric of another seed %q", a, other)
	}
	if d := strings.Fields(sessions[0]); len(d) != 4 || d[0] == d[1] || d[0] == d[2] {
		t.Errorf("a session's two programs, two draws each, drew %q", sessions[0])
	}
	if !strings.Contains(sessions[2], "seeded34") {
		t.Errorf("math.randomseed(42) then math.random(1, 1000) drew %q, want lua5.1's 34", sessions[2])
	}
}

// TestCheckReadsOnlyItsOwnSession: a check's c reads the buffers of the
// session it checks; a c kept from an earlier check is refused, as its
// session's memory is released.
func TestCheckReadsOnlyItsOwnSession(t *testing.T) {
	h := sim(t)
	h.run(`
		local gpu = resident.program{source = "return function(p) end", name = "idle"}
		local npu = resident.program{name = "keeper", source = [[
			local kept
			return {
				buffers = {data = 64},
				run = function(p) end,
				check = function(c)
					if kept then
						local ok, err = pcall(kept.load, kept, kept.buffers.data, 0)
						return not ok and tostring(err):find("c:load: argument #1 must be one of this check's buffers", 1, true) ~= nil,
							"the kept c read: " .. tostring(err)
					end
					kept = c
					return c:load(c.buffers.data, 0) == 0, "a fresh buffer is not zero"
				end,
			}
		]]}
		problems = {}
		for i = 1, 2 do
			local s = startup{gpu = gpu, npu = npu}
			s:submit_gpu(); s:submit_npu(); s:start()
			assert(s:wait(1))
			local st = s:stats()
			problems[i] = tostring(st.check.ok) .. " " .. tostring(st.check.problem)
			s:close()
		end
	`)
	for i := 1; i <= 2; i++ {
		if got := h.str(fmt.Sprintf("problems[%d]", i)); got != "true nil" {
			t.Errorf("check %d: %s", i, got)
		}
	}
}

// TestSpinningProgramLetsTimePass runs, in simulated time, an NPU program
// that polls a word with p:load that nothing writes, beside a GPU program
// that hangs: each poll lets time pass, so the host's wait reaches its
// deadline and returns false rather than stopping the clock for ever.
func TestSpinningProgramLetsTimePass(t *testing.T) {
	h := sim(t)
	h.run(`local g = resident.program{name = "hang_gpu", source = [[return {run = function(p)
	local s = p:load(p.startup, 0)
	while s == p.WAIT do s = p:wait(p.startup, 0, s) end
	if s == p.RUN then p:hang() end
end}]]}
local n = resident.program{name = "spin_npu", source = [[return {buffers = {flags = 64}, run = function(p)
	local s = p:load(p.startup, 0)
	while s == p.WAIT do s = p:wait(p.startup, 0, s) end
	if s ~= p.RUN then return end
	while p:load(p.buffers.flags, 0) == 0 do end
end}]]}
s = resident.startup{gpu = g, npu = n}
s:submit_gpu(); s:submit_npu(); s:start()
before = resident.now()
ok = s:wait(1)
after = resident.now()
s:close(0)`)
	if h.eval("ok") != lua.LFalse || h.eval("after - before >= 1") != lua.LTrue {
		t.Errorf("wait returned %s after %s s of simulated time, want false after 1 s", h.str("tostring(ok)"), h.str("after - before"))
	}
}

// The module keeps the programs it compiled for reuse, the maxPrograms used
// last: a program of a new text in every trial does not keep them all.
func TestProgramCacheIsBounded(t *testing.T) {
	h := sim(t)
	h.run(`first = resident.program{source = "return function(p) end", name = "p0"}
for i = 1, 100 do
	resident.program{source = "return function(p) end", name = "p" .. i}
	if i % 10 == 0 then assert(resident.program{source = "return function(p) end", name = "p0"} ~= nil) end
end`)
	if n := len(h.m.programs); n != maxPrograms || len(h.m.programOrder) != maxPrograms {
		t.Errorf("the module keeps %d programs (%d in order), want %d", n, len(h.m.programOrder), maxPrograms)
	}
	// p0, used again and again, is still the one compiled first.
	prog := func(expr string) any { return h.eval(expr).(*lua.LUserData).Value.(*programValue).prog }
	if prog(`resident.program{source = "return function(p) end", name = "p0"}`) != prog("first") {
		t.Error("the program used last was dropped from the cache")
	}
}

// ringVariant is examples/ring's program file with old replaced by new
// (which must occur): a broken variant of the ring pair.
func ringVariant(t *testing.T, file, old, new string) string {
	t.Helper()
	b, err := os.ReadFile("../examples/ring/" + file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s lacks %q", file, old)
	}
	return strings.Replace(string(b), old, new, 1)
}

// TestRuleEightInSimulatedTime runs the ring pair in simulated time with
// its GPU half raising each slot's flag with a plain store: the NPU's wait
// is not woken by it (it hangs, as in real time), and the close with its
// default join reports the session that never retired (invariant 15). With
// the flag raised before the data, the NPU's read of a word the GPU wrote
// with a plain store that no release store published is invariant 16.
func TestRuleEightInSimulatedTime(t *testing.T) {
	for _, c := range []struct {
		name, old, new string
		inv            int
		says           string // in the first violation's message
	}{
		{"plain flag", "p:store(flags, 4 * s, m)", "p:store_plain(flags, 4 * s, m)", 15, "with no fault and no failure, ended with the GPU's join timed out"},
		{"flag first", "p:write(data, s * a.words * 4, words)\n\t\t\tp:store(flags, 4 * s, m)", "p:store(flags, 4 * s, m)\n\t\t\tp:write(data, s * a.words * 4, words)", 16,
			"npu0 read byte 12 of buffer 2 (data), which gpu0 wrote with a plain store"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sim(t)
			// Seeds order the devices' steps: some order reads before the
			// publication.
			h.run(`g = resident.program{name = "gpu", source = ` + luaQuote(ringVariant(t, "ring_gpu.lua", c.old, c.new)) + `}
n = resident.program{file = "../examples/ring/ring_npu.lua"}
for seed = 1, 20 do
	resident.fabric{mode = "sim", seed = seed}
	local s = resident.startup{gpu = g, npu = n, args = {slots = 2, msgs = 3, words = 2}}
	s:submit_npu(); s:submit_gpu(); s:start()
	s:wait(1)
	s:close()
	resident.reset("gpu0"); resident.reset("npu0")
end
found = {}
for _, v in ipairs(resident.violations()) do found[v.invariant] = v.message end`)
			if got := h.str(fmt.Sprintf("tostring(found[%d])", c.inv)); got == "nil" {
				t.Errorf("no violation of invariant %d in 20 seeds", c.inv)
			} else if !strings.Contains(got, c.says) {
				t.Errorf("invariant %d: %s, want it to say %q", c.inv, got, c.says)
			}
			if err := h.m.Restart(testSeed); err != nil { // the violations were the test's aim
				t.Fatal(err)
			}
		})
	}
	h := sim(t)
	h.run(`g = resident.program{file = "../examples/ring/ring_gpu.lua"}
n = resident.program{file = "../examples/ring/ring_npu.lua"}
s = resident.startup{gpu = g, npu = n, args = {slots = 2, msgs = 3, words = 2}}
s:submit_npu(); s:submit_gpu(); s:start()
ok = s:wait(1)
out = s:close()`)
	if h.str("tostring(ok) .. ' ' .. out .. ' ' .. #resident.violations()") != "true retired 0" {
		t.Errorf("the correct ring: wait %s, close %s, %s violations", h.str("tostring(ok)"), h.str("out"), h.str("#resident.violations()"))
	}
}

// luaQuote is s as a Lua long string.
func luaQuote(s string) string { return "[==[" + s + "]==]" }
