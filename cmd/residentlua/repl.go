package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/lua51"
)

// Prompts of the REPL, as lua.c's.
const (
	prompt1 = "> "
	prompt2 = ">> "
)

// repl reads, evaluates and prints until the end of input (Ctrl-D). It
// survives every error of a chunk. On a terminal it uses liner; otherwise
// it reads plain lines.
func (c *command) repl() {
	c.intr.repl(true, c.endAtPrompt)
	defer c.intr.repl(false, nil)
	var in lineReader
	if isTerminal(os.Stdin) && isTerminal(os.Stdout) {
		in = newLinerReader(newCompleter(c.L).complete)
	} else {
		in = &plainReader{in: os.Stdin}
	}
	c.atFinish(in.close)
	for !c.intr.wasTerminated() {
		fn, err := c.readChunk(in)
		switch {
		case errors.Is(err, errAborted):
			continue
		case err != nil:
			if !errors.Is(err, io.EOF) {
				fmt.Fprintln(os.Stderr, err)
			}
			fmt.Println()
			return
		case fn == nil:
			continue // a syntax error, already reported
		}
		c.luaMu.Lock()
		c.evalPrint(fn, in)
		c.luaMu.Unlock()
	}
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
func (c *command) readChunk(in lineReader) (*lua.LFunction, error) {
	line, err := in.prompt(prompt1)
	if err != nil {
		return nil, err
	}
	lines := []string{line}
	defer func() { c.remember(in, lines) }()
	src := line
	if expr, ok := strings.CutPrefix(line, "="); ok {
		src = "return " + expr
	} else if fn, err := c.load("return " + line); err == nil {
		return fn, nil
	}
	for {
		fn, err := c.load(src)
		if err == nil {
			return fn, nil
		}
		if !lua51.IsIncomplete(err) {
			fmt.Fprintln(os.Stderr, asChunkError(c.L, err).msg)
			return nil, nil
		}
		more, err := in.prompt(prompt2)
		if err != nil {
			lines = nil // an abandoned chunk is not kept
			return nil, err
		}
		lines = append(lines, more)
		src += "\n" + more
	}
}

// remember puts the lines of a chunk into the history as one entry. The
// history keeps one line an entry, so the lines are joined with spaces
// where that compiles to the same code; a chunk where it would not (a
// comment that would swallow the lines after it, a string that spans
// lines) is kept line by line.
func (c *command) remember(in lineReader, lines []string) {
	if len(lines) > 1 {
		joined := strings.Join(lines, " ")
		if c.sameCode(strings.Join(lines, "\n"), joined) {
			lines = []string{joined}
		}
	}
	for _, l := range lines {
		in.remember(l)
	}
}

// sameCode reports whether the chunks a and b both compile, to the same
// instructions and constants.
func (c *command) sameCode(a, b string) bool {
	fa, errA := c.load(a)
	fb, errB := c.load(b)
	return errA == nil && errB == nil && lua51.SameCode(fa.Proto, fb.Proto)
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
