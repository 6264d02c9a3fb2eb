package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// Limits of how the REPL shows a table.
const (
	showDepth  = 3   // levels of nested tables shown; deeper ones are {...}
	showFields = 20  // entries of the table printed; the rest are counted
	showNested = 10  // entries of a table inside it
	showValue  = 60  // bytes of one value shown; longer ones are cut
	showWidth  = 100 // a table that fits in this many columns is shown on one line
)

// showTable renders a table the REPL printed as its fields rather than its
// address: the array part in order, then the other keys sorted (numbers,
// then strings, then the rest by type); nested tables to depth 3 (deeper
// ones as {...}), a table inside itself as <cycle>, long lists cut with a
// count of the rest ("… 37 more"), long values cut. It is one line when
// that fits in 100 columns, else one entry a line, indented. A table with
// __tostring prints through it.
func showTable(L *lua.LState, t *lua.LTable) string {
	return layout(shown{L: L, path: map[*lua.LTable]bool{}}.table(t, 1), 0)
}

// node is a value as shown: text alone, or a table's entries between braces.
type node struct {
	text    string
	entries []entry // nil unless a table shown with its entries
	table   bool
}

// entry is one entry of a shown table: "key = " (empty in the array part)
// and the value.
type entry struct {
	key   string
	value node
}

// shown renders values, knowing the tables on the path from the top one.
type shown struct {
	L    *lua.LState
	path map[*lua.LTable]bool
}

// table shows t at depth (1 for the table printed).
func (s shown) table(t *lua.LTable, depth int) node {
	if s.path[t] {
		return node{text: "<cycle>"}
	}
	if depth > showDepth {
		return node{text: "{...}"}
	}
	s.path[t] = true
	defer delete(s.path, t)
	type field struct{ key, value lua.LValue }
	var fields []field
	n := t.Len()
	t.ForEach(func(k, v lua.LValue) {
		if i, ok := k.(lua.LNumber); ok && float64(i) >= 1 && float64(i) <= float64(n) && float64(i) == float64(int(i)) {
			return // shown in the array part
		}
		fields = append(fields, field{k, v})
	})
	slices.SortFunc(fields, func(a, b field) int { return compareKeys(a.key, b.key) })
	limit := showFields
	if depth > 1 {
		limit = showNested
	}
	out := node{table: true, entries: []entry{}}
	total := n + len(fields)
	for i := 1; i <= n && len(out.entries) < limit; i++ {
		out.entries = append(out.entries, entry{value: s.value(t.RawGetInt(i), depth)})
	}
	for _, f := range fields {
		if len(out.entries) == limit {
			break
		}
		key := "[" + s.value(f.key, showDepth).text + "]"
		if k, ok := f.key.(lua.LString); ok && isIdentifier(string(k)) {
			key = string(k)
		}
		out.entries = append(out.entries, entry{key: key + " = ", value: s.value(f.value, depth)})
	}
	if rest := total - len(out.entries); rest > 0 {
		out.entries = append(out.entries, entry{value: node{text: fmt.Sprintf("… %d more", rest)}})
	}
	return out
}

// value shows one key or value found at depth: strings quoted, tables
// nested, anything else as tostring would, cut to showValue bytes.
func (s shown) value(v lua.LValue, depth int) node {
	var text string
	switch v := v.(type) {
	case lua.LString:
		text = fmt.Sprintf("%q", string(v))
	case *lua.LTable:
		if s.L.GetMetaField(v, "__tostring") == lua.LNil {
			return s.table(v, depth+1)
		}
		text, _ = tostring(s.L, v)
	default:
		text, _ = tostring(s.L, v)
	}
	if len(text) > showValue {
		text = text[:showValue] + "..."
	}
	return node{text: text}
}

// flat is n on one line.
func flat(n node) string {
	if !n.table {
		return n.text
	}
	if len(n.entries) == 0 {
		return "{}"
	}
	parts := make([]string, len(n.entries))
	for i, e := range n.entries {
		parts[i] = e.key + flat(e.value)
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// layout is n written at indent: on one line when it fits in showWidth
// columns, else one entry a line, each laid out the same way.
func layout(n node, indent int) string {
	one := flat(n)
	if !n.table || indent+utf8.RuneCountInString(one) <= showWidth {
		return one
	}
	var b strings.Builder
	b.WriteString("{\n")
	pad := strings.Repeat("  ", indent/2+1)
	for i, e := range n.entries {
		b.WriteString(pad + e.key + layout(e.value, len(pad)+utf8.RuneCountInString(e.key)))
		if i < len(n.entries)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat("  ", indent/2) + "}")
	return b.String()
}

// compareKeys orders table keys: numbers, then strings, then others by type.
func compareKeys(a, b lua.LValue) int {
	rank := func(v lua.LValue) int {
		switch v.(type) {
		case lua.LNumber:
			return 0
		case lua.LString:
			return 1
		}
		return 2
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	switch a := a.(type) {
	case lua.LNumber:
		return cmp.Compare(float64(a), float64(b.(lua.LNumber)))
	case lua.LString:
		return strings.Compare(string(a), string(b.(lua.LString)))
	}
	return strings.Compare(a.Type().String(), b.Type().String())
}

// isIdentifier reports whether s can be written as a field name: a Lua
// name that is not a keyword.
func isIdentifier(s string) bool {
	if s == "" || slices.Contains(keywords, s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
