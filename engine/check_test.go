package engine_test

import (
	"context"
	"testing"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/luaapi"
)

// TestCheckerLuaScenarioKeptByEngine checks the Lua scenario that looks for
// an early start: with the engine correct the checker reports nothing (the
// mutant run-with-one-accepted must make it report the early start:
// luaScenarioCatchesEarlyRun).
func TestCheckerLuaScenarioKeptByEngine(t *testing.T) {
	t.Parallel()
	sc, err := luaapi.LoadScenario(context.Background(), "../luaapi/testdata/early_start.lua", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep := check.Check(context.Background(), sc.Run, check.Options{}); !rep.OK() {
		t.Fatalf("with every rule kept:\n%s", rep.String())
	}
}
