package exports

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/residentlua/residentlua"

// maxDevices is the most exported names package devices may have: the front
// (fabrics, devices, buffers, waits, quarantine) and the author's API
// (programs, views, events) that docs/programs.md describes, and no more.
const maxDevices = 120

// standard names methods whose callers are the standard library, through
// fmt.Stringer, error and the errors package's Is, As and Unwrap: no file of
// the module calls them by name, yet each is used.
var standard = map[string]bool{"String": true, "Error": true, "Is": true, "As": true, "Unwrap": true}

// unused lists the exported names of the checked packages that no other
// package of the module names in its non-test files, each with its reason.
// A name listed here that gains a user fails the test, so the list stays true.
var unused = map[string]string{
	"devices.QuarantineInfo.ReachedBy": "docs/protocol.md describes Fabric.Quarantines' fields to a Go host, this one included",
	"luaprogram.View.View":             "the field of an exported struct whose other field is used",
	"luaprogram.Instance.HashState":    "implements program.StateHasher, through which the checker calls it",
	"luaprogram.Numbers":               "a Go host's way to give a pair its arguments; the backends' tests use it",
}

// enumerated maps each exported constant of a package that has a named type
// to that type: a constant of an enumeration (devices.SDMA, a Command) is
// used wherever its type is, as its type's parser or String reaches it.
func enumerated(p *pkg) map[string]string {
	out := map[string]string{}
	for _, f := range p.files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			ty := ""
			for _, spec := range g.Specs {
				s := spec.(*ast.ValueSpec)
				if id, ok := s.Type.(*ast.Ident); ok {
					ty = id.Name
				} else if s.Type != nil || len(s.Values) > 0 {
					ty = "" // a new type, or an untyped value
				}
				for _, n := range s.Names {
					if n.IsExported() && ast.IsExported(ty) {
						out[n.Name] = ty
					}
				}
			}
		}
	}
	return out
}

// name is one exported identifier of a package: a package-level name
// ("Fabric"), or a method or field of an exported type ("Fabric.Close").
type name struct {
	pkg   string // import path
	ident string // "Name" or "Type.Member"
}

// pkg is a package of the module, as its non-test files show it.
type pkg struct {
	path    string
	files   []*ast.File
	imports map[string]bool // import paths of the module it imports directly
}

// load parses every non-test Go file of the module (outside testdata and
// hidden folders), by package.
func load(t *testing.T) map[string]*pkg {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.Contains(string(b), "module "+module+"\n") {
		t.Fatalf("%s is not the module's root (go.mod: %v)", root, err)
	}
	fset := token.NewFileSet()
	pkgs := map[string]*pkg{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := d.Name()
		if d.IsDir() {
			if p != root && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(base, ".go") || strings.HasSuffix(base, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		path := module
		if rel != "." {
			path += "/" + filepath.ToSlash(rel)
		}
		k := pkgs[path]
		if k == nil {
			k = &pkg{path: path, imports: map[string]bool{}}
			pkgs[path] = k
		}
		k.files = append(k.files, f)
		for _, im := range f.Imports {
			if ip, _ := strconv.Unquote(im.Path.Value); strings.HasPrefix(ip, module) {
				k.imports[ip] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// exported lists the exported names of p as go doc shows them: package-level
// names, and the methods, fields and interface methods of exported types.
func exported(p *pkg) []name {
	var out []name
	add := func(id string) { out = append(out, name{p.path, id}) }
	for _, f := range p.files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					if d.Name.IsExported() {
						add(d.Name.Name)
					}
					continue
				}
				recv := receiver(d.Recv.List[0].Type)
				if ast.IsExported(recv) && d.Name.IsExported() {
					add(recv + "." + d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								add(n.Name)
							}
						}
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						add(s.Name.Name)
						var fields *ast.FieldList
						switch ty := s.Type.(type) {
						case *ast.StructType:
							fields = ty.Fields
						case *ast.InterfaceType:
							fields = ty.Methods
						}
						if fields == nil {
							continue
						}
						for _, fl := range fields.List {
							for _, n := range fl.Names {
								if n.IsExported() {
									add(s.Name.Name + "." + n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// receiver is the type name of a method's receiver.
func receiver(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// reaches reports whether from imports path, directly or through others.
func reaches(pkgs map[string]*pkg, from, path string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(p string) bool {
		if p == path {
			return true
		}
		if seen[p] || pkgs[p] == nil {
			return false
		}
		seen[p] = true
		for ip := range pkgs[p].imports {
			if walk(ip) {
				return true
			}
		}
		return false
	}
	return walk(from)
}

// users counts, for each exported name of target, the packages other than
// target that use it in their non-test files. A package-level name is used
// where a file that imports target selects it (devices.Fabric). A member is
// used, as far as syntax shows, where a package that depends on target
// selects a member of that name (x.Close) or keys a composite literal with it
// (Config{Seed: 1}): without types a member of another type of the same name
// counts too, so this finds names no one uses, not every user.
func users(pkgs map[string]*pkg, target string) map[string]map[string]bool {
	used := map[string]map[string]bool{}
	mark := func(id, by string) {
		if used[id] == nil {
			used[id] = map[string]bool{}
		}
		used[id][by] = true
	}
	for _, p := range pkgs {
		if p.path == target || !reaches(pkgs, p.path, target) {
			continue
		}
		for _, f := range p.files {
			local := ""
			for _, im := range f.Imports {
				if ip, _ := strconv.Unquote(im.Path.Value); ip == target {
					local = target[strings.LastIndex(target, "/")+1:]
					if im.Name != nil {
						local = im.Name.Name
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && local != "" && id.Name == local {
						mark(x.Sel.Name, p.path)
					} else {
						mark("."+x.Sel.Name, p.path)
					}
				case *ast.KeyValueExpr:
					if id, ok := x.Key.(*ast.Ident); ok {
						mark("."+id.Name, p.path)
					}
				}
				return true
			})
		}
	}
	return used
}

// implemented lists the exported interfaces of target that a type of another
// package implements, as far as method names show: such an interface is used
// by its implementer although no one names it (a backend, a chooser).
func implemented(pkgs map[string]*pkg, target string) map[string]bool {
	methods := map[string][]string{} // interface → its method names
	for _, f := range pkgs[target].files {
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.TypeSpec); ok && s.Name.IsExported() {
				if it, ok := s.Type.(*ast.InterfaceType); ok {
					for _, m := range it.Methods.List {
						for _, id := range m.Names {
							methods[s.Name.Name] = append(methods[s.Name.Name], id.Name)
						}
					}
				}
			}
			return true
		})
	}
	out := map[string]bool{}
	for _, p := range pkgs {
		if p.path == target {
			continue
		}
		has := map[string]map[string]bool{} // type → its method names
		for _, f := range p.files {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
					r := receiver(fd.Recv.List[0].Type)
					if has[r] == nil {
						has[r] = map[string]bool{}
					}
					has[r][fd.Name.Name] = true
				}
			}
		}
		for iface, ms := range methods {
			for _, set := range has {
				if len(ms) > 0 && !slices.ContainsFunc(ms, func(m string) bool { return !set[m] }) {
					out[iface] = true
				}
			}
		}
	}
	return out
}

// userless lists the exported names of target that no other package uses,
// standard methods aside. A type is used where it is named, or where one of
// its members or the methods of an interface it is are used; an interface
// that another package implements is used, methods and all.
func userless(pkgs map[string]*pkg, target string) (names []name, all []name) {
	used := users(pkgs, target)
	impl := implemented(pkgs, target)
	enums := enumerated(pkgs[target])
	all = exported(pkgs[target])
	usedType := map[string]bool{}
	for _, n := range all {
		if ty, member, ok := strings.Cut(n.ident, "."); ok && (len(used["."+member]) > 0 || standard[member]) {
			usedType[ty] = true
		}
	}
	for _, n := range all {
		ty, member, isMember := strings.Cut(n.ident, ".")
		switch {
		case impl[ty]:
		case isMember && (standard[member] || len(used["."+member]) > 0):
		case !isMember && (len(used[ty]) > 0 || usedType[ty]):
		case !isMember && enums[ty] != "" && (len(used[enums[ty]]) > 0 || usedType[enums[ty]]):
		default:
			names = append(names, n)
		}
	}
	return names, all
}

var checked = []string{module + "/devices", module + "/engine", module + "/luaprogram"}

// TestDevicesIsSmall checks that package devices exports at most maxDevices
// names, counting its types, functions, methods, constants, variables and the
// exported fields of its structs.
func TestDevicesIsSmall(t *testing.T) {
	pkgs := load(t)
	all := exported(pkgs[module+"/devices"])
	t.Logf("package devices exports %d names", len(all))
	if len(all) > maxDevices {
		ids := make([]string, len(all))
		for i, n := range all {
			ids[i] = n.ident
		}
		sort.Strings(ids)
		t.Errorf("package devices exports %d names, more than %d:\n%s", len(all), maxDevices, strings.Join(ids, "\n"))
	}
	if len(all) < 20 {
		t.Fatalf("package devices exports %d names: the test read the wrong files", len(all))
	}
}

// TestEveryExportHasAUser checks that each exported name of devices, engine
// and luaprogram has a user in another package's non-test files, or is listed
// in unused with its reason; and that no listed name has gained a user.
func TestEveryExportHasAUser(t *testing.T) {
	pkgs := load(t)
	listed := map[string]bool{}
	for _, target := range checked {
		if pkgs[target] == nil {
			t.Fatalf("package %s not found", target)
		}
		none, all := userless(pkgs, target)
		if len(all) == 0 {
			t.Fatalf("package %s exports nothing: the test read the wrong files", target)
		}
		for _, n := range none {
			key := strings.TrimPrefix(n.pkg, module+"/") + "." + n.ident
			listed[key] = true
			if _, ok := unused[key]; !ok {
				t.Errorf("%s is exported but no other package uses it: unexport it, or list it in unused with the reason", key)
			}
		}
	}
	keys := make([]string, 0, len(unused))
	for k := range unused {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !listed[k] {
			t.Errorf("%s is listed in unused, but it has a user now or is gone: take it off the list", k)
		}
	}
}
