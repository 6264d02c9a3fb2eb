package engine_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/campaign/trial"
	"github.com/residentlua/residentlua/check"
)

// A mutant is a copy of the engine, or of the devices under it, that
// breaks one rule of the protocol. It is not in the production code: each
// is a source patch described by a file of testdata/mutants, which
// TestMutantsAreCaught compiles into a test binary of its own (go test -c
// -overlay) together with the files built under the tag "mutant", the
// tests that must catch it.

var (
	campaignBroken = flag.Int("trials.broken", 3000, "most randomized trials a mutant's campaign runs (TestMutantsAreCaught)")
	campaignAll    = flag.Bool("trials.broken.all", false, "run every -trials.broken trial of each mutant's campaign, for the figures, rather than stopping at the first that reports it")
	checkSeeds     = flag.Int("check.seeds", 5, "campaigns (seed bases) each mutant runs for the median of random trials it needs")
	mutation       = flag.Bool("mutation", false, "also check each mutant with the checker at its defaults, as TestMutantsAreCaught's mutation score table for docs/checking.md (minutes per mutant)")
	mutantRun      = flag.String("mutants", "", "TestMutantsAreCaught builds and runs only the mutants whose names contain this")
)

// checkExchange is the built-in exchange's arguments the checker runs the
// mutants with (TestMutantCaught, under checkBounds): the smallest
// exchange. A mutant's replay string replays on the correct engine with
// them.
var checkExchange = check.Exchange{Rounds: 1, Credits: 1}

// mutantsDir holds one file per mutant (see parseMutant for its form).
const mutantsDir = "testdata/mutants"

// mutant is one rule broken by patching one source file of the module.
type mutant struct {
	name      string // its file's name in mutantsDir, without .txt
	rule      string // the rule it breaks, in words
	invariant int    // the invariant of the oracle that catches it
	file      string // the file it patches, relative to the module's root
	patches   []patch
}

// patch replaces old, which must occur exactly once in the file, by new.
type patch struct{ old, new string }

// mutantReport is what a mutant's test binary tells TestMutantsAreCaught,
// which checks it with the correct engine: the seed of the campaign's trial
// and the checker's counterexample that caught the mutant, both of which
// must pass there, and a row of the mutation score table (with -mutation).
type mutantReport struct {
	CampaignSeed uint64
	Replay       string
	Row          string
}

// readMutants reads every mutant of mutantsDir, in name order.
func readMutants(t *testing.T) []mutant {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(mutantsDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no mutant in %s", mutantsDir)
	}
	var ms []mutant
	for _, f := range files {
		m, err := readMutant(strings.TrimSuffix(filepath.Base(f), ".txt"))
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

// readMutant reads the mutant of mutantsDir called name.
func readMutant(name string) (mutant, error) {
	data, err := os.ReadFile(filepath.Join(mutantsDir, name+".txt"))
	if err != nil {
		return mutant{}, fmt.Errorf("mutant %s: %w", name, err)
	}
	return parseMutant(name, string(data))
}

// parseMutant reads a mutant's description: lines "rule: ...",
// "invariant: N" and "file: PATH" (relative to the module's root), then
// one or more patches, each a line "-- old --", the exact text to replace,
// a line "-- new --" and its replacement. A patch's texts do not include
// the newline that ends their last line, so that they can end within a
// line; an empty new text deletes the old one.
func parseMutant(name, data string) (mutant, error) {
	m := mutant{name: name}
	bad := func(format string, args ...any) (mutant, error) {
		return mutant{}, fmt.Errorf("mutant %s (%s/%s.txt): %s", name, mutantsDir, name, fmt.Sprintf(format, args...))
	}
	head, body, _ := strings.Cut(data, "-- old --\n")
	for _, line := range strings.Split(head, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, value, ok := strings.Cut(line, ": ")
		switch {
		case !ok:
			return bad("line %q is not \"key: value\"", line)
		case key == "rule":
			m.rule = value
		case key == "file":
			m.file = value
		case key == "invariant":
			n, err := strconv.Atoi(value)
			if err != nil {
				return bad("invariant %q is not a number", value)
			}
			m.invariant = n
		default:
			return bad("unknown key %q (want rule, invariant, file)", key)
		}
	}
	if m.rule == "" || m.file == "" || m.invariant == 0 {
		return bad("want a rule, an invariant and a file before the first -- old --")
	}
	if body == "" {
		return bad("no patch: want -- old --, the text, -- new --, its replacement")
	}
	for _, p := range strings.Split(body, "-- old --\n") {
		old, new, ok := strings.Cut(p, "-- new --\n")
		if !ok {
			return bad("a -- old -- without its -- new --")
		}
		old, new = strings.TrimSuffix(old, "\n"), strings.TrimSuffix(new, "\n")
		if old == "" {
			return bad("an empty old text")
		}
		m.patches = append(m.patches, patch{old, new})
	}
	return m, nil
}

// apply patches src, the text of the mutant's file. Each old text must
// occur in it exactly once: one that does not (the code was changed since
// the mutant was written) fails loudly, so that a change cannot quietly
// disable a mutant.
func (m mutant) apply(src string) (string, error) {
	for i, p := range m.patches {
		first, _, _ := strings.Cut(p.old, "\n")
		switch n := strings.Count(src, p.old); n {
		case 1:
			src = strings.Replace(src, p.old, p.new, 1)
		case 0:
			return "", fmt.Errorf("mutant %s: the old text of its patch %d (first line %q) is not in %s: the code changed; update %s/%s.txt to break the rule %q in the code as it is now",
				m.name, i+1, first, m.file, "engine/"+mutantsDir, m.name, m.rule)
		default:
			return "", fmt.Errorf("mutant %s: the old text of its patch %d (first line %q) occurs %d times in %s; make it unique in %s/%s.txt",
				m.name, i+1, first, n, m.file, "engine/"+mutantsDir, m.name)
		}
	}
	return src, nil
}

// patchedFile writes the mutant's file, patched, into dir and returns the
// overlay file (go build -overlay) that builds the module root with it.
func (m mutant) patchedFile(root, dir string) (overlay string, err error) {
	original := filepath.Join(root, filepath.FromSlash(m.file))
	src, err := os.ReadFile(original)
	if err != nil {
		return "", fmt.Errorf("mutant %s: %w", m.name, err)
	}
	patched, err := m.apply(string(src))
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, m.name+"."+filepath.Base(m.file))
	if err := os.WriteFile(file, []byte(patched), 0o644); err != nil {
		return "", err
	}
	data, err := json.Marshal(map[string]map[string]string{"Replace": {original: file}})
	if err != nil {
		return "", err
	}
	overlay = filepath.Join(dir, m.name+".overlay.json")
	return overlay, os.WriteFile(overlay, data, 0o644)
}

// TestMutantPatchesApply applies every mutant to the tree as it is: a
// change to the code that one no longer fits fails here, in every test
// run, with the race detector too, rather than only in the mutants' own
// step. Each mutant must also change its file.
func TestMutantPatchesApply(t *testing.T) {
	t.Parallel()
	for _, m := range readMutants(t) {
		src, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(m.file)))
		if err != nil {
			t.Fatal(err)
		}
		patched, err := m.apply(string(src))
		if err != nil {
			t.Error(err)
		} else if patched == string(src) {
			t.Errorf("mutant %s leaves %s as it is", m.name, m.file)
		}
	}
}

// TestMutantPatchFailsLoudly applies mutants to a file they do not fit:
// the error names the mutant, the file and what to update.
func TestMutantPatchFailsLoudly(t *testing.T) {
	t.Parallel()
	m, err := parseMutant("demo", "rule: a demo\ninvariant: 3\nfile: engine/demo.go\n-- old --\n\tx := 1\n-- new --\n\tx := 2\n")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "engine"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ src, want string }{
		{"package demo\n\nfunc f() {\n\tx := 3\n}\n", `mutant demo: the old text of its patch 1 (first line "\tx := 1") is not in engine/demo.go: the code changed; update engine/testdata/mutants/demo.txt`},
		{"package demo\n\nfunc f() {\n\tx := 1\n\tx := 1\n}\n", `mutant demo: the old text of its patch 1 (first line "\tx := 1") occurs 2 times in engine/demo.go; make it unique in engine/testdata/mutants/demo.txt`},
	} {
		if err := os.WriteFile(filepath.Join(dir, "engine", "demo.go"), []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := m.patchedFile(dir, t.TempDir())
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("patching %q: %v, want an error starting %q", c.src, err, c.want)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"rule: r\nfile: f.go\n-- old --\nx\n-- new --\ny\n", "want a rule, an invariant and a file"},
		{"rule: r\ninvariant: 3\nfile: f.go\n", "no patch"},
		{"rule: r\ninvariant: 3\nfile: f.go\n-- old --\nx\n", "without its -- new --"},
		{"rule: r\ninvariant: three\nfile: f.go\n-- old --\nx\n-- new --\n", `invariant "three" is not a number`},
		{"rule: r\nowner: me\n", `unknown key "owner"`},
	} {
		if _, err := parseMutant("demo", c.text); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "testdata/mutants/demo.txt") {
			t.Errorf("parsing %q: %v, want an error naming the file and saying %q", c.text, err, c.want)
		}
	}
}

// TestMutantsAreCaught builds each mutant of testdata/mutants as a test
// binary of this package, one after another (go test -c -tags mutant, the
// patched file replacing the original through -overlay), then runs the
// binaries, as many at once as -test.parallel allows. In each, the tests
// built under the tag "mutant" must catch it: the unit tests written for
// its rule (TestMutantUnit), a random campaign and the model checker, with
// a counterexample of at most 8 steps whose replay reproduces the violation,
// and the search the same with and without pruning (TestMutantCaught).
// Back here, with the engine correct, the campaign's trial that caught the
// mutant and the counterexample's replay must pass, so that what caught
// it is the mutant's doing. With -mutation it prints the mutation score
// table of docs/checking.md.
func TestMutantsAreCaught(t *testing.T) {
	if raceEnabled {
		t.Skip("the mutants' searches take most of an hour under the race detector; .ci/run runs this test in a step of its own, without it")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var mutants []mutant
	start := time.Now()
	for _, m := range readMutants(t) {
		if !strings.Contains(m.name, *mutantRun) {
			continue
		}
		overlay, err := m.patchedFile(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		build := exec.Command("go", "test", "-c", "-vet=off", "-tags", "mutant", "-overlay", overlay, "-o", filepath.Join(dir, m.name+".test"), "./engine")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building mutant %s: %v\n%s", m.name, err, out)
		}
		mutants = append(mutants, m)
	}
	t.Logf("built %d mutants in %v", len(mutants), time.Since(start).Round(time.Millisecond))
	rows := make([]string, len(mutants))
	t.Run("run", func(t *testing.T) {
		for i, m := range mutants {
			t.Run(m.name, func(t *testing.T) {
				t.Parallel()
				rows[i] = runMutant(t, m, filepath.Join(dir, m.name+".test"), dir)
			})
		}
	})
	if *mutation && !t.Failed() {
		t.Logf("\n| broken rule | invariant | campaign (%d trials): first trial to report it | checker (defaults): counterexample length | schedules | time |\n|---|---|---|---|---|---|\n%s",
			*campaignBroken, strings.Join(rows, "\n"))
	}
}

// runMutant runs the test binary of mutant m, then checks, with the engine
// correct, what it reported; it returns the mutant's row of the mutation
// score table (with -mutation).
func runMutant(t *testing.T, m mutant, binary, dir string) string {
	start := time.Now()
	reportFile := filepath.Join(dir, m.name+".report.json")
	args := []string{"-test.run", "^TestMutant(Unit|Caught)$", "-test.timeout", "30m", "-mutant", m.name, "-mutant.report", reportFile,
		"-trials.broken", strconv.Itoa(*campaignBroken), "-campaign.seed", strconv.FormatUint(*campaignBase, 10),
		"-check.seeds", strconv.Itoa(*checkSeeds), "-trials.broken.all=" + strconv.FormatBool(*campaignAll),
		"-mutation=" + strconv.FormatBool(*mutation)}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	out, err := exec.Command(binary, args...).CombinedOutput()
	if err != nil || testing.Verbose() {
		t.Logf("%s %s\n%s", binary, strings.Join(args, " "), out)
	}
	if err != nil {
		t.Fatalf("mutant %s (%s) was not caught, or its tests failed: %v", m.name, m.rule, err)
	}
	data, err := os.ReadFile(reportFile)
	if err != nil {
		t.Fatalf("mutant %s's tests passed but wrote no report: %v", m.name, err)
	}
	var rep mutantReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if r := trial.Run(trial.Config{Seed: rep.CampaignSeed}); !r.OK() {
		t.Errorf("the campaign's trial of seed %d caught the mutant, but it fails with the engine correct too:\n%s", rep.CampaignSeed, r.Report())
	}
	if clean, err := check.ReplayPair(context.Background(), checkExchange.Scenario(check.Builtin), checkExchange.Pair(), rep.Replay, nil); err != nil || len(clean.Violations) > 0 {
		t.Errorf("the checker's counterexample %s caught the mutant, but with the engine correct its replay gave %v (error %v), want no violation", rep.Replay, clean.Violations, err)
	}
	t.Logf("caught (wall %v)", time.Since(start).Round(time.Millisecond))
	return rep.Row
}

// TestMutantsDocExample checks the example of docs/checking.md's section
// on mutants: its mutant file is the real one, and the error it shows is
// the one that mutant gives on code it does not fit.
func TestMutantsDocExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "checking.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "\n## Mutants\n")
	var blocks []string
	for range 2 {
		var block string
		_, section, _ = strings.Cut(section, "\n```\n")
		block, section, _ = strings.Cut(section, "\n```\n")
		blocks = append(blocks, block)
	}
	const name = "full-second-join"
	file, err := os.ReadFile(filepath.Join(mutantsDir, name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	if blocks[0]+"\n" != string(file) {
		t.Errorf("checking.md's example mutant is\n%s\nwant %s.txt as it is:\n%s", blocks[0], name, file)
	}
	m, err := readMutant(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.apply("package engine\n"); err == nil || err.Error() != blocks[1] {
		t.Errorf("checking.md's example error is\n%s\nwant\n%v", blocks[1], err)
	}
}
