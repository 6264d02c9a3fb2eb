package luaprogram

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Limits of the arguments a host passes to a program, which are copied
// into every invocation's own state.
const (
	maxArgDepth   = 8
	maxArgEntries = 10_000
)

// Args are a program's arguments, copied out of the host's Lua state so
// that each invocation's state gets its own copy: numbers, strings,
// booleans and tables of them.
type Args struct{ root value }

// value is nil, a float64, a string, a bool or a *table.
type value any

// table is a Lua table's entries, in a stable order.
type table struct {
	keys, vals []value
}

// FreezeArgs copies v (nil or a table) out of a Lua state. It refuses
// functions, userdata, threads, cycles, more than 8 levels of nesting and
// more than 10,000 entries, saying where.
func FreezeArgs(v lua.LValue) (Args, error) {
	f := freezer{seen: map[*lua.LTable]bool{}}
	root, err := f.freeze(v, "args", 0)
	return Args{root: root}, err
}

type freezer struct {
	seen    map[*lua.LTable]bool
	entries int
}

func (f *freezer) freeze(v lua.LValue, path string, depth int) (value, error) {
	switch v := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(v), nil
	case lua.LNumber:
		return float64(v), nil
	case lua.LString:
		return string(v), nil
	case *lua.LTable:
		if f.seen[v] {
			return nil, fmt.Errorf("%s refers to a table that contains it; a program's arguments are a tree of tables", path)
		}
		if depth >= maxArgDepth {
			return nil, fmt.Errorf("%s is nested deeper than %d tables; pass flatter arguments", path, maxArgDepth)
		}
		f.seen[v] = true
		defer delete(f.seen, v)
		t := &table{}
		var err error
		v.ForEach(func(k, val lua.LValue) {
			if err != nil {
				return
			}
			if f.entries++; f.entries > maxArgEntries {
				err = fmt.Errorf("%s: a program's arguments hold at most %d entries", path, maxArgEntries)
				return
			}
			var key, item value
			kp := path + "[" + k.String() + "]"
			if ks, ok := k.(lua.LString); ok {
				kp = path + "." + string(ks)
			}
			if key, err = f.freeze(k, kp+" (a key)", maxArgDepth); err != nil {
				return
			}
			if item, err = f.freeze(val, kp, depth+1); err != nil {
				return
			}
			t.keys, t.vals = append(t.keys, key), append(t.vals, item)
		})
		if err != nil {
			return nil, err
		}
		t.sort()
		return t, nil
	}
	return nil, fmt.Errorf("%s is a %s; a program's arguments are numbers, strings, booleans and tables of them", path, v.Type())
}

// sort orders the entries, numbers before strings before booleans, so that
// a copy is built the same way every time.
func (t *table) sort() {
	idx := make([]int, len(t.keys))
	for i := range idx {
		idx[i] = i
	}
	rank := func(k value) int {
		switch k.(type) {
		case float64:
			return 0
		case string:
			return 1
		}
		return 2
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := t.keys[idx[a]], t.keys[idx[b]]
		if ra, rb := rank(ka), rank(kb); ra != rb {
			return ra < rb
		}
		switch ka := ka.(type) {
		case float64:
			return ka < kb.(float64)
		case string:
			return ka < kb.(string)
		}
		return !ka.(bool) && kb.(bool)
	})
	keys, vals := make([]value, len(idx)), make([]value, len(idx))
	for i, j := range idx {
		keys[i], vals[i] = t.keys[j], t.vals[j]
	}
	t.keys, t.vals = keys, vals
}

// key is the arguments as a string, equal for equal arguments.
func (a Args) key() string {
	var b strings.Builder
	writeKey(&b, a.root)
	return b.String()
}

func writeKey(b *strings.Builder, v value) {
	switch v := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		b.WriteByte('b')
		b.WriteString(strconv.FormatBool(v))
	case float64:
		b.WriteByte('f')
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case string:
		b.WriteByte('s')
		b.WriteString(strconv.Quote(v))
	case *table:
		b.WriteString("{")
		for i, k := range v.keys {
			writeKey(b, k)
			b.WriteString("=")
			writeKey(b, v.vals[i])
			b.WriteString(",")
		}
		b.WriteString("}")
	}
}

// lua makes a fresh copy of the arguments in L.
func (a Args) lua(L *lua.LState) lua.LValue { return toLua(L, a.root) }

// flat reports whether the arguments are a table of string keys and
// values that are not tables: one whose copy a machine can check is as
// made (argsOf).
func (a Args) flat() bool {
	t, ok := a.root.(*table)
	if !ok || len(t.keys) == 0 {
		return false
	}
	for i, k := range t.keys {
		if _, isString := k.(string); !isString {
			return false
		}
		if _, isTable := t.vals[i].(*table); isTable {
			return false
		}
	}
	return true
}

func toLua(L *lua.LState, v value) lua.LValue {
	switch v := v.(type) {
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case *table:
		t := L.CreateTable(0, len(v.keys))
		for i, k := range v.keys {
			t.RawSet(toLua(L, k), toLua(L, v.vals[i]))
		}
		return t
	}
	return lua.LNil
}

// Numbers are arguments of numbers by name, for a host written in Go.
func Numbers(named map[string]float64) Args {
	t := &table{}
	for k, v := range named {
		t.keys, t.vals = append(t.keys, k), append(t.vals, v)
	}
	t.sort()
	return Args{root: t}
}

// Scalars are arguments by name of numbers (float64), strings and
// booleans, for a host that reads them from a command line; a value of
// any other type is left out.
func Scalars(named map[string]any) Args {
	t := &table{}
	for k, v := range named {
		switch v.(type) {
		case float64, string, bool:
			t.keys, t.vals = append(t.keys, k), append(t.vals, v)
		}
	}
	t.sort()
	return Args{root: t}
}

// Number is the argument named name when it is a number, for a host that
// hands numbers on (a kernel's values).
func (a Args) Number(name string) (float64, bool) {
	t, ok := a.root.(*table)
	if !ok {
		return 0, false
	}
	for i, k := range t.keys {
		if k == name {
			f, ok := t.vals[i].(float64)
			return f, ok
		}
	}
	return 0, false
}
