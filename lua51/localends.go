package lua51

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua's compiler records where a block's locals end in the wrong
// entries of a function's debug information: it indexes DbgLocals by the
// locals' registers, not by their order. So a local seems alive long after
// its block, or ends early, and an error names a local that is out of
// scope ("attempt to index local 'co2'" for a value that field 'missing'
// loaded). The transformer records each function's locals in the order the
// compiler declares them, with the last line of the block each is declared
// in; after compiling, each local is made to end at the first instruction
// past that line (or at gopher-lua's end when that is on the line), as Lua
// 5.1's debug information has it. A function whose
// locals do not match the record (one the transformer did not walk) is
// left as it is.

// mainChunk is the last line of the main chunk's block: its locals never
// end.
const mainChunk = math.MaxInt32

// localEnds is one function's locals in the order the compiler declares
// them, and the last line of the block each is declared in.
type localEnds struct {
	line, lastLine int // where the function is defined
	names          []string
	ends           []int
	loops          []int // for a loop's local, the line of its loop instruction
	used           bool
}

func (l *localEnds) add(name string, end, loop int) {
	l.names = append(l.names, name)
	l.ends = append(l.ends, end)
	l.loops = append(l.loops, loop)
}

// fixLocalEnds sets the end of every local of main (a main chunk's
// prototype) and the functions in it from records, the transformer's,
// main's first.
func fixLocalEnds(main *lua.FunctionProto, records []*localEnds) {
	if len(records) == 0 {
		return
	}
	rec := records[0]
	if n := len(main.DbgLocals); n == len(rec.names)+1 && n > 0 && main.DbgLocals[0].Name == operatorsName {
		rec = &localEnds{
			names: append([]string{operatorsName}, rec.names...),
			ends:  append([]int{mainChunk}, rec.ends...),
			loops: append([]int{0}, rec.loops...),
		}
	}
	setEnds(main, rec)
	for _, r := range records {
		r.used = false
	}
	var walk func(p *lua.FunctionProto)
	walk = func(p *lua.FunctionProto) {
		for _, nested := range p.FunctionPrototypes {
			for _, r := range records[1:] {
				if !r.used && r.line == nested.LineDefined && r.lastLine == nested.LastLineDefined && sameNames(nested, r) {
					r.used = true
					setEnds(nested, r)
					break
				}
			}
			walk(nested)
		}
	}
	walk(main)
}

// sameNames reports whether p's locals are those of record r.
func sameNames(p *lua.FunctionProto, r *localEnds) bool {
	if len(p.DbgLocals) != len(r.names) {
		return false
	}
	for i, l := range p.DbgLocals {
		if l.Name != r.names[i] {
			return false
		}
	}
	return true
}

// setEnds makes each local of p end at the first instruction after its
// start whose line is past the end of its block.
func setEnds(p *lua.FunctionProto, r *localEnds) {
	if !sameNames(p, r) {
		return
	}
	for i, l := range p.DbgLocals {
		end := r.ends[i]
		if end <= 0 {
			continue
		}
		pc := max(l.StartPc, 0)
		for pc < len(p.Code) && pc < len(p.DbgSourcePositions) && p.DbgSourcePositions[pc] <= end {
			pc++
		}
		// Code after the block on its last line (do local a = 1 end a:m())
		// has that line too. gopher-lua's own end (its last instruction)
		// is then the right one when it is on that line: it was written by
		// this local's block, not a later one.
		if g := l.EndPc; g >= 0 && g+1 >= l.StartPc && g+1 < pc && p.DbgSourcePositions[g] == end {
			pc = g + 1
		}
		// A loop's locals end before the instruction that loops.
		if loop := r.loops[i]; loop > 0 {
			for at := max(l.StartPc, 0); at < pc; at++ {
				op := int(p.Code[at] >> 26)
				if (op == lua.OP_FORLOOP || op == lua.OP_TFORLOOP) && p.DbgSourcePositions[at] == loop {
					pc = at
					break
				}
			}
		}
		l.EndPc = pc
	}
}
