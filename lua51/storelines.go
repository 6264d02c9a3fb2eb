package lua51

import (
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// gopher-lua's compiler gives the store of every keyed field of a table
// constructor ([k] = v, name = v) the line where the constructor starts;
// Lua 5.1's gives it the line of the last token of v, so "table index is
// nil" from a constructor that spans lines names the field's line there.
// gopher-lua's tree does not keep where an expression ends (a call's ')',
// a long string's end), so the syntax check, which reads the chunk as Lua
// 5.1's parser does, records each constructor's store lines, and the
// transformer, which meets the constructors in the same order, matches them
// to the tree's. Just before compiling, each constructor whose stores are on
// other lines is given a line of its own past any real one (storeLine + its
// number); after compiling, the instructions found on that line get their
// lines back: the constructor's, and each keyed field's store, in order,
// its own. Should the two orders not match, the chunk keeps gopher-lua's
// lines.

// storeLine is the first of the made-up lines; a chunk is at most 4 MiB, so
// no real line reaches it.
const storeLine = 1 << 30

// keyedConstructor is a constructor whose stores get their lines: where it
// starts, and the line of each keyed field's store, in order.
type keyedConstructor struct {
	table  *ast.TableExpr
	line   int
	stores []int
}

// storeLines matches the syntax check's constructors to the tree's.
type storeLines struct {
	checked []constructorStores // the syntax check's, in source order
	met     int                 // the constructors the transformer met
	lost    bool                // one did not match: keep gopher-lua's lines
	fixed   []keyedConstructor
}

// meet matches e, the next constructor in source order, and records it
// when its stores are on other lines than its start.
func (s *storeLines) meet(e *ast.TableExpr) {
	i := s.met
	s.met++
	if s.lost {
		return
	}
	keyed := 0
	for _, f := range e.Fields {
		if f.Key != nil {
			keyed++
		}
	}
	if i >= len(s.checked) || s.checked[i].line != e.Line() || len(s.checked[i].stores) != keyed {
		s.lost = true
		return
	}
	for _, line := range s.checked[i].stores {
		if line != e.Line() {
			s.fixed = append(s.fixed, keyedConstructor{table: e, line: e.Line(), stores: s.checked[i].stores})
			return
		}
	}
}

// mark gives each constructor to fix its made-up line.
func (s *storeLines) mark() {
	if s.lost || s.met != len(s.checked) {
		s.fixed = nil
	}
	for i, c := range s.fixed {
		c.table.SetLine(storeLine + i)
	}
}

// fix gives the instructions of p (a main chunk's prototype) and the
// functions in it that are on a made-up line their lines back.
func (s *storeLines) fix(p *lua.FunctionProto) {
	if len(s.fixed) == 0 {
		return
	}
	next := make([]int, len(s.fixed)) // each one's next keyed store
	var walk func(p *lua.FunctionProto)
	walk = func(p *lua.FunctionProto) {
		for pc, line := range p.DbgSourcePositions {
			i := line - storeLine
			if i < 0 || i >= len(s.fixed) {
				continue
			}
			c := &s.fixed[i]
			p.DbgSourcePositions[pc] = c.line
			switch opcodeOf(p.Code[pc]) {
			case lua.OP_NEWTABLE:
				next[i] = 0
			case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
				if next[i] < len(c.stores) {
					p.DbgSourcePositions[pc] = c.stores[next[i]]
					next[i]++
				}
			}
		}
		for _, f := range p.FunctionPrototypes {
			walk(f)
		}
	}
	walk(p)
}
