package engine_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/engine/oracle"
)

// numberWords reads the counts the docs write out in words.
var numberWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
	"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
}

// TestDocsCountTheInvariants keeps the docs true to the oracle: every
// "N invariants" in docs/ and the README says as many as oracle.Invariant
// has, and the oracle's table in protocol.md lists each of them, in
// order, in the engine's words.
func TestDocsCountTheInvariants(t *testing.T) {
	n := 0
	for oracle.Invariant(n+1) != "" {
		n++
	}
	files, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs: %v", err)
	}
	counted := regexp.MustCompile(`(?i)\b([a-z]+|[0-9]+)\s+invariants\b`)
	found := 0
	for _, file := range append(files, filepath.Join("..", "README.md")) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range counted.FindAllStringSubmatch(string(data), -1) {
			said, ok := numberWords[strings.ToLower(m[1])]
			if d, err := strconv.Atoi(m[1]); err == nil {
				said, ok = d, true
			}
			if !ok {
				continue // "the invariants", "all invariants": no count
			}
			found++
			if said != n {
				t.Errorf("%s says %q; the oracle checks %d invariants (oracle.Invariant)", file, m[0], n)
			}
		}
	}
	if found == 0 {
		t.Error("no doc says how many invariants the oracle checks")
	}

	data, err := os.ReadFile(filepath.Join("..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| ([0-9]+) \| ([^|]+) \|`)
	rows := row.FindAllStringSubmatch(string(data[strings.Index(string(data), "## 8. The oracle"):]), -1)
	if len(rows) != n {
		t.Errorf("protocol.md's oracle table has %d rows, oracle.Invariant %d", len(rows), n)
	}
	for i, r := range rows {
		if want := strconv.Itoa(i + 1); r[1] != want || strings.TrimSpace(r[2]) != oracle.Invariant(i+1) {
			t.Errorf("protocol.md's oracle table, row %d: %q %q; want invariant %s in the engine's words", i+1, r[1], strings.TrimSpace(r[2]), want)
		}
	}
}

// TestNoCitationsOfWhatUsersLack checks the code and the docs never send a
// reader to what a clone does not have: the design notes, the protocol's
// Rust source, or the project's issue numbers (the code's comments).
// gopher-lua's own issues are public and may be named.
func TestNoCitationsOfWhatUsersLack(t *testing.T) {
	// Spelled in two parts, so that this line does not match itself.
	internal := regexp.MustCompile(`DES` + `IGN|resident_session[.]rs`)
	issue := regexp.MustCompile(`(?i)\bissues? [0-9]+`)
	upstream := regexp.MustCompile(`(?i)gopher-lua('s)? issues? [0-9]+`)
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != ".." {
			return filepath.SkipDir
		}
		goFile, doc := strings.HasSuffix(path, ".go"), strings.HasSuffix(path, ".md")
		if !goFile && !doc {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if internal.MatchString(line) || goFile && issue.MatchString(upstream.ReplaceAllString(line, "")) {
				t.Errorf("%s:%d cites what a reader does not have: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
