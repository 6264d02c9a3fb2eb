package luaapi

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
)

// docExample is one ```lua block of a document, with the ```output block
// that follows it, if any.
type docExample struct {
	line      int // of the opening fence
	code      string
	output    string
	hasOutput bool
}

// docExamples extracts every ```lua block of a Markdown file.
func docExamples(t *testing.T, path string) []docExample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	block := func(i int) (body string, end int) {
		var b strings.Builder
		for end = i + 1; end < len(lines) && strings.TrimSpace(lines[end]) != "```"; end++ {
			b.WriteString(lines[end] + "\n")
		}
		if end == len(lines) {
			t.Fatalf("%s:%d: unterminated code block", path, i+1)
		}
		return b.String(), end
	}
	var out []docExample
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```lua" {
			continue
		}
		ex := docExample{line: i + 1}
		ex.code, i = block(i)
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j < len(lines) && strings.TrimSpace(lines[j]) == "```output" {
			ex.output, i = block(j)
			ex.hasOutput = true
		}
		out = append(out, ex)
	}
	return out
}

const docsPath = "../docs/lua-api.md"

// TestDocs runs every ```lua block of docs/lua-api.md in a fresh state, in
// simulated time with seed 1 and the globals set, and compares what it prints
// with the ```output block that follows it.
func TestDocs(t *testing.T) {
	examples := docExamples(t, docsPath)
	if len(examples) < 25 {
		t.Fatalf("only %d examples in %s", len(examples), docsPath)
	}
	for _, ex := range examples {
		t.Run(fmt.Sprintf("line%d", ex.line), func(t *testing.T) {
			h := newHarness(t, Options{Config: devices.Config{Mode: devices.Simulated, Seed: 1}, Globals: true})
			if err := h.L.DoString(ex.code); err != nil {
				t.Fatalf("%s:%d: %v\n%s", docsPath, ex.line, err, ex.code)
			}
			got := h.stdout.String()
			if os.Getenv("RESIDENT_DOCS_PRINT") != "" {
				fmt.Printf("---- line %d\n%s", ex.line, got)
			}
			if ex.hasOutput && got != ex.output {
				t.Errorf("%s:%d: output\n%s\nwant\n%s", docsPath, ex.line, got, ex.output)
			}
		})
	}
}

// TestDocsCoverEveryFunction checks that docs/lua-api.md has a heading for
// every module function and session method, and the definition file a
// declaration of each.
func TestDocsCoverEveryFunction(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	var headings []string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "#") {
			headings = append(headings, line)
		}
	}
	all := strings.Join(headings, "\n")
	meta, err := os.ReadFile(metaPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range ModuleFunctions() {
		if !strings.Contains(all, "resident."+name+"(") && !strings.Contains(all, "resident."+name+"{") {
			t.Errorf("%s: no heading for resident.%s", docsPath, name)
		}
		if !regexp.MustCompile(`(?m)^function resident\.` + name + `\(`).Match(meta) {
			t.Errorf("%s: no declaration of resident.%s", metaPath, name)
		}
	}
	for _, name := range SessionMethods() {
		if !strings.Contains(all, "s:"+name+"(") && !strings.Contains(all, "resident."+name+"(s") {
			t.Errorf("%s: no heading for s:%s", docsPath, name)
		}
		if !regexp.MustCompile(`(?m)^function Session:` + name + `\(`).Match(meta) {
			t.Errorf("%s: no declaration of Session:%s", metaPath, name)
		}
	}
}

// TestModuleFunctionLists keeps ModuleFunctions and SessionMethods true to
// the tables Lua sees.
func TestModuleFunctionLists(t *testing.T) {
	h := newHarness(t, Options{})
	h.run(`r = require "resident"; s = r.startup{}`)
	var names []string
	h.eval("r").(*lua.LTable).ForEach(func(k, _ lua.LValue) { names = append(names, k.String()) })
	if got, want := sortedJoin(names), strings.Join(ModuleFunctions(), " "); got != want {
		t.Errorf("module functions\n got: %s\nwant: %s", got, want)
	}
	for _, m := range SessionMethods() {
		if h.eval("type(s."+m+")").String() != "function" {
			t.Errorf("s.%s is not a method", m)
		}
	}
}

func sortedJoin(s []string) string {
	s = append([]string(nil), s...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return strings.Join(s, " ")
}

const metaPath = "../docs/resident.d.lua"

// TestMetaFileParses loads the definition file as Lua: it must at least be
// valid syntax and run without error.
func TestMetaFileParses(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoFile(filepath.Clean(metaPath)); err != nil {
		t.Fatal(err)
	}
}
