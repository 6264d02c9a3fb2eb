package luaprogram

import (
	"context"
	"strconv"
	"time"
)

// DefaultInstructions is how many Lua instructions a program may run
// between two memory operations before it is stopped: a few tenths of a
// second of the interpreter, far beyond any step's work, so that a program
// that loops without a memory operation ends with an error instead of
// hanging its device.
const DefaultInstructions = 10_000_000

// instructionBudget is the context of a program's thread: the interpreter
// asks for its Done channel before every instruction it runs, so counting
// those calls counts instructions. Once left runs out it answers with a
// closed channel, and the interpreter raises Err, whose text says what
// happened. It also ends with parent, the host's context (Ctrl-C).
type instructionBudget struct {
	parent context.Context
	limit  int64
	left   int64
}

// closed is a channel that is always closed.
var closed = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

func (b *instructionBudget) refill() { b.left = b.limit }

// parentEvery is how many instructions pass between two looks at the
// parent's Done channel: a program ends within that many instructions of
// the host's Ctrl-C, and the other instructions pay no channel receive.
const parentEvery = 1024

// Done is closed once the budget is spent or the parent is done. Between
// looks at the parent it is nil, which the interpreter's non-blocking
// receive passes over at once.
func (b *instructionBudget) Done() <-chan struct{} {
	if b.left--; b.left < 0 {
		return closed
	}
	if b.left%parentEvery != 0 {
		return nil
	}
	return b.parent.Done()
}

// Err says why the program was stopped.
func (b *instructionBudget) Err() error {
	if b.left < 0 {
		return budgetError{b.limit}
	}
	return b.parent.Err()
}

func (b *instructionBudget) Deadline() (deadline time.Time, ok bool) { return b.parent.Deadline() }

func (b *instructionBudget) Value(key any) any { return b.parent.Value(key) }

// budgetError is the error of a program that ran its budget out.
type budgetError struct{ limit int64 }

func (e budgetError) Error() string {
	return "the program ran " + strconv.FormatInt(e.limit, 10) + " Lua instructions without a memory operation; a device program's steps are short: put a memory operation (p:load, p:wait, p:delay, ...) in every loop, or raise the program's instructions limit"
}
