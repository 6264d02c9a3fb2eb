package lua51

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/parse"
)

// TestStoreLinesMeetEveryConstructor checks what the lines of constructors'
// stores rely on: the transformer meets a chunk's constructors in the order
// the syntax check finds them (that of their '{'), at the same lines and
// with as many keyed fields, in every Lua file of the repository.
func TestStoreLinesMeetEveryConstructor(t *testing.T) {
	var files []string
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".lua") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) < 100 {
		t.Fatalf("%d Lua files found (%v)", len(files), err)
	}
	fixed := 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checked, se := checkSyntax(src)
		if se != nil || isBinaryChunk(src) {
			continue // a conformance case of a syntax error
		}
		src, gotoName := hideGotoNames(src)
		chunk, err := parse.Parse(bytes.NewReader(src), path)
		if err != nil {
			continue
		}
		tr := &transformer{rewrite: true, gotoName: gotoName, stores: &storeLines{checked: checked}}
		tr.function(0, mainChunk, nil, chunk)
		if tr.stores.lost || tr.stores.met != len(checked) {
			t.Errorf("%s: the transformer met %d constructors where the syntax check found %d (lost: %v)", path, tr.stores.met, len(checked), tr.stores.lost)
		}
		fixed += len(tr.stores.fixed)
	}
	if fixed == 0 {
		t.Error("no constructor had its stores' lines to fix")
	}
}
