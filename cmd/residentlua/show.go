package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Limits of how the REPL shows a table.
const (
	showFields = 40 // fields shown; the rest are counted
	showValue  = 60 // bytes of one value shown; longer ones are cut
)

// showTable renders a table the REPL printed as its fields rather than its
// address: the array part in order, then the other keys sorted (numbers,
// then strings, then the rest by type), one level deep (a nested table is
// {...}), long values cut. A table with __tostring is left to print.
func showTable(L *lua.LState, t *lua.LTable) string {
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
	var parts []string
	for i := 1; i <= n; i++ {
		parts = append(parts, showScalar(L, t.RawGetInt(i)))
	}
	for _, f := range fields {
		key := showScalar(L, f.key)
		if s, ok := f.key.(lua.LString); ok && isIdentifier(string(s)) {
			key = string(s)
		} else {
			key = "[" + key + "]"
		}
		parts = append(parts, key+" = "+showScalar(L, f.value))
	}
	if len(parts) > showFields {
		parts = append(parts[:showFields], fmt.Sprintf("... (%d more)", len(parts)-showFields))
	}
	if len(parts) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// showScalar renders one key or value: strings quoted, nested tables as
// {...}, anything else as tostring would, cut to showValue bytes.
func showScalar(L *lua.LState, v lua.LValue) string {
	var s string
	switch v := v.(type) {
	case lua.LString:
		s = fmt.Sprintf("%q", string(v))
	case *lua.LTable:
		if L.GetMetaField(v, "__tostring") == lua.LNil {
			return "{...}"
		}
		s, _ = tostring(L, v)
	default:
		s, _ = tostring(L, v)
	}
	if len(s) > showValue {
		s = s[:showValue] + "..."
	}
	return s
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
