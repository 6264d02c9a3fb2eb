package lua51_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/lua51"
)

// projectScripts are the project's own Lua files: the examples, the
// device programs and the scripts.
func projectScripts(tb testing.TB) map[string][]byte {
	srcs := map[string][]byte{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		top := strings.Split(filepath.ToSlash(path), "/")
		if len(top) < 2 || (top[1] != "examples" && top[1] != "programs" && top[1] != "scripts") {
			if d.IsDir() && len(top) == 2 {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(path, ".lua") {
			src, err := os.ReadFile(path)
			srcs[path] = src
			return err
		}
		return nil
	})
	if err != nil || len(srcs) == 0 {
		tb.Fatalf("reading the project's scripts: %d found (%v)", len(srcs), err)
	}
	return srcs
}

// BenchmarkCompileProjectScripts loads (checks, rewrites and compiles)
// every Lua file of examples/, programs/ and scripts/ once per iteration;
// lua51/rewritecost.sh runs it with and without the rewrite.
func BenchmarkCompileProjectScripts(b *testing.B) {
	srcs := projectScripts(b)
	L := lua51.NewState(lua51.Options{})
	defer L.Close()
	b.ResetTimer()
	for range b.N {
		for path, src := range srcs {
			if _, err := lua51.Load(L, strings.NewReader(string(src)), "@"+path); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(srcs)), "files")
}
