package brokenrule_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyTestsBreakRules parses every Go file of the module that is not a
// test and requires that none assigns a rule-breaking switch: this
// package's SecondInvocation, or package engine's broken. Those are set by
// tests alone, so no program and nothing reachable from Lua breaks a rule.
func TestOnlyTestsBreakRules(t *testing.T) {
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for _, lhs := range as.Lhs {
				if name := switchName(f, lhs); name != "" {
					t.Errorf("%s assigns %s: only tests may break a rule", fset.Position(as.Pos()), name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files of the module; want all of them", files)
	}
}

// switchName names the rule-breaking switch that an assignment's left-hand
// side e is in file f, or is "".
func switchName(f *ast.File, e ast.Expr) string {
	switch x := e.(type) {
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok && id.Name == "brokenrule" {
			return "brokenrule." + x.Sel.Name
		}
	case *ast.Ident:
		if f.Name.Name == "engine" && x.Name == "broken" {
			return "engine's broken"
		}
	}
	return ""
}
