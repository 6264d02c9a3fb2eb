package luaapi

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine/oracle"
)

// fuzzPrelude runs every generated call under pcall: protocol errors and bad
// arguments are expected, a Go panic turned into an error is not.
const fuzzPrelude = `
S, P = {}, {}
function check(c, msg)
	if not c then error("CHECK FAILED: " .. (msg or "?"), 0) end
end
function try(f)
	local ok, err = pcall(f)
	if not ok and type(err) == "string" and (err:find("resident: internal error", 1, true) or err:find("CHECK FAILED", 1, true)) then
		error(err, 0)
	end
	if not ok and type(err) == "table" then
		check(type(err.kind) == "string" and type(err.op) == "string" and type(err.message) == "string", "a malformed error value")
		check(tostring(err) == err.kind .. ": " .. (err.op ~= "" and err.op .. ": " or "") .. err.message, "tostring of an error value")
	end
end
`

var (
	fuzzQueues  = []string{`"aql"`, `"pm4"`, `"sdma"`, `nil`, `7`}
	fuzzSizes   = []string{`8`, `64`, `"1KiB"`, `"4KiB"`, `12`, `"1e30"`, `-8`, `"2MiB"`, `true`}
	fuzzSeconds = []string{`0`, `1e-6`, `1e-3`, `0.01`, `1`, `100`, `-1`, `0/0`, `1/0`, `"x"`, `nil`, `1e12`}
	fuzzDevices = []string{`"gpu"`, `"npu"`, `"gpu0"`, `"npu0"`, `"tpu"`, `nil`}
	fuzzFaults  = []struct{ site, term string }{
		{"gpu.dispatch", "error(busy)"}, {"npu.dispatch", "error(full)"}, {"npu.dispatch", "50%error"},
		{"gpu.dispatch", "delay(10us)"}, {"gpu.run", "hang"}, {"npu.run", "hang"}, {"gpu.run", "crash(boom)"},
		{"npu.run", "1*off->crash"}, {"gpu.run", "delay(1ms)"}, {"npu.run", "ignore_abort"}, {"gpu.run", "ignore_abort"},
		{"npu.drain", "skip"}, {"npu.drain", "2*off->skip"}, {"gpu.complete", "error"}, {"npu.complete", "error(x)"},
		{"host.publish", "error(nope)"}, {"host.publish", "skip"}, {"host.publish", "1*off->error"},
		{"memory.alloc", "error"}, {"memory.alloc", "30%error"}, {"payload.corrupt", "flip"}, {"payload.corrupt", "50%flip"},
		{"gpu.run", "off"}, {"npu.run", "off"}, {"host.publish", "off"},
		{"gpu.nowhere", "hang"}, {"gpu.run", "explode"}, {"npu.drain", "hang"}, {"gpu.run", ""}, {"gpu.run", "delay(x)"},
	}
	fuzzTimings = []string{`"ideal"`, `"published"`, `{profile = "published", aql_dispatch = 1e-6}`, `{xdna_dispatch = "20us"}`, `{nope = 1}`}
	fuzzBudgets = []string{`nil`, `"1GiB"`, `"4KiB"`, `1024`, `"lots"`, `0`}
	// fuzzPrograms are device programs that behave, and programs that
	// misbehave by each route a researcher's program can: errors, loops,
	// long library calls, memory operations inside callbacks, tampering
	// with what the next invocation sees, deep recursion.
	fuzzPrograms = []string{
		`"return function(p) end"`,
		`"return function(p) while p:load(p.startup, 0) == p.WAIT do end end"`,
		neverRetires[0],
		`"return function(p) while true do end end"`,
		`"return function(p) error('boom') end"`,
		`"return function(p) error(setmetatable({}, {__tostring = function() return {} end})) end"`,
		`"return function(p) string.rep('a', 3000):find('.-.-.-.-b') end"`,
		`"return function(p) for w in function() return p:load(p.startup, 0) end do break end end"`,
		`"return function(p) table.sort({3, 2, 1}, function(a, b) p:load(p.startup, 0) return a < b end) end"`,
		`"return function(p) return (('x'):gsub('x', function() p:load(p.startup, 0) end)) end"`,
		`"return function(p) local t = setmetatable({}, {__index = function() return p:load(p.startup, 0) end}) return t.x end"`,
		`"return function(p) setmetatable(_G, {__index = {x = 1}}) getfenv(0).y = 1 string.z = 1 getmetatable('').__index = {} end"`,
		`"return function(p) local ok, e = pcall(getfenv, 2) if ok and type(e) == 'table' and e.finished then e.finished() end end"`,
		`"return function(p) p.load = nil end"`,
		`"return function(p) p:retire('early') end"`,
		neverRetires[1],
		`"return function(p) local function f() return 1 + f() end f() end"`,
		`"return function(p) return string.format(string.rep('%s', 50), unpack({}, 1, 50)) end"`,
		`"return function(p) p:load( end"`,
		`"return 1"`,
	}
	// neverRetires are the programs that never retire, by design: a session
	// of them with no fault is one invariant 15 rightly reports.
	neverRetires = []string{
		`"return function(p) while true do p:load(p.startup, 0) end end"`,
		`"return function(p) p:hang() end"`,
	}
	fuzzProgramNames   = []string{`"gpu"`, `"npu"`, `"p"`, `nil`}
	fuzzProgramBudgets = []string{`1000`, `100000`, `0`, `"x"`}
)

// fuzzProgram turns bytes into a sequence of API calls, one per line, each
// under try.
func fuzzProgram(data []byte) []string {
	pos := 0
	next := func() int {
		if pos >= len(data) {
			return 0
		}
		pos++
		return int(data[pos-1])
	}
	pick := func(choices []string) string { return choices[next()%len(choices)] }
	var lines []string
	for pos < len(data) && len(lines) < 64 {
		op := next() % 19
		k := next()%4 + 1
		s := fmt.Sprintf("S[%d]", k)
		var call string
		switch op {
		case 0:
			call = fmt.Sprintf("%s = resident.startup{gpu = %s, rounds = %d, credits = %d, slot_bytes = %s}",
				s, pick(fuzzQueues), []int{1, 2, 5, 40, 0}[next()%5], []int{1, 2, 4, 65}[next()%4], pick(fuzzSizes))
		case 1:
			call = "resident.submit_gpu(" + s + ")"
		case 2:
			call = s + ":submit_npu()"
		case 3:
			call = "start(" + s + ")"
		case 4:
			call = s + ":abort()"
		case 5:
			call = fmt.Sprintf("local r = %s:wait(%s); check(type(r) == 'boolean')", s, pick(fuzzSeconds))
		case 6:
			call = "check(type(resident.is_complete(" + s + ")) == 'boolean')"
		case 7:
			call = fmt.Sprintf("local o = %s:close(%s); check(o == 'retired' or o == 'quarantined' or o == 'released')", s, pick(fuzzSeconds))
		case 8:
			call = fmt.Sprintf("local st = %s:stats(); check(st.id == %s.id and st.state == %s.state); check(type(%s:events()) == 'table'); check(tostring(%s):find('^session'))", s, s, s, s, s)
		case 9:
			f := fuzzFaults[next()%len(fuzzFaults)]
			call = fmt.Sprintf("resident.fault(%q, %q)", f.site, f.term)
		case 10:
			call = "resident.clear_faults()"
		case 11:
			call = "resident.reset(" + pick(fuzzDevices) + ")"
		case 12:
			call = "local q, b = resident.quarantined(), resident.budget(); check(b.charged >= b.quarantined); " +
				"check(type(resident.faults()) == 'table' and resident.now() >= 0 and resident.seed() > 0 and #resident.sessions() >= 0)"
		case 13:
			call = fmt.Sprintf("resident.fabric{mode = 'sim', seed = %d, timing = %s, budget = %s, npu = %s, gpu = {fine_grained = %s}}",
				next()+1, pick(fuzzTimings), pick(fuzzBudgets), []string{"nil", "false", "{}"}[next()%3], []string{"true", "false", "nil"}[next()%3])
		case 14:
			call = []string{"resident.start(5)", "resident.wait(" + s + ")", "resident.startup('x')", "resident.fault()",
				"resident.reset(1)", s + ".id = 3", "resident.stats({})", "resident.startup{bogus = 1}"}[next()%8]
		case 15:
			call = "local f = resident.fabric(); check(f.mode == 'sim')"
		case 16:
			call = "for _, t in ipairs(resident.sessions()) do t:close(0.01) end"
		case 17:
			call = fmt.Sprintf("P[%d] = resident.program{source = %s, name = %s, instructions = %s}",
				k%2+1, pick(fuzzPrograms), pick(fuzzProgramNames), pick(fuzzProgramBudgets))
		case 18:
			call = fmt.Sprintf("%s = resident.startup{gpu = P[%d], npu = P[%d], args = %s}", s, next()%2+1, next()%2+1, []string{"nil", "{n = 1}", "{1, 2}"}[next()%3])
		}
		lines = append(lines, "try(function() "+call+" end)")
	}
	return lines
}

// FuzzAPI throws random sequences of API calls at the module in simulated
// time: no Go panic may escape, and the oracle must find no violation, during
// the calls and after the module closes what is left.
func FuzzAPI(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 2, 1, 3, 1, 5, 1, 4, 7, 1, 0})
	f.Add([]byte{9, 0, 4, 0, 1, 0, 1, 1, 2, 1, 3, 1, 5, 1, 5, 7, 1, 9, 11, 0, 0, 11, 0, 1})
	f.Add([]byte{0, 0, 1, 1, 1, 1, 9, 0, 1, 2, 0, 13, 0, 1, 1, 1, 1, 1, 7, 0, 0, 13, 0, 5, 2, 3, 1, 0})
	f.Add([]byte{9, 0, 15, 0, 2, 0, 0, 1, 1, 2, 0, 3, 0, 5, 0, 4, 7, 0, 9, 8, 0})
	f.Add([]byte{9, 0, 20, 0, 1, 2, 1, 3, 0, 0, 0, 1, 0, 2, 0, 3, 0, 5, 0, 4, 8, 0, 12, 0})
	f.Add([]byte{14, 0, 0, 14, 1, 1, 14, 2, 2, 14, 3, 3, 14, 4, 4, 14, 5, 5, 14, 6, 6, 14, 7, 7, 16, 0})
	f.Add([]byte{17, 0, 6, 0, 1, 17, 1, 1, 1, 1, 18, 0, 0, 1, 0, 1, 0, 2, 0, 3, 0, 5, 0, 5, 7, 0, 3})
	f.Add([]byte{17, 0, 7, 0, 1, 17, 1, 2, 1, 1, 18, 0, 0, 1, 1, 1, 0, 2, 0, 3, 0, 5, 0, 2, 7, 0, 2, 11, 0, 11, 1})
	f.Fuzz(runAPIProgram)
}

var (
	apiSeeds = flag.Int("api.seeds", 40, "random API programs TestRandomAPIPrograms runs")
	apiSeed  = flag.Uint64("api.seed", 1, "seed of TestRandomAPIPrograms' first program; program i uses seed+i")
)

// TestRandomAPIPrograms runs FuzzAPI's check over programs drawn from
// seeds, which -api.seeds and -api.seed widen beyond what CI runs: each
// program is 200 random bytes of the seed's generator.
func TestRandomAPIPrograms(t *testing.T) {
	for i := range *apiSeeds {
		seed := *apiSeed + uint64(i)
		r := rand.New(rand.NewPCG(seed, 0))
		data := make([]byte, 200)
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { runAPIProgram(t, data) })
	}
}

// runAPIProgram runs the API calls fuzzProgram makes of data in simulated
// time: no Go panic may escape, and the oracle must find no violation,
// during the calls and after the module closes what is left.
func runAPIProgram(t *testing.T, data []byte) {
	lines := fuzzProgram(data)
	L := lua.NewState()
	defer L.Close()
	var out strings.Builder
	m, err := Open(L, Options{Config: devices.Config{Mode: devices.Simulated, Seed: 99}, Globals: true, Sandbox: true, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	m.opts.CloseTimeout = 0
	if err := L.DoString(fuzzPrelude); err != nil {
		t.Fatal(err)
	}
	for i, line := range lines {
		if err := L.DoString(line); err != nil {
			t.Fatalf("call %d: %s\n%v\nprogram:\n%s", i+1, line, err, strings.Join(lines, "\n"))
		}
		if v := unexpected(m.Violations(), lines); len(v) > 0 {
			t.Fatalf("after call %d (%s): oracle violation: %v\nprogram:\n%s", i+1, line, v[0], strings.Join(lines, "\n"))
		}
	}
	m.Close()
	if v := unexpected(m.Violations(), lines); len(v) > 0 {
		t.Fatalf("after Close: oracle violation: %v\nprogram:\n%s", v[0], strings.Join(lines, "\n"))
	}
}

// unexpected leaves out of vs the violations of invariant 15 (a fault-free
// session retires) when the calls made a program that never retires.
func unexpected(vs []oracle.Violation, lines []string) []oracle.Violation {
	program := strings.Join(lines, "\n")
	hangs := slices.ContainsFunc(neverRetires, func(src string) bool { return strings.Contains(program, src) })
	return slices.DeleteFunc(vs, func(v oracle.Violation) bool { return hangs && v.Invariant == 15 })
}
