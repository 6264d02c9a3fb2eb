package lua51_test

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/lua51"
)

// docExample is a ```lua block of docs/lua.md followed by an ```output block.
var docExample = regexp.MustCompile("(?s)```lua\n(.*?)```\n```output\n(.*?)```")

// TestDocs runs every example of docs/lua.md that shows its output, in a
// state of lua51.NewState, and compares what it prints.
func TestDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/lua.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := docExample.FindAllSubmatch(doc, -1)
	if len(examples) == 0 {
		t.Fatal("docs/lua.md shows no example with its output")
	}
	for _, ex := range examples {
		var out bytes.Buffer
		L := lua51.NewState(lua51.Options{Stdout: &out})
		if err := lua51.DoString(L, string(ex[1])); err != nil {
			t.Errorf("%s: %v", strings.TrimSpace(string(ex[1])), err)
		} else if out.String() != string(ex[2]) {
			t.Errorf("%s\nprints %q\nthe doc says %q", strings.TrimSpace(string(ex[1])), out.String(), ex[2])
		}
		L.Close()
	}
}
