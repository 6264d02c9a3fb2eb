package main

import (
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/internal/luamodule"
)

// completer completes the name before the cursor for the REPL's Tab key:
// globals (and keywords) at the top level, table members after '.', and
// methods after ':' (a session's "s:" lists start, wait, close, ...).
type completer struct{ L *lua.LState }

func newCompleter(L *lua.LState) *completer { return &completer{L: L} }

// sessionMembers are the names a userdata's __index function is asked for
// when it cannot be listed: a session's methods and its fields, as luamodule
// lists them.
var sessionMembers = append(luamodule.SessionMethods(), luamodule.SessionFields()...)

// keywords of Lua 5.1, completed at the top level.
var keywords = []string{
	"and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if",
	"in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}

// complete is a liner.WordCompleter: it returns the line before the word,
// the candidates for the word (each the whole word) and the line after the
// cursor.
func (c *completer) complete(line string, pos int) (head string, candidates []string, tail string) {
	runes := []rune(line)
	if pos > len(runes) {
		pos = len(runes)
	}
	start := pos
	for start > 0 && isNameRune(runes[start-1]) {
		start--
	}
	head, word, tail := string(runes[:start]), string(runes[start:pos]), string(runes[pos:])

	sep := strings.LastIndexAny(word, ".:")
	var names []string
	prefix, partial := "", word
	if sep < 0 {
		names = append(c.tableKeys(c.L.G.Global, false), keywords...)
	} else {
		prefix, partial = word[:sep+1], word[sep+1:]
		v, ok := c.resolve(word[:sep])
		if !ok {
			return head, nil, tail
		}
		names = c.members(v, word[sep] == ':')
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, n := range names {
		if strings.HasPrefix(n, partial) {
			candidates = append(candidates, prefix+n)
		}
	}
	return head, candidates, tail
}

// isNameRune reports whether r can be part of a dotted name.
func isNameRune(r rune) bool {
	return r == '_' || r == '.' || r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// resolve finds the value of a dotted path of names ("resident",
// "a.b.c"), looking names up without running Lua code other than
// protected __index functions.
func (c *completer) resolve(path string) (lua.LValue, bool) {
	if path == "" || strings.Contains(path, ":") {
		return nil, false
	}
	parts := strings.Split(path, ".")
	v := c.L.GetGlobal(parts[0])
	for _, p := range parts[1:] {
		if v == lua.LNil {
			return nil, false
		}
		v = c.field(v, p)
	}
	return v, v != lua.LNil
}

// field is v[name], through __index, protected: an error gives nil.
func (c *completer) field(v lua.LValue, name string) lua.LValue {
	if t, ok := v.(*lua.LTable); ok {
		if r := t.RawGetString(name); r != lua.LNil {
			return r
		}
	}
	if v.Type() != lua.LTTable && v.Type() != lua.LTUserData {
		return lua.LNil
	}
	get := c.L.NewFunction(func(L *lua.LState) int {
		L.Push(L.GetField(L.Get(1), name))
		return 1
	})
	if err := c.L.CallByParam(lua.P{Fn: get, NRet: 1, Protect: true}, v); err != nil {
		return lua.LNil
	}
	r := c.L.Get(-1)
	c.L.Pop(1)
	return r
}

// members lists the names reachable from v with '.' (or, when methods is
// set, the functions reachable with ':'): its own keys if it is a table,
// then those of its metatable's __index chain. A userdata whose __index is
// a function is asked for each of sessionMembers.
func (c *completer) members(v lua.LValue, methods bool) []string {
	var names []string
	for depth := 0; depth < 8 && v != lua.LNil; depth++ {
		if t, ok := v.(*lua.LTable); ok {
			names = append(names, c.tableKeys(t, methods)...)
		}
		mt, ok := rawMetatable(v).(*lua.LTable)
		if !ok {
			break
		}
		idx := mt.RawGetString("__index")
		if _, isFn := idx.(*lua.LFunction); isFn {
			for _, n := range sessionMembers {
				f := c.field(v, n)
				if f != lua.LNil && (!methods || f.Type() == lua.LTFunction) {
					names = append(names, n)
				}
			}
			break
		}
		if idx == v {
			break
		}
		v = idx
	}
	return names
}

// tableKeys lists t's string keys that are names (only those holding
// functions when functionsOnly).
func (c *completer) tableKeys(t *lua.LTable, functionsOnly bool) []string {
	var names []string
	t.ForEach(func(k, v lua.LValue) {
		s, ok := k.(lua.LString)
		if !ok || !isName(string(s)) {
			return
		}
		if functionsOnly && v.Type() != lua.LTFunction {
			return
		}
		names = append(names, string(s))
	})
	return names
}

// isName reports whether s is a Lua name (so it can follow '.' or ':').
func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !isNameRune(r) || r == '.' || r == ':' {
			return false
		}
	}
	return true
}

// rawMetatable is v's metatable, even when __metatable hides it from Lua.
func rawMetatable(v lua.LValue) lua.LValue {
	switch v := v.(type) {
	case *lua.LTable:
		return v.Metatable
	case *lua.LUserData:
		return v.Metatable
	}
	return lua.LNil
}
