package luaprogram

import (
	"os"
	"regexp"
	"slices"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The definition file an editor reads declares exactly the methods a
// program's p and a check's c have: a method added, renamed or removed on
// either side fails here.
func TestDefinitionFileDeclaresTheProgramAPI(t *testing.T) {
	meta, err := os.ReadFile("../docs/resident.d.lua")
	if err != nil {
		t.Fatal(err)
	}
	declared := func(class string) []string {
		var names []string
		for _, m := range regexp.MustCompile(`(?m)^function `+class+`:(\w+)\(`).FindAllStringSubmatch(string(meta), -1) {
			names = append(names, m[1])
		}
		slices.Sort(names)
		return names
	}
	p, err := Compile("=api", "return function(p) end", Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.newMachine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.L.Close()
	keys := func(tb *lua.LTable) []string {
		var names []string
		tb.ForEach(func(k, v lua.LValue) {
			if _, ok := v.(*lua.LFunction); ok {
				names = append(names, lua.LVAsString(k))
			}
		})
		slices.Sort(names)
		return names
	}
	methods := m.L.NewTable()
	for _, f := range m.method {
		methods.RawSet(f.k, f.v)
	}
	if got, want := declared("ProgramHandle"), keys(methods); !slices.Equal(got, want) {
		t.Errorf("resident.d.lua declares p's methods %v; a program's p has %v", got, want)
	}
	c := m.L.NewTable()
	c.RawSetString("load", m.checkLoad)
	c.RawSetString("read", m.checkRead)
	if got, want := declared("CheckHandle"), keys(c); !slices.Equal(got, want) {
		t.Errorf("resident.d.lua declares c's methods %v; a check's c has %v", got, want)
	}
}
