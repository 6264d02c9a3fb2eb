package luaapi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/engine/oracle"
)

// writeScenario writes a scenario script into a temporary directory.
func writeScenario(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// mustLoadScenario loads a scenario script, failing the test if it does not.
func mustLoadScenario(t *testing.T, path string) *Scenario {
	t.Helper()
	sc, err := LoadScenario(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// replaySteps replays one schedule of sc and returns its steps, a line
// each.
func replaySteps(t *testing.T, sc *Scenario, replay string) string {
	t.Helper()
	r, err := check.Replay(context.Background(), sc.Run, replay, nil)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range r.Steps {
		texts = append(texts, s.Text)
	}
	return strings.Join(texts, "\n")
}

// TestLuaScenario explores the scenario of docs/checking.md exhaustively
// and requires no violation, and its schedules to replay with the host
// operations the script makes, written as it writes them.
func TestLuaScenario(t *testing.T) {
	sc := mustLoadScenario(t, "testdata/scenario.lua")
	rep := check.Check(context.Background(), sc.Run, check.Options{Bounds: check.Bounds{Faults: -1}})
	if !rep.OK() || !rep.Exhausted || rep.ScenarioErrors != 0 || rep.Nondeterministic != "" || rep.Schedules < 4 {
		t.Fatalf("want at least 4 schedules, exhausted, no violation nor error:\n%s", rep.String())
	}
	got := replaySteps(t, sc, "f0:0.1")
	for _, want := range []string{"resident.startup{credits = 2, rounds = 2} = s1", "host chooses 0 of 2 for the order of the submissions",
		"s1:submit_gpu() = ok", "host chooses 1 of 2 for start or abort", "s1:abort() = ok", "s1:wait(0) = true", `s1:close(1) = "retired"`, "reset every device = ok"} {
		if !strings.Contains(got, want) {
			t.Errorf("the replay lacks %q:\n%s", want, got)
		}
	}
}

// TestDocsShowTheTestedScenario keeps the Lua scenario of docs/checking.md
// the one TestLuaScenario explores.
func TestDocsShowTheTestedScenario(t *testing.T) {
	doc, err := os.ReadFile("../docs/checking.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/scenario.lua")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```lua\n"+string(script)+"```") {
		t.Errorf("docs/checking.md does not show luaapi/testdata/scenario.lua as it is")
	}
}

// TestScenarioVerbsRaise checks a scenario whose verbs raise as luaapi's
// do: an error value that pcall catches with its kind, and, uncaught, a
// failure of the scenario that says what and where.
func TestScenarioVerbsRaise(t *testing.T) {
	sc := mustLoadScenario(t, writeScenario(t, `function scenario(c)
  local s = startup{rounds = 1, credits = 1}
  local ok, err = pcall(s.start, s)
  assert(not ok and err.kind == "busy" and err.op == "start", tostring(err))
  if c.choose(2) == 1 then
    s:start()
  end
  s:close(0)
end
`))
	rep := check.Check(context.Background(), sc.Run, check.Options{Bounds: check.Bounds{Faults: -1}})
	if rep.ScenarioErrors != 1 || !strings.Contains(rep.ScenarioError, "s.lua:6: busy: ") || !strings.Contains(rep.ScenarioError, "(replay f0:1)") {
		t.Errorf("want the uncaught busy error of line 6, once, with its replay:\n%s", rep.String())
	}
	got := replaySteps(t, sc, "f0:1")
	for _, want := range []string{"s1:start() = error: busy: ", "host chooses 1 of 2 for c.choose(2)", "s.lua:6: busy: start: both resident participants must be accepted before RUN"} {
		if !strings.Contains(got, want) {
			t.Errorf("the replay lacks %q:\n%s", want, got)
		}
	}
}

// TestScenarioFreshState keeps globals, set at the top level or by the
// scenario, from reaching the next run: each run is a fresh state.
func TestScenarioFreshState(t *testing.T) {
	sc := mustLoadScenario(t, writeScenario(t, `loaded = (loaded or 0) + 1
function scenario(c)
  assert(loaded == 1, "the top level ran " .. loaded .. " times in this state")
  runs = (runs or 0) + 1
  c.choose(runs + 1)
  string.kept = true
end
`))
	rep := check.Check(context.Background(), sc.Run, check.Options{})
	if !rep.Exhausted || rep.Schedules != 2 || rep.ScenarioErrors != 0 || rep.Nondeterministic != "" {
		t.Errorf("want 2 schedules, exhausted, no error and nothing nondeterministic:\n%s", rep.String())
	}
}

// TestScenarioNotDeterministic reads a counter kept in a file from one run
// to the next: the search stops and says the scenario is not
// deterministic.
func TestScenarioNotDeterministic(t *testing.T) {
	counter := filepath.Join(t.TempDir(), "counter")
	sc := mustLoadScenario(t, writeScenario(t, `local path = `+luaString(counter)+`
function scenario(c)
  local f = io.open(path)
  local n = f and tonumber(f:read("*a")) or 0
  if f then f:close() end
  f = io.open(path, "w")
  f:write(n + 1)
  f:close()
  c.choose(2 + n % 2)
end
`))
	rep := check.Check(context.Background(), sc.Run, check.Options{})
	if !strings.HasPrefix(rep.Nondeterministic, "scenario is not deterministic: replaying the choices f1:1 of an earlier run, choice 1 had 3 alternatives") || rep.Exhausted {
		t.Errorf("want the scenario found not deterministic:\n%s", rep.String())
	}
}

// luaString quotes s as a Lua string literal.
func luaString(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// TestScenarioRefusals raises, inside a scenario, what would take it out
// of the checker's hands or end the process: resident.fabric{...},
// os.exit however it is reached, and a field c does not have.
func TestScenarioRefusals(t *testing.T) {
	for body, want := range map[string]string{
		`resident.fabric{mode = "realtime"}`: "invalid: fabric: a check scenario runs on the fabric the checker makes for each run",
		`os.exit(3)`:                         "os.exit is not available in a check scenario",
		`exit(0)`:                            "os.exit is not available in a check scenario",
		`require("os").exit(true)`:           "os.exit is not available in a check scenario",
		`c.startup{}`:                        "c.startup is not a field of a scenario's c, whose fields are choose, reset, args, rounds, credits, faults, sessions, misuse",
		`c.choose(0)`:                        "bad argument #1 to 'choose' (the number of alternatives must be a whole number from 1, got 0)",
		`c.choose(2.5)`:                      "bad argument #1 to 'choose' (the number of alternatives must be a whole number from 1, got 2.5)",
		`c.choose("2")`:                      "bad argument #1 to 'choose' (number expected, got string)",
	} {
		sc := mustLoadScenario(t, writeScenario(t, "local exit = os.exit\nfunction scenario(c)\n  "+body+"\nend\n"))
		rep := check.Check(context.Background(), sc.Run, check.Options{})
		if rep.ScenarioErrors != 1 || !strings.Contains(rep.ScenarioError, want) {
			t.Errorf("%s: want one scenario error saying %q:\n%s", body, want, rep.String())
		}
	}
	if got := resident(t, `resident.fabric()`); got != "" {
		t.Errorf("describing the fabric in a scenario: %s", got)
	}
}

// resident runs body in a scenario's first run and returns the scenario's
// error, or "".
func resident(t *testing.T, body string) string {
	t.Helper()
	sc := mustLoadScenario(t, writeScenario(t, "function scenario(c)\n  "+body+"\nend\n"))
	rep := check.Check(context.Background(), sc.Run, check.Options{})
	return rep.ScenarioError
}

// TestLoadScenarioRefuses reports a script that is not a scenario, one
// whose top level fails or calls os.exit, and one that cannot be read.
func TestLoadScenarioRefuses(t *testing.T) {
	for src, want := range map[string]string{
		"x = 1\n":                "s.lua is not a check scenario: it defines no function scenario(c). A scenario is a script that defines function scenario(c)",
		"os.exit(9)\n":           "s.lua:1: os.exit is not available in a check scenario",
		"local s = startup{}\n":  "s.lua is not a check scenario", // it runs, but is a script
		"function scenario(c)\n": "s.lua:2: ",
		"error('at the top')\n":  "s.lua:1: at the top",
		"startup{rounds = 0}\n":  "invalid: ",
		"#!/bin/sh\nx = = 1\n":   "s.lua:2: ",
		"resident.fabric{}\nx=1": "invalid: fabric: a check scenario runs on the fabric the checker makes",
	} {
		_, err := LoadScenario(context.Background(), writeScenario(t, src), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadScenario of %q: %v, want %q", src, err, want)
		}
	}
	if _, err := LoadScenario(context.Background(), "/nonexistent/s.lua", nil); err == nil || err.Error() != "cannot open /nonexistent/s.lua: no such file or directory" {
		t.Errorf("LoadScenario of a missing file: %v", err)
	}
}

// TestScenarioStopsInALoop ends the search's context while a run of the
// scenario loops for ever: the run stops, the search ends not exhausted,
// and the cut run is not counted as the scenario's error.
func TestScenarioStopsInALoop(t *testing.T) {
	sc := mustLoadScenario(t, writeScenario(t, "function scenario(c) while true do end end\n"))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	rep := check.Check(ctx, sc.Run, check.Options{})
	if rep.Exhausted || rep.Schedules != 1 || rep.ScenarioErrors != 0 {
		t.Errorf("want one schedule, not exhausted, no scenario error:\n%s", rep.String())
	}
}

// TestScenarioStopsInALongWait ends the context of a replay as a wait of
// the scenario begins on an exchange of 100,000 rounds in simulated time:
// the wait's joins are cancelled, and the replay stops.
func TestScenarioStopsInALongWait(t *testing.T) {
	sc := mustLoadScenario(t, writeScenario(t, `function scenario(c)
  local s = startup{rounds = 100000, credits = 1}
  s:submit_gpu()
  s:submit_npu()
  s:start()
  s:wait(3600)
end
`))
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := 0
	_, err := check.Replay(ctx, sc.Run, "f0:", func(f *devices.Fabric) {
		f.Events().Subscribe(func(e *event.Event) {
			switch {
			case e.Kind == oracle.EvWait:
				cancel()
			case e.Kind == oracle.EvJoin && oracle.JoinResult(e.B) == oracle.JoinCancelled:
				cancelled++
			}
		})
	})
	if err == nil || !strings.Contains(err.Error(), `replay "f0:" interrupted before the end of the scenario`) {
		t.Errorf("the replay returned %v, want it interrupted", err)
	}
	if cancelled == 0 {
		t.Error("no join of the wait was cancelled")
	}
}

// BenchmarkLuaScenario explores the scenario of docs/checking.md (no
// faults) and reports schedules per second: each run is a fresh Lua state.
func BenchmarkLuaScenario(b *testing.B) {
	sc, err := LoadScenario(context.Background(), "testdata/scenario.lua", nil)
	if err != nil {
		b.Fatal(err)
	}
	schedules := 0
	for b.Loop() {
		rep := check.Check(context.Background(), sc.Run, check.Options{Bounds: check.Bounds{Faults: -1}})
		schedules += rep.Schedules
	}
	b.ReportMetric(float64(schedules)/b.Elapsed().Seconds(), "schedules/s")
}

// TestScenarioSeesTheBounds gives a scenario's c the bounds, the built-in
// scenario's sessions and misuse among them, which the replay string
// fixes, and the built-in exchange's arguments it runs with
// (ScriptChecked), which the replay string records the digest of: the
// scenario records what it saw as an operation.
func TestScenarioSeesTheBounds(t *testing.T) {
	sc := mustLoadScenario(t, writeScenario(t, `function scenario(c)
  resident.fault("npu.run", "off")
  c.choose(2, string.format("rounds %d, credits %d, faults %d, sessions %d, misuse %s", c.rounds, c.credits, c.faults, c.sessions, tostring(c.misuse)))
end
`))
	for _, c := range []struct {
		x            check.Exchange
		head, choice string
		want         string
	}{
		{check.Exchange{Rounds: 1, Credits: 2}, "f1", "", "rounds 1, credits 2, faults 1, sessions 2, misuse true"},
		{check.Exchange{Rounds: 2, Credits: 1}, "f0s3m0", "", "rounds 2, credits 1, faults 0, sessions 3, misuse false"},
		{check.Exchange{Rounds: 1, Credits: 1}, "f1s1", "1", "rounds 1, credits 1, faults 1, sessions 1, misuse true"},
		{check.Exchange{}, "f1m1", "1", "rounds 2, credits 2, faults 1, sessions 2, misuse true"},
	} {
		scenario, pair := ScriptChecked(sc.Run, c.x)
		replay := c.head + "p" + pair.Digest + ":" + c.choice
		r, err := check.ReplayPair(context.Background(), scenario, pair, replay, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range r.Steps {
			got = append(got, s.Text)
		}
		if !strings.Contains(strings.Join(got, "\n"), c.want) {
			t.Errorf("replay %s:\n%s\nwant %q", replay, got, c.want)
		}
	}
}
