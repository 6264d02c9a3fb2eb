package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/internal/input"
	"github.com/residentlua/residentlua/lua51"
)

// Prompts of the REPL, as lua.c's.
const (
	prompt1 = "> "
	prompt2 = ">> "
)

// repl reads, evaluates and prints until the end of input (Ctrl-D). It
// survives every error of a chunk. On a terminal it uses liner; otherwise
// it reads plain lines. It reports false when it ended on an input it
// could not read (a chunk larger than a Lua source may be).
func (c *command) repl() bool {
	c.intr.repl(true, c.endAtPrompt)
	defer c.intr.repl(false, nil)
	var in lineReader
	if isTerminal(os.Stdin) && isTerminal(os.Stdout) {
		in = newLinerReader(newCompleter(c.L).complete)
	} else {
		in = &plainReader{in: os.Stdin}
	}
	c.atFinish(in.close)
	ahead := &readAhead{lineReader: in}
	for !c.intr.wasTerminated() {
		fn, err := c.readChunk(ahead)
		switch {
		case errors.Is(err, errAborted):
			continue
		case err != nil:
			fmt.Println()
			if !errors.Is(err, io.EOF) {
				fmt.Fprintln(os.Stderr, err)
				return false
			}
			return true
		case fn == nil:
			continue // a syntax error, already reported
		}
		c.luaMu.Lock()
		c.evalPrint(fn, in)
		c.luaMu.Unlock()
	}
	return true
}

// endAtPrompt ends the run when SIGTERM arrives while the REPL waits for a
// line: nothing runs, so the run finishes here (in the signal's goroutine)
// and the process exits.
func (c *command) endAtPrompt() {
	c.luaMu.Lock() // a line being compiled or run finishes first
	c.finish()
	os.Exit(exitTerminated)
}

// load compiles a chunk the REPL read, holding the Lua state.
func (c *command) load(src string) (*lua.LFunction, error) {
	c.luaMu.Lock()
	defer c.luaMu.Unlock()
	return lua51.Load(c.L, strings.NewReader(src), "=stdin")
}

// readChunk reads one chunk: a line that is an expression is returned as
// "return <line>" (so its values are printed), as is "=<expr>"; otherwise
// lines are read until they make a complete chunk. A syntax error is
// reported and gives a nil function. The chunk goes into the history as one
// entry once it is complete (or a syntax error), as lua.c keeps it.
//
// As lua.c, the chunk ends at the first line after which it compiles or
// has an error other than at its end. Rather than compile it after every
// line, which makes a pasted chunk of n lines cost n compiles of up to n
// lines, it is compiled when a continuation says it may be complete and
// at every doubling of its lines; when a compile finds it complete (or in
// error) after lines it did not compile, the first such line is found by
// halving, and the lines after it are read again as the next chunks.
func (c *command) readChunk(in *readAhead) (*lua.LFunction, error) {
	line, err := in.prompt(prompt1)
	if err != nil {
		return nil, err
	}
	lines := []string{line}
	size := int64(len(line)) + 1 // the bytes of the chunk so far
	var compiled *lua.LFunction  // the chunk of lines as they were typed, once compiled
	defer func() { c.remember(in, lines, compiled) }()
	first := line
	if expr, ok := strings.CutPrefix(line, "="); ok {
		first = "return " + expr
	} else if fn, err := c.load("return " + line); err == nil {
		return fn, nil
	}
	chunk := func(n int) (*lua.LFunction, error) {
		return c.load(strings.Join(append([]string{first}, lines[1:n]...), "\n"))
	}
	cont := newContinuation()
	cont.add(first)
	incomplete := 0 // the most lines known to make an incomplete chunk
	for {
		if n := len(lines); cont.mayBeComplete() || n&(n-1) == 0 {
			fn, err := chunk(n)
			if err == nil || !lua51.IsIncomplete(err) {
				// A chunk the continuation says may be complete, and
				// compiles, ends here: had it been complete before,
				// the continuation would have said so there.
				if err != nil || !cont.mayBeComplete() {
					if k := firstEnd(chunk, incomplete, n); k < n {
						in.unread(lines[k:])
						lines = lines[:k]
						fn, err = chunk(k)
					}
				}
				if err != nil {
					fmt.Fprintln(os.Stderr, asChunkError(c.L, err).msg)
					return nil, nil
				}
				if first == line {
					compiled = fn
				}
				return fn, nil
			}
			incomplete = n
		}
		more, err := in.prompt(prompt2)
		if err == nil && size+int64(len(more)) > input.LuaSource.Limit {
			err = chunkTooLarge()
		}
		if err != nil {
			lines = nil // an abandoned chunk is not kept
			return nil, err
		}
		size += int64(len(more)) + 1
		lines = append(lines, more)
		cont.add(more)
	}
}

// firstEnd is the fewest lines, more than incomplete and at most end, that
// chunk compiles or finds in error other than at its end: the first
// incomplete lines make an incomplete chunk and the first end do not. The
// line before end is tried first: it is where a chunk that the
// continuation followed rightly was incomplete.
func firstEnd(chunk func(n int) (*lua.LFunction, error), incomplete, end int) int {
	if end-incomplete > 1 {
		if _, err := chunk(end - 1); err != nil && lua51.IsIncomplete(err) {
			return end
		}
		end--
	}
	for end-incomplete > 1 {
		mid := incomplete + (end-incomplete)/2
		if _, err := chunk(mid); err != nil && lua51.IsIncomplete(err) {
			incomplete = mid
		} else {
			end = mid
		}
	}
	return end
}

// readAhead is a lineReader that gives back first the lines a chunk read
// past its end, without a prompt: they were shown as they were read.
type readAhead struct {
	lineReader
	pending []string
}

// prompt shows p and reads a line, or gives the first line read again.
func (r *readAhead) prompt(p string) (string, error) {
	if len(r.pending) > 0 {
		line := r.pending[0]
		r.pending = r.pending[1:]
		return line, nil
	}
	return r.lineReader.prompt(p)
}

// unread gives lines back, to be read again before any other.
func (r *readAhead) unread(lines []string) {
	r.pending = append(slices.Clone(lines), r.pending...)
}

// remember puts the lines of a chunk into the history as one entry. The
// history keeps one line an entry, so the lines are joined with spaces
// where that compiles to the same code; a chunk where it would not (a
// comment that would swallow the lines after it, a string that spans
// lines) is kept line by line.
func (c *command) remember(in lineReader, lines []string, compiled *lua.LFunction) {
	if len(lines) > 1 && compiled != nil {
		joined := strings.Join(lines, " ")
		if c.sameCode(compiled, joined) {
			lines = []string{joined}
		}
	}
	for _, l := range lines {
		in.remember(l)
	}
}

// sameCode reports whether the chunk b compiles to the instructions and
// constants of a.
func (c *command) sameCode(a *lua.LFunction, b string) bool {
	fb, err := c.load(b)
	return err == nil && lua51.SameCode(a.Proto, fb.Proto)
}

// evalPrint runs a chunk with the terminal in its normal mode, then prints
// its values with the global print (a session prints its tostring, a table
// its fields), or its error and traceback on standard error.
func (c *command) evalPrint(fn *lua.LFunction, in lineReader) {
	done := in.running()
	defer done()
	results, err := c.call(fn)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	if len(results) == 0 {
		return
	}
	printFn, ok := c.L.GetGlobal("print").(*lua.LFunction)
	if !ok {
		fmt.Fprintln(os.Stderr, "error calling 'print' (a nil value)")
		return
	}
	for i, v := range results {
		if t, ok := v.(*lua.LTable); ok && c.L.GetMetaField(t, "__tostring") == lua.LNil {
			results[i] = lua.LString(showTable(c.L, t))
		}
	}
	if _, err := c.call(printFn, results...); err != nil {
		fmt.Fprintf(os.Stderr, "error calling 'print' (%v)\n", err)
	}
}
