package luaapi

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/internal/luamodule"
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

// TestDocs runs every ```lua block of docs/lua-api.md and docs/programs.md
// in a fresh state, in simulated time with seed 1 and the globals set, and
// compares what it prints with the ```output block that follows it.
func TestDocs(t *testing.T) {
	for _, path := range []string{docsPath, "../docs/programs.md"} {
		examples := docExamples(t, path)
		if path == docsPath && len(examples) < 25 {
			t.Fatalf("only %d examples in %s", len(examples), path)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Chdir("..") // the examples name files as a reader at the repository's root does
			for _, ex := range examples {
				t.Run(fmt.Sprintf("line%d", ex.line), func(t *testing.T) {
					h := newHarness(t, Options{Config: devices.Config{Mode: devices.Simulated, Seed: 1}, Globals: true})
					if err := h.L.DoString(ex.code); err != nil {
						t.Fatalf("%s:%d: %v\n%s", path, ex.line, ErrorString(err), ex.code)
					}
					got := h.stdout.String()
					if os.Getenv("RESIDENT_DOCS_PRINT") != "" {
						fmt.Printf("---- line %d\n%s", ex.line, got)
					}
					if ex.hasOutput && got != ex.output {
						t.Errorf("%s:%d: output\n%s\nwant\n%s", path, ex.line, got, ex.output)
					}
				})
			}
		})
	}
}

// TestDocsCoverEveryFunction checks docs/lua-api.md and the definition file
// against luamodule's functions and session fields, both ways: every function, method and
// field has a heading and a declaration, and nothing is documented or
// declared that the module lacks. A function's summary is the comment of its
// declaration (Session:name for a method, resident.name otherwise).
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
	decls := declarations(string(meta))
	want := map[string]bool{} // every name documented and declared, as the docs write it
	for _, f := range luamodule.Functions() {
		if !strings.Contains(all, "resident."+f.Name+"(") && !strings.Contains(all, "resident."+f.Name+"{") {
			t.Errorf("%s: no heading for resident.%s", docsPath, f.Name)
		}
		want["resident."+f.Name] = true
		primary := "resident." + f.Name
		if f.Method {
			if !strings.Contains(all, "s:"+f.Name+"(") && !strings.Contains(all, "resident."+f.Name+"(s") {
				t.Errorf("%s: no heading for s:%s", docsPath, f.Name)
			}
			want["s:"+f.Name], want["Session:"+f.Name] = true, true
			primary = "Session:" + f.Name
		}
		if f.Global {
			want[f.Name] = true
		}
		if got, ok := decls[primary]; ok && got != f.Summary {
			t.Errorf("%s: %s says %q; Functions says %q", metaPath, primary, got, f.Summary)
		}
	}
	for _, name := range luamodule.SessionFields() {
		if !strings.Contains(all, "s."+name) {
			t.Errorf("%s: no heading for s.%s", docsPath, name)
		}
		want["s."+name], want["Session."+name] = true, true
	}
	for _, m := range regexp.MustCompile(`\b(resident\.|s[.:])([a-z_]+)\b`).FindAllStringSubmatch(all, -1) {
		if name := m[1] + m[2]; !want[name] {
			t.Errorf("%s: a heading documents %s, which the module does not have", docsPath, name)
		}
	}
	for name := range want {
		if strings.HasPrefix(name, "s") {
			continue // s:name and s.name are the headings' spelling
		}
		if _, ok := decls[name]; !ok {
			t.Errorf("%s: no declaration of %s", metaPath, name)
		}
	}
	for name := range decls {
		if !want[name] {
			t.Errorf("%s: declares %s, which the module does not have", metaPath, name)
		}
	}
}

// declarations reads a definition file: each function it declares
// ("resident.name", "Session:name" or a global's name), and each field of
// class Session ("Session.name"), with the first line of the comment above
// it that is not an annotation.
func declarations(meta string) map[string]string {
	decls := map[string]string{}
	function := regexp.MustCompile(`^function ([\w.:]+)\(`)
	summary, inSession := "", false
	for _, line := range strings.Split(meta, "\n") {
		switch {
		case strings.HasPrefix(line, "---@class "):
			inSession = line == "---@class Session"
		case inSession && strings.HasPrefix(line, "---@field "):
			decls["Session."+strings.Fields(line)[1]] = ""
		case strings.HasPrefix(line, "---@"):
		case strings.HasPrefix(line, "---"):
			if summary == "" {
				summary = strings.TrimPrefix(line, "---")
			}
			continue
		default:
			// The program API (ProgramHandle, CheckHandle) is luaprogram's,
			// whose own test compares it with the declarations.
			if m := function.FindStringSubmatch(line); m != nil && !strings.Contains(m[1], "Handle:") {
				decls[m[1]] = summary
			}
			inSession = false
		}
		if !strings.HasPrefix(line, "---") {
			summary = ""
		}
	}
	return decls
}

// TestModuleFunctionLists keeps luamodule's lists true to what Lua sees: the module
// table holds exactly its functions, a session exactly its methods and
// fields.
func TestModuleFunctionLists(t *testing.T) {
	h := newHarness(t, Options{})
	h.run(`r = require "resident"; s = r.startup{}`)
	var names []string
	h.eval("r").(*lua.LTable).ForEach(func(k, _ lua.LValue) { names = append(names, k.String()) })
	slices.Sort(names)
	if got, want := strings.Join(names, " "), strings.Join(luamodule.Names(), " "); got != want {
		t.Errorf("module functions\n got: %s\nwant: %s", got, want)
	}
	for _, f := range luamodule.Functions() {
		got := h.eval("type(s." + f.Name + ")").String()
		if want := map[bool]string{true: "function", false: "nil"}[f.Method]; got != want {
			t.Errorf("s.%s is a %s, want a %s (Method: %v)", f.Name, got, want, f.Method)
		}
		if f.Method && h.eval("s."+f.Name+" == r."+f.Name) != lua.LTrue {
			t.Errorf("s.%s is not r.%s", f.Name, f.Name)
		}
	}
	for _, name := range luamodule.SessionFields() {
		if h.eval("s."+name) == lua.LNil {
			t.Errorf("s.%s is nil", name)
		}
	}
	if got, want := slices.Sorted(maps.Keys(sessionFields)), luamodule.SessionFields(); !slices.Equal(got, want) {
		t.Errorf("a session answers the fields %v, luamodule lists %v", got, want)
	}
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
