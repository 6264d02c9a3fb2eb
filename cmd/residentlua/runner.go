package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/residentlua/residentlua/internal/input"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/internal/resultfile"
	"github.com/residentlua/residentlua/internal/seeds"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
)

// progName prefixes the command's own messages, as lua.c's progname does.
const progName = "residentlua"

// command is one run of residentlua: its options, the Lua state with the
// module open in it, and where the run's records go.
type command struct {
	opts     *options
	luaMu    sync.Mutex // held while the REPL uses L, so that SIGTERM at its prompt can finish the run
	finishMu sync.Mutex // makes finish run once, whichever goroutine calls it
	L        *lua.LState
	module   *luaapi.Module
	trace    *traceRecorder // nil without --trace
	events   *eventsFile    // nil without --events
	intr     *interrupter
	cleanups []func() // run first by finish, last added first
	finished bool
	// joinsInterrupted is set when Ctrl-C ended the joins of the sessions
	// closed at the end of the run: they were quarantined without the
	// whole close timeout, and the run exits with exitInterrupted.
	joinsInterrupted bool
}

// run is the whole command; it returns the exit status.
func run(args []string) int {
	opts, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n%s", progName, err, usageText)
		return 1
	}
	if opts.help {
		fmt.Print(usageText)
		return 0
	}
	if err := opts.checkOutputs(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", progName, err)
		if isUsage(err) {
			fmt.Fprint(os.Stderr, usageText)
		}
		return 1
	}
	if err := opts.checkFabric(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", progName, err)
		return 1
	}
	if opts.version {
		// lua.c writes its version to standard error, so a script that
		// runs the interpreter with -v reads it there.
		fmt.Fprintln(os.Stderr, versionLine())
	}
	c, err := newCommand(opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", progName, err)
		return 1
	}
	status := c.main()
	if err := c.finish(); err != nil && status == 0 {
		status = 1
	}
	if c.joinsInterrupted && status == 0 {
		status = exitInterrupted
	}
	if c.intr.wasTerminated() {
		status = exitTerminated
	}
	return status
}

// newCommand makes the Lua state, opens the module with the globals, and
// sets arg.
func newCommand(opts *options) (*command, error) {
	// The run's seed seeds the fabrics and math.random alike, so that
	// --seed replays both; without --seed one is chosen (and reported with
	// the first fabric).
	seed := opts.seed
	if seed == 0 {
		seed = seeds.Choose()
	}
	c := &command{opts: opts, L: lua51.NewState(lua51.Options{Seed: int64(seed), Stdout: os.Stdout, MemoryLimit: opts.memoryLimit}), intr: newInterrupter()}
	cfg := opts.fabricConfig()
	cfg.Seed = seed
	lopts := luaapi.Options{
		Config:     cfg,
		GPUBackend: opts.gpu,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Globals:    true,
		// Keep every session's stats for --stats; without it, keep none:
		// the module then forgets each session once it is closed.
		StatsLimit:        -1,
		ReportEveryFabric: opts.verbose,
	}
	if opts.statsPath != "" {
		lopts.StatsLimit = math.MaxInt
	}
	if opts.script >= 0 && opts.script < len(opts.args) && opts.args[opts.script] != "-" {
		lopts.ScriptDir = filepath.Dir(opts.args[opts.script])
	}
	if opts.tracePath != "" {
		c.trace = newTraceRecorder(opts.tracePath)
		lopts.OnFabric = c.trace.attach
	}
	if opts.eventsPath != "" {
		ev, err := newEventsFile(opts.eventsPath)
		if err != nil {
			c.L.Close()
			return nil, fmt.Errorf("--events: %w", err)
		}
		c.events = ev
		lopts.OnFabric = chainFabricHooks(lopts.OnFabric, ev.attach)
	}
	m, err := luaapi.Open(c.L, lopts)
	if err != nil {
		c.L.Close()
		return nil, err
	}
	c.module = m
	c.replaceExit()
	setArgTable(c.L, opts.args, opts.script)
	return c, nil
}

// main does what lua.c's pmain does after the options: the -e and -l steps
// in order, then the script, then the REPL or standard input. It stops at
// the first failure and returns the exit status.
func (c *command) main() int {
	for _, s := range c.opts.steps {
		if !c.report(c.runStep(s)) {
			return 1
		}
	}
	if c.intr.wasTerminated() {
		return 1
	}
	if c.opts.hasScript() {
		if !c.report(c.runScript()) {
			return 1
		}
	}
	switch {
	case c.opts.interactive:
		if !c.repl() {
			return 1
		}
	case !c.opts.hasScript() && !c.opts.hasExec() && !c.opts.version:
		if isTerminal(os.Stdin) {
			fmt.Fprintln(os.Stderr, versionLine())
			if !c.repl() {
				return 1
			}
		} else if !c.report(c.runStdin(nil)) {
			return 1
		}
	}
	return 0
}

// report prints a failure on standard error with the program's name, as
// lua.c's l_message does, and says whether there was none.
func (c *command) report(err error) bool {
	if err == nil {
		return true
	}
	if ce, ok := err.(*chunkError); !ok || !ce.silent {
		fmt.Fprintf(os.Stderr, "%s: %v\n", progName, err)
	}
	return false
}

// runStep does one -e or -l.
func (c *command) runStep(s step) error {
	if s.kind == stepExec {
		fn, err := c.loadArmed(func(L *lua.LState) (*lua.LFunction, error) {
			return lua51.Load(L, strings.NewReader(s.text), "=(command line)")
		})
		if err != nil {
			return err
		}
		_, err = c.call(fn)
		return err
	}
	return c.require(s.text)
}

// require does -l: "mod" sets the global mod to require("mod"), "g=mod"
// sets the global g; like lua.c, a version suffix after '-' is not part of
// the global's name ("-l mod-1.2" sets mod).
func (c *command) require(spec string) error {
	global, mod, named := strings.Cut(spec, "=")
	if !named {
		mod = spec
		global, _, _ = strings.Cut(spec, "-")
	}
	req, ok := c.L.GetGlobal("require").(*lua.LFunction)
	if !ok {
		return errors.New("'require' is not a function")
	}
	res, err := c.call(req, lua.LString(mod))
	if err != nil {
		return err
	}
	v := lua.LValue(lua.LNil)
	if len(res) > 0 {
		v = res[0]
	}
	c.L.SetGlobal(global, v)
	return nil
}

// runScript runs the named script ("-" is standard input) with the words
// after it as its arguments (`...`).
func (c *command) runScript() error {
	name := c.opts.args[c.opts.script]
	scriptArgs := []lua.LValue{}
	for _, a := range c.opts.args[c.opts.script+1:] {
		scriptArgs = append(scriptArgs, lua.LString(a))
	}
	if name == "-" {
		return c.runStdin(scriptArgs)
	}
	fn, err := c.loadArmed(func(L *lua.LState) (*lua.LFunction, error) {
		return lua51.LoadFile(L, name) // skips a "#!" line, as lua.c does
	})
	if err != nil {
		return err
	}
	_, err = c.call(fn, scriptArgs...)
	return err
}

// runStdin reads standard input to its end and runs it as a chunk named stdin.
func (c *command) runStdin(args []lua.LValue) error {
	src, err := input.ReadAll(os.Stdin, input.LuaSource)
	if err != nil {
		return fmt.Errorf("cannot read stdin: %w", err)
	}
	// Skip a first line that starts with '#' (a "#!" line) as lua.c does.
	if bytes.HasPrefix(src, []byte("#")) {
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			src = src[i:] // keep the newline so that line numbers stay right
		} else {
			src = nil
		}
	}
	fn, err := c.loadArmed(func(L *lua.LState) (*lua.LFunction, error) {
		return lua51.Load(L, bytes.NewReader(src), "=stdin")
	})
	if err != nil {
		return err
	}
	_, err = c.call(fn, args...)
	return err
}

// replaceExit makes os.exit([code]) end the run the way a normal exit does:
// open sessions are closed and reported, and --trace and --stats are
// written, before the process exits with the code (a number, as in Lua
// 5.1).
func (c *command) replaceExit() {
	osTable, ok := c.L.GetGlobal("os").(*lua.LTable)
	if !ok {
		return
	}
	c.L.SetField(osTable, "exit", c.L.NewFunction(func(L *lua.LState) int {
		code := lua51.ExitCode(L)
		if err := c.finish(); err != nil && code == 0 {
			code = 1
		}
		if c.joinsInterrupted && code == 0 {
			code = exitInterrupted
		}
		os.Exit(code)
		return 0
	}))
}

// atFinish registers fn to run first when the run finishes (the REPL
// restores the terminal and saves its history this way).
func (c *command) atFinish(fn func()) { c.cleanups = append(c.cleanups, fn) }

// finish ends the run once: it runs the cleanups, closes the sessions still
// open (saying at once which it joins and for how long; Ctrl-C or SIGTERM
// quarantines them now; the module reports each on standard error), writes
// the trace and the stats, and closes the Lua state. A file that cannot be
// written is reported and returned.
func (c *command) finish() error {
	c.finishMu.Lock()
	defer c.finishMu.Unlock()
	if c.finished {
		return nil
	}
	c.finished = true
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
	c.L.RemoveContext()
	c.closeSessions()
	var errs []error
	release := resultfile.Hold() // a signal now waits for the files
	if c.trace != nil {
		if err := c.trace.write(); err != nil {
			errs = append(errs, fmt.Errorf("--trace: %w", err))
		}
	}
	if c.events != nil {
		if err := c.events.write(); err != nil {
			errs = append(errs, fmt.Errorf("--events: %w", err))
		}
	}
	if c.opts.statsPath != "" {
		if err := writeStats(c.opts.statsPath, c.module.Stats()); err != nil {
			errs = append(errs, fmt.Errorf("--stats: %w", err))
		}
	}
	release()
	for _, err := range errs {
		c.report(err)
	}
	c.L.Close()
	return errors.Join(errs...)
}

// closeSessions closes the sessions still open. Joining a hung session takes
// the whole close timeout, so it first says which sessions it joins, for how
// long, and that Ctrl-C quarantines them at once.
func (c *command) closeSessions() {
	switch ids := c.module.OpenSessionIDs(); {
	case len(ids) == 0:
	case c.intr.wasTerminated():
		fmt.Fprintf(os.Stderr, "%s: terminated: closing %s without joining\n", progName, sessionList(ids))
	default:
		clock := ""
		if c.module.Fabric().Mode() == devices.Simulated {
			clock = " of simulated time" // which a hung exchange at virtual time 0 never reaches
		}
		fmt.Fprintf(os.Stderr, "%s: closing %s: joining for up to %s%s each (Ctrl-C quarantines now)\n",
			progName, sessionList(ids), c.module.CloseTimeout(), clock)
	}
	reports := c.module.CloseContext(c.intr.arm())
	if c.intr.disarm() {
		for _, r := range reports {
			c.joinsInterrupted = c.joinsInterrupted || r.Outcome == engine.Quarantined.String()
		}
	}
}

// sessionList names sessions for a message: "session 3", "sessions 1, 2 and 5".
func sessionList(ids []uint64) string {
	words := make([]string, len(ids))
	for i, id := range ids {
		words[i] = strconv.FormatUint(id, 10)
	}
	if len(words) == 1 {
		return "session " + words[0]
	}
	return "sessions " + strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// checkOutputs checks --trace and --stats before anything runs, against
// each other and the script they must not replace.
func (o *options) checkOutputs() error {
	var inputs []string
	if o.hasScript() {
		inputs = append(inputs, o.args[o.script])
	}
	return resultfile.Checks{
		Outputs: []resultfile.File{{Option: "--trace", Path: o.tracePath, Kind: resultfile.JSONObject}, {Option: "--stats", Path: o.statsPath, Kind: resultfile.JSONArray},
			{Option: "--events", Path: o.eventsPath, Kind: resultfile.JSONLines}},
		Inputs:      inputs,
		Force:       o.force,
		ForceOption: "--force",
	}.Check()
}
