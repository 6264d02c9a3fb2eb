package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbedExample builds the example with the go command and runs it: its
// output is fixed by the simulated fabric's seed.
func TestEmbedExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "embed")
	build := exec.Command(goCommand(), "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running the example: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	const want = `lua: session 1 (retired, aql, rounds=16, credits=4, slot_bytes=256), retired: true
go: the session ended retired after 16 rounds
go: session 1: closed, 4096 bytes verified, verification ok: true
go: caught busy error from start: both resident participants must be accepted before RUN
go: session 2 was still open; closing it: retired
`
	if got := stdout.String(); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
	if got := stderr.String(); got != "resident: closed session 2 at exit: retired\n" {
		t.Errorf("stderr: %q", got)
	}
}

// TestEmbedInProcess runs the same program in the test's process, so the race
// detector sees it too.
func TestEmbedInProcess(t *testing.T) {
	if err := run(); err != nil {
		t.Fatal(err)
	}
}

// TestEmbedFromAnotherModule builds a program in a module of its own that
// embeds the project through its published path, as `go get` would resolve
// it once published (a replace points the path at this checkout), and runs
// it: the third way people use residentlua needs no copy of its code. The
// module's go.mod requires what this one does, as go mod tidy would write
// it, so that building it needs no module this checkout's own build does
// not: it works offline on a fresh clone once the project itself was built.
func TestEmbedFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	_, requires, ok := strings.Cut(string(ours), "\nrequire")
	if !ok {
		t.Fatal("go.mod has no require")
	}
	dir := t.TempDir()
	goMod := "module example.com/tool\n\ngo 1.26.0\n\nrequire github.com/residentlua/residentlua v0.0.0\n\nrequire" + requires +
		"\nreplace github.com/residentlua/residentlua => " + root + "\n"
	mainGo := `package main

import (
	"fmt"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
)

func main() {
	L := lua51.NewState(lua51.Options{})
	defer L.Close()
	m, err := luaapi.Open(L, luaapi.Options{Config: devices.Config{Mode: devices.Simulated, Seed: 1}})
	if err != nil {
		panic(err)
	}
	defer m.Close()
	err = lua51.DoString(L, "local r = require 'resident'; local s = r.startup{}; s:submit_gpu(); s:submit_npu(); s:start(); assert(s:wait(1)); print(s:close(), 0.1 + 0.2)")
	fmt.Println(err)
}
`
	sum, err := os.ReadFile(filepath.Join(root, "go.sum")) // the same dependencies, so the same sums
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"go.mod": goMod, "main.go": mainGo, "go.sum": string(sum)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "tool")
	build := exec.Command(goCommand(), "build", "-mod=readonly", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off") // the module cache holds what the project's own build needed
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of a module that embeds residentlua: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil || string(out) != "retired\t0.3\n<nil>\n" {
		t.Errorf("the embedding program: %v\n%s", err, out)
	}
}

// TestREADMEEmbedding does what the README's "Using the engine from Go"
// says, as written there: its commands (with the checkout beside the tool's
// folder, and main.go written where the README says to write it), its
// program, and the output it says the program prints. go mod tidy fetches
// nothing the project's own build did not, except where the module cache
// lacks the go.mod files of indirect dependencies; then it uses the module
// proxy, as it would for a reader.
func TestREADMEEmbedding(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Using the engine from Go")
	if !ok {
		t.Fatal(`README.md has no "## Using the engine from Go"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	commands, program, output := fenced(t, section, "sh"), fenced(t, section, "go"), fenced(t, section, "text")

	base := t.TempDir()
	if err := os.Symlink(root, filepath.Join(base, "residentlua")); err != nil {
		t.Fatal(err)
	}
	staged := filepath.Join(base, "main.go.txt")
	if err := os.WriteFile(staged, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	var script []string
	for _, line := range strings.Split(commands, "\n") {
		if strings.HasPrefix(line, "# write main.go") {
			line = `cp "$STAGED_MAIN_GO" main.go`
		}
		script = append(script, line)
	}
	sh := exec.Command("sh", "-e", "-c", strings.Join(script, "\n"))
	sh.Dir = base
	sh.Env = append(os.Environ(), "GOWORK=off", "STAGED_MAIN_GO="+staged,
		"PATH="+filepath.Dir(goCommand())+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	sh.Stdout, sh.Stderr = &stdout, &stderr
	if err := sh.Run(); err != nil {
		t.Fatalf("the README's commands: %v\n%s\nstderr:\n%s", err, strings.Join(script, "\n"), stderr.String())
	}
	if stdout.String() != output {
		t.Errorf("the README's program printed %q; the README says %q", stdout.String(), output)
	}
}

// fenced is the body of the first code block of language lang in text.
func fenced(t *testing.T, text, lang string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "```"+lang+"\n")
	if !ok {
		t.Fatalf("no ```%s block in the README's section", lang)
	}
	body, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatalf("the ```%s block does not end", lang)
	}
	return body
}

// goCommand is the go command of the toolchain running the test, which go
// test puts first on the test's PATH.
func goCommand() string {
	path, err := exec.LookPath("go")
	if err != nil {
		return "go"
	}
	return path
}
