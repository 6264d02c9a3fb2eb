package luaapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/residentlua/residentlua/internal/input"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/lua51"
)

// Scenario is a model-checking scenario written in Lua (package check): a
// script that defines function scenario(c), which makes sessions and drives
// them with this module's functions, as a trial script does (startup{...},
// s:submit_gpu(), s:wait(0), resident.fault(...); each raises its errors
// as error values, so pcall and err.kind work), and asks c for what only
// the checker gives:
//
//   - c.choose(n [, what]) is a host-side choice from 0 to n-1 (what says,
//     in a counterexample, what is chosen);
//   - c.reset() resets every device and checks that nothing is left
//     charged;
//   - c.args holds the named arguments the scenario was given
//     (LoadScenarioArgs);
//   - c.rounds and c.credits are the built-in exchange's arguments
//     (check.Host.Exchange), c.faults, c.sessions and c.misuse (a boolean)
//     the search's bounds.
//
// Each run of the search runs the script in a fresh Lua state (its top
// level, then scenario(c)), with math.random seeded with 1, on the run's
// fabric, whose every choice the checker makes; each call of a function
// that acts is a host operation of the counterexample. resident.fabric{...}
// and os.exit raise errors there.
type Scenario struct {
	path      string
	chunkname string
	src       []byte
	stdout    io.Writer
	args      ScriptArgs
}

// LoadScenario reads the scenario script at path ("-" for standard input)
// once, and runs it once in a state of its own, on a simulated fabric of its
// own with its prints discarded, to make sure that it runs and defines
// function scenario(c); ctx stops that run. Each run of the scenario prints
// to stdout (nil: nowhere).
func LoadScenario(ctx context.Context, path string, stdout io.Writer) (*Scenario, error) {
	return LoadScenarioArgs(ctx, path, stdout, ScriptArgs{})
}

// LoadScenarioArgs is LoadScenario of a scenario given the named arguments
// args: the script of every run, the first included, sees arg as a script
// does (arg[0] its path, the words after, arg[-1] "check"), and
// scenario(c) reads their values as c.args.
func LoadScenarioArgs(ctx context.Context, path string, stdout io.Writer, args ScriptArgs) (*Scenario, error) {
	sc := &Scenario{path: path, chunkname: "@" + path, stdout: stdout, args: args}
	if sc.stdout == nil {
		sc.stdout = io.Discard
	}
	var err error
	if path == "-" {
		sc.chunkname = "=stdin"
		sc.src, err = input.ReadAll(os.Stdin, input.LuaSource)
	} else {
		sc.src, err = input.ReadFile(path, input.LuaSource)
	}
	if err != nil {
		what := "open"
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		} else {
			what = "read"
		}
		return nil, fmt.Errorf("cannot %s %s: %v", what, path, err)
	}
	if bytes.HasPrefix(sc.src, []byte("#")) { // a first line "#!..." is skipped, its newline kept
		i := bytes.IndexAny(sc.src, "\n\r")
		if i < 0 {
			i = len(sc.src)
		}
		sc.src = sc.src[i:]
	}
	L, m, err := sc.open(ctx, Options{Config: devices.Config{Mode: devices.Simulated}, Stdout: io.Discard})
	if err != nil {
		return nil, errors.New(scenarioError(err))
	}
	defer L.Close()
	defer m.Close()
	if _, ok := L.GetGlobal("scenario").(*lua.LFunction); !ok {
		return nil, fmt.Errorf("%s is not a check scenario: it defines no function scenario(c). A scenario is a script that defines function scenario(c), which makes sessions with startup{...} and drives them with their verbs, as a trial script does, and calls c.choose(n) at each choice the checker is to explore; docs/checking.md shows one", path)
	}
	return sc, nil
}

// noFabric is why a scenario may not make a fabric of its own.
const noFabric = "a check scenario runs on the fabric the checker makes for each run, whose every choice it makes; leave resident.fabric{...} out and make sessions with startup{...}"

// open makes a fresh Lua state for one run of the script: Lua 5.1's
// behaviour with math.random seeded with 1, the module opened with opts
// (its functions also as globals) on a fabric resident.fabric{...} may not
// replace, os.exit an error from the start, and the script's top level
// run.
func (sc *Scenario) open(ctx context.Context, opts Options) (*lua.LState, *Module, error) {
	L := lua51.NewState(lua51.Options{Seed: 1, Stdout: opts.Stdout,
		ExitRefused: "os.exit is not available in a check scenario, which the checker runs once for every schedule; return from scenario(c), or raise an error"})
	if ctx.Done() != nil {
		L.SetContext(ctx)
	}
	opts.Config.Seed, opts.Globals, opts.Stderr = 1, true, io.Discard
	if sc.path != "-" {
		opts.ScriptDir = filepath.Dir(sc.path)
	}
	m, err := Open(L, opts)
	if err != nil {
		L.Close()
		return nil, nil, err
	}
	m.fixedFabric = noFabric
	sc.args.SetArg(L, sc.path, "check")
	fn, err := lua51.Load(L, bytes.NewReader(sc.src), sc.chunkname)
	if err == nil {
		L.Push(fn)
		err = lua51.PCall(L, 0, 0)
	}
	if err != nil {
		m.Close()
		L.Close()
		return nil, nil, err
	}
	return L, m, nil
}

// Run is the scenario as a check.Scenario: one run of the script, in a
// fresh state, on h's fabric. A Lua error ends the run as the scenario's
// failure (check.Host.Fail).
func (sc *Scenario) Run(h *check.Host) {
	L, m, err := sc.open(h.Context(), Options{Fabric: h.Fabric(), Stdout: sc.stdout,
		onOperation: func(op operation) { h.Record(op.text, op.session) }})
	if err == nil {
		defer L.Close()
		fn, ok := L.GetGlobal("scenario").(*lua.LFunction)
		if !ok {
			h.Fail(sc.path + ": the global scenario is no longer a function once the script has run")
			return
		}
		L.Push(fn)
		L.Push(sc.table(L, m, h))
		err = lua51.PCall(L, 1, 0)
	}
	if err != nil {
		h.Fail(scenarioError(err))
	}
}

// scenarioFields are the fields of a run's c.
const scenarioFields = "choose, reset, args, rounds, credits, faults, sessions, misuse"

// table is the c a run's scenario(c) gets.
func (sc *Scenario) table(L *lua.LState, m *Module, h *check.Host) *lua.LTable {
	b, x := h.Bounds(), h.Exchange()
	c := L.CreateTable(0, 7)
	c.RawSetString("rounds", lua.LNumber(x.Rounds))
	c.RawSetString("credits", lua.LNumber(x.Credits))
	c.RawSetString("faults", lua.LNumber(b.Faults))
	c.RawSetString("sessions", lua.LNumber(b.Sessions))
	c.RawSetString("misuse", lua.LBool(b.Misuse > 0))
	c.RawSetString("args", sc.args.Table(L))
	c.RawSetString("choose", L.NewFunction(func(L *lua.LState) int {
		v, ok := L.Get(1).(lua.LNumber)
		if !ok {
			typeError(L, 1, "choose", "number")
		}
		if float64(v) != math.Trunc(float64(v)) || v < 1 || v > math.MaxInt32 {
			argError(L, 1, "choose", "the number of alternatives must be a whole number from 1, got "+formatNumber(float64(v)))
		}
		what := fmt.Sprintf("c.choose(%d)", int(v))
		if L.GetTop() >= 2 {
			what = checkString(L, 2, "choose")
		}
		L.Push(lua.LNumber(h.Choose(int(v), what)))
		return 1
	}))
	c.RawSetString("reset", L.NewFunction(func(L *lua.LState) int {
		h.ResetDevices()
		m.releaseQuarantines(m.fab)
		return 0
	}))
	mt := L.CreateTable(0, 1)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("c.%s is not a field of a scenario's c, whose fields are %s; make sessions with startup{...} and drive them with their verbs, as a trial script does",
			lua.LVAsString(L.Get(2)), scenarioFields)
		return 0
	}))
	L.SetMetatable(c, mt)
	return c
}

// scenarioError is a Lua error of a scenario in words: the message, and
// where it was raised when the message does not say it (an error value
// of the module, such as "busy: ...").
func scenarioError(err error) string {
	msg := ErrorString(err)
	var api *lua.ApiError
	if errors.As(err, &api) {
		if _, hasPosition := api.Object.(lua.LString); !hasPosition {
			if at := raisedAt(api.StackTrace); at != "" {
				msg = at + ": " + msg
			}
		}
	}
	return msg
}

// raisedAt is the position of the first Lua function in a traceback:
// "scenario.lua:5", or "".
func raisedAt(traceback string) string {
	for _, line := range strings.Split(traceback, "\n") {
		line = strings.TrimSpace(line)
		if at, _, ok := strings.Cut(line, ": in "); ok && !strings.HasPrefix(at, "[G]") {
			return at
		}
	}
	return ""
}
