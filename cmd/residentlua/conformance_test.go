package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conformanceThroughCommand are scripts of lua51's conformance suite
// (lua51/testdata/conformance) run through the command as well: the cases
// where the command's own setup (its loader, its protected call, its os and
// memory settings) could make it print what its Lua state alone would not.
var conformanceThroughCommand = []string{
	"append_idiom",
	"binary_chunks",
	"debug_sethook",
	"goto_name",
	"len_operator",
	"levels_across_pcall",
	"mod_operator",
	"next_invalid_key",
	"number_literals",
	"os_exit_argument",
}

// TestConformanceThroughTheCommand runs each script as `residentlua NAME.lua`
// in the suite's directory and compares what it printed with NAME.out,
// recorded from lua5.1 (see lua51/testdata/regen.sh): standard output, the
// message of an uncaught error without the program's name and the
// traceback, and the exit status.
func TestConformanceThroughTheCommand(t *testing.T) {
	dir := filepath.Join(repoRoot, "lua51", "testdata", "conformance")
	for _, name := range conformanceThroughCommand {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, name+".out"))
			if err != nil {
				t.Fatal(err)
			}
			r := runCmd(t, dir, "", name+".lua")
			msg := strings.TrimPrefix(r.stderr, "residentlua: ")
			if i := strings.Index(msg, "stack traceback:\n"); i >= 0 {
				msg = msg[:i]
			}
			got := r.stdout + msg + fmt.Sprintf("exit: %d\n", r.code)
			if got != string(want) {
				t.Errorf("residentlua %s.lua printed\n%s\nlua5.1 printed\n%s", name, got, want)
			}
		})
	}
}
