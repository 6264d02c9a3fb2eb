package lua51_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/lua51"
)

// TestConformance runs every script testdata/conformance/NAME.lua in a state
// from lua51.NewState and compares what it prints with NAME.out, the output
// of the reference interpreter (Lua 5.1.5's lua.c) that testdata/regen.sh
// recorded: standard output, then the message of an uncaught error without
// lua.c's program name and traceback, then "exit: N".
func TestConformance(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "conformance"))
	scripts, err := filepath.Glob("*.lua")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no conformance scripts (%v)", err)
	}
	checkEveryOutputHasScript(t)
	for _, script := range scripts {
		name := strings.TrimSuffix(script, ".lua")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(name + ".out")
			if err != nil {
				t.Fatalf("%v: run testdata/regen.sh to record Lua 5.1's output", err)
			}
			got := runConformanceScript(t, script)
			if got != string(want) {
				t.Errorf("%s prints what Lua 5.1 does not:\n%s", script, lineDiff(name+".out (Lua 5.1)", "lua51.NewState", string(want), got))
			}
		})
	}
}

// checkEveryOutputHasScript fails on a .out file left behind by a removed
// script.
func checkEveryOutputHasScript(t *testing.T) {
	outs, err := filepath.Glob("*.out")
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range outs {
		if _, err := os.Stat(strings.TrimSuffix(out, ".out") + ".lua"); err != nil {
			t.Errorf("%s has no script: remove it or run testdata/regen.sh", out)
		}
	}
}

// runConformanceScript runs script (in the current directory) as lua.c
// would (loaded with lua51.LoadFile, so as chunk "@NAME.lua", and run with
// lua51.PCall) and returns the text regen.sh records for it. print and
// io.write write to the state's Options.Stdout, in the order written.
func runConformanceScript(t *testing.T, script string) string {
	var stdout strings.Builder
	L := lua51.NewState(lua51.Options{Stdout: &stdout})
	defer L.Close()
	status := 0
	var message string
	fn, err := lua51.LoadFile(L, script)
	if err == nil {
		L.Push(fn)
		err = lua51.PCall(L, 0, 0)
	}
	if err != nil {
		status = 1
		if msg, print := lua51.UncaughtMessage(err); print {
			message = msg + "\n"
		}
	}
	return stdout.String() + message + fmt.Sprintf("exit: %d\n", status)
}

// lineDiff shows where got differs from want as one unified-diff hunk: the
// lines between their common prefix and common suffix, with up to three
// lines of context before, and at most maxDiffLines lines of each side.
func lineDiff(wantName, gotName, want, got string) string {
	const context, maxDiffLines = 3, 20
	w := strings.SplitAfter(want, "\n")
	g := strings.SplitAfter(got, "\n")
	prefix := 0
	for prefix < len(w) && prefix < len(g) && w[prefix] == g[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(w)-prefix && suffix < len(g)-prefix && w[len(w)-1-suffix] == g[len(g)-1-suffix] {
		suffix++
	}
	start := max(prefix-context, 0)
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n@@ -%d,%d +%d,%d @@\n", wantName, gotName,
		start+1, len(w)-suffix-start, start+1, len(g)-suffix-start)
	for _, line := range w[start:prefix] {
		b.WriteString(" " + showLine(line))
	}
	writeSide(&b, "-", w[prefix:len(w)-suffix], maxDiffLines)
	writeSide(&b, "+", g[prefix:len(g)-suffix], maxDiffLines)
	return b.String()
}

// writeSide writes lines with the mark in front, at most limit of them.
func writeSide(b *strings.Builder, mark string, lines []string, limit int) {
	for i, line := range lines {
		if i == limit {
			fmt.Fprintf(b, "%s... (%d more lines)\n", mark, len(lines)-limit)
			return
		}
		b.WriteString(mark + showLine(line))
	}
}

// showLine makes a line's end visible when it has no newline.
func showLine(line string) string {
	if strings.HasSuffix(line, "\n") {
		return line
	}
	return line + "\n\\ No newline at end\n"
}
