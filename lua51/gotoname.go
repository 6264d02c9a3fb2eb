package lua51

import (
	"bytes"
	"strconv"
)

// goto is an ordinary name in Lua 5.1 (local goto = 5) and a keyword of
// gopher-lua's parser. Before a chunk that Lua 5.1's grammar accepted is
// parsed, every name goto in it is replaced by a name that occurs nowhere
// in the chunk, neither in its text nor in the value of one of its strings;
// the transformer renames it back in the tree, so that the compiled code,
// its debug information and its error messages say goto.

// hideGotoNames returns src with its names goto replaced, and the name that
// replaced them; src itself and "" when it has none.
func hideGotoNames(src []byte) ([]byte, string) {
	if !bytes.Contains(src, []byte("goto")) {
		return src, ""
	}
	var starts []int
	var stringValues []string
	lx := lexer5{src: src, line: 1}
	ok := func() (ok bool) {
		defer func() {
			if recover() != nil {
				ok = false // a lexical error: the grammar check reports it
			}
		}()
		for t := lx.lex(); t.kind != tkEOS; t = lx.lex() {
			switch {
			case t.kind == tkName && t.text == "goto":
				starts = append(starts, lx.pos-len("goto"))
			case t.kind == tkString:
				stringValues = append(stringValues, t.text)
			}
		}
		return true
	}()
	if !ok || len(starts) == 0 {
		return src, ""
	}
	name := unusedName(src, stringValues)
	out := make([]byte, 0, len(src)+len(starts)*(len(name)-len("goto")))
	last := 0
	for _, start := range starts {
		out = append(append(out, src[last:start]...), name...)
		last = start + len("goto")
	}
	return append(out, src[last:]...), name
}

// unusedName is a name, not a keyword of gopher-lua, that occurs neither in
// src nor in any of values.
func unusedName(src []byte, values []string) string {
	for i := 0; ; i++ {
		name := "goto_" + strconv.Itoa(i)
		used := bytes.Contains(src, []byte(name))
		for _, v := range values {
			used = used || bytes.Contains([]byte(v), []byte(name))
		}
		if !used {
			return name
		}
	}
}
