package luaprogram

import (
	"context"
	"errors"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/lua51"
)

// DefaultInstructions is how many Lua instructions a program may run
// between two memory operations before it is stopped: a few tenths of a
// second of the interpreter, far beyond any step's work, so that a program
// that loops without a memory operation ends with an error instead of
// hanging its device. The work of library functions (a pattern search, a
// sort, a long string built) counts too, so no one call can outlast it.
const DefaultInstructions = 10_000_000

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

// resume resumes the machine's thread under the program's instruction
// budget and the machine's context.
func (m *machine) resumeThread(args []lua.LValue) error {
	_, _, err := lua51.ResumeBudget(m.L.Context(), m.L, m.th, m.tramp, m.prog.opts.Instructions, args...)
	return err
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

// budgetMessage says that a program ran limit instructions without a
// memory operation.
func budgetMessage(limit int64) string {
	return "the program ran " + strconv.FormatInt(limit, 10) + " Lua instructions without a memory operation; a device program's steps are short: put a memory operation (p:load, p:wait, p:delay, ...) in every loop, or raise the program's instructions limit"
}
