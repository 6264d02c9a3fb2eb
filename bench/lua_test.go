package bench

import (
	"testing"
)

// TestLuaLifecycleAllocations bounds what a lifecycle driven from Lua
// allocates beyond the same lifecycle through the Go API: the session's
// userdata, its Go value and the record its stats are made of, the five
// method names gopher-lua makes into values to call the session's __index
// function, and a share of the finished sessions' list as it grows. Every allocation the module adds is work the garbage collector
// does on top of the interpreter's; a finished session's stats are made
// when asked, not as it closes.
func TestLuaLifecycleAllocations(t *testing.T) {
	const batch, most = 50, 9
	fromScript, err := newLuaLifecycles()
	if err != nil {
		t.Fatal(err)
	}
	defer fromScript.close()
	fromAPI, err := newGoLifecycles()
	if err != nil {
		t.Fatal(err)
	}
	defer fromAPI.close()
	var runErr error
	lua := testing.AllocsPerRun(10, func() {
		if err := fromScript.run(batch); err != nil {
			runErr = err
		}
	})
	api := testing.AllocsPerRun(10, func() {
		if err := fromAPI.run(batch); err != nil {
			runErr = err
		}
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	if extra := (lua - api) / batch; extra > most {
		t.Errorf("a lifecycle from Lua makes %.1f allocations more than from Go (%.1f against %.1f), want at most %d",
			extra, lua/batch, api/batch, most)
	}
}
