package check_test

import (
	"os"
	"strings"
	"testing"
)

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
		t.Errorf("docs/checking.md does not show check/testdata/scenario.lua as it is")
	}
}
