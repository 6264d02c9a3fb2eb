package luaprogram

import (
	"context"
	"errors"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/lua51"
)

// DefaultInstructions is how many Lua instructions a program may run
// between two memory operations before it is stopped: a few tenths of a
// second of the interpreter, far beyond any step's work, so that a program
// that loops without a memory operation ends with an error instead of
// hanging its device. The work of library functions (a pattern search, a
// sort, a long string built) counts too, so no one call can outlast it.
const DefaultInstructions = 10_000_000

// DefaultCheckInstructions is how many Lua instructions a program's check,
// or its buffers declaration, may run in all before it is stopped: ten
// times a program's step, a second or two of the interpreter. A check
// reads the session's results and computes what they should be, over
// every word if need be, with no memory operation to renew a budget, so
// its budget is its own; past it the check fails with an error saying so,
// rather than hang the host.
const DefaultCheckInstructions = 100_000_000

// setContext makes ctx the context of the machine's Lua code: its end
// (the host's Ctrl-C, a trial's time limit) stops the code wherever it is.
func (m *machine) setContext(ctx context.Context) {
	if ctx == nil {
		ctx = context.Background()
	}
	m.L.SetContext(ctx)
}

// pcall is lua51.PCallBudget on the machine's state, under the program's
// instruction budget and the machine's context.
func (m *machine) pcall(nargs, nret int) error {
	return lua51.PCallBudget(m.L, nargs, nret, m.prog.opts.Instructions)
}

// pcallHost is pcall for a check or a buffers declaration: the Lua code
// of the host's side, under the program's check budget
// (Options.CheckInstructions) in all.
func (m *machine) pcallHost(nargs, nret int) error {
	return lua51.PCallBudget(m.L, nargs, nret, m.prog.opts.CheckInstructions)
}

// resumeThread resumes the machine's thread, which runs fn, for a step in
// env, under the program's instruction budget and the machine's context.
func (m *machine) resumeThread(env program.Env, fn *lua.LFunction, args []lua.LValue) (lua.ResumeState, error) {
	ctx := stepContextOf(m.L.Context(), env)
	st, _, err := lua51.ResumeBudget(ctx, m.L, m.th, fn, m.prog.opts.Instructions, args...)
	return st, err
}

// budgetText is the text of an error of the program's Lua code, text,
// with the instruction budget's error said as a program's.
func (m *machine) budgetText(err error, text string) string {
	if !errors.Is(err, lua51.ErrInstructionBudget) {
		return text
	}
	if i := strings.Index(text, "instruction budget exhausted ("); i >= 0 {
		rest := text[i:]
		if j := strings.Index(rest, ")"); j >= 0 {
			return text[:i] + budgetMessage(m.prog.opts.Instructions) + rest[j+1:]
		}
	}
	return text
}

// hostBudgetText is budgetText for a check or a buffers declaration (what
// says which): its budget is its own, in all.
func (m *machine) hostBudgetText(err error, text, what string) string {
	if !errors.Is(err, lua51.ErrInstructionBudget) {
		return text
	}
	if i := strings.Index(text, "instruction budget exhausted ("); i >= 0 {
		rest := text[i:]
		if j := strings.Index(rest, ")"); j >= 0 {
			limit := strconv.FormatInt(m.prog.opts.CheckInstructions, 10)
			return text[:i] + "the " + what + " ran " + limit + " Lua instructions, its limit in all (a program's check and buffers declaration have a budget of their own, apart from its steps'): make it do less, or raise the program's check_instructions" + rest[j+1:]
		}
	}
	return text
}

// budgetMessage says that a program ran limit instructions without a
// memory operation.
func budgetMessage(limit int64) string {
	return "the program ran " + strconv.FormatInt(limit, 10) + " Lua instructions without a memory operation; a device program's steps are short: put a memory operation (p:load, p:wait, p:delay, ...) in every loop, or raise the program's instructions limit"
}

// stepContext is the context of one step's Lua code: the invocation's,
// ended too once a device reset is stopping the invocation, which a device
// whose Env tells (program.Stopping) says whenever the interpreter looks
// (lua51 looks every thousand instructions or so).
type stepContext struct {
	context.Context
	env program.Stopping
}

// errStopped is the error of Lua code stopped by a reset of its device.
var errStopped = errors.New("the device was reset while the program ran")

// Done is closed once the step must stop.
func (c stepContext) Done() <-chan struct{} {
	if c.env.Stopping() {
		return closed
	}
	return c.Context.Done()
}

// Err says why the step stopped.
func (c stepContext) Err() error {
	if c.env.Stopping() {
		return errStopped
	}
	return c.Context.Err()
}

// stopping reports whether a device reset is stopping the invocation env
// runs.
func stopping(env program.Env) bool {
	s, ok := env.(program.Stopping)
	return ok && s.Stopping()
}

// closed is a channel that is always closed.
var closed = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

// stepContextOf is the context of a step run in env under ctx. Where
// steps are interleaved (simulated time) a reset lands between two steps,
// never during one, so the step's Lua code need not ask at every
// instruction, and runs under ctx alone.
func stepContextOf(ctx context.Context, env program.Env) context.Context {
	if s, ok := env.(program.Stopping); ok && !env.Interleaved() {
		return stepContext{Context: ctx, env: s}
	}
	return ctx
}
