package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/devices/wait"
	"github.com/residentlua/residentlua/internal/resultfile"
	"github.com/residentlua/residentlua/internal/seeds"
	"github.com/residentlua/residentlua/lua51"
)

// stepKind says what one -e or -l option asks for.
type stepKind uint8

const (
	stepExec    stepKind = iota + 1 // -e stat: run a chunk
	stepRequire                     // -l mod or -l g=mod: require a module into a global
)

// step is one -e or -l option, kept in the order given on the command line.
type step struct {
	kind stepKind
	text string // the chunk of -e, the module spec of -l
}

// options is the parsed command line, following lua.c: options first, then
// the script and its arguments.
type options struct {
	args        []string // the whole command line, args[0] the interpreter
	steps       []step   // -e and -l in order
	interactive bool     // -i
	version     bool     // -v (also set by -i)
	help        bool     // --help, -h
	verbose     bool     // --verbose: report every fabric, not only the first

	mode, timing string // --mode, --timing; empty for the defaults
	wait         string // --wait: the real-time wait policy; empty for the default
	gpu          string // --gpu: the GPU backend; empty for the simulated one
	seed         uint64 // --seed; 0 for one chosen by the fabric
	tracePath    string // --trace
	statsPath    string // --stats
	eventsPath   string // --events
	force        bool   // --force: replace a file that does not look like a result file
	memoryLimit  int64  // --memory-limit in bytes; 0 for lua51's default

	// script is the index in args of the script name ("-" for standard
	// input), or len(args) when none is named. Everything before it is the
	// interpreter and its options (arg's negative indices); everything after
	// it is the script's arguments.
	script int
}

// hasScript reports whether a script (or "-") was named.
func (o *options) hasScript() bool { return o.script < len(o.args) }

// hasExec reports whether an -e was given (lua.c's has_e: -l does not count).
func (o *options) hasExec() bool {
	for _, s := range o.steps {
		if s.kind == stepExec {
			return true
		}
	}
	return false
}

// usageError is a command-line mistake: it is reported with the usage text
// and exit status 1.
type usageError struct{ msg string }

// Error is the mistake, without the usage text.
func (e *usageError) Error() string { return e.msg }

// isUsage reports whether err is a command-line mistake, reported with the
// usage text: a usageError, or a result file the command line must not name.
func isUsage(err error) bool {
	var u *usageError
	var r *resultfile.Refusal
	return errors.As(err, &u) || errors.As(err, &r)
}

// parseArgs reads args (args[0] is the interpreter's name) the way lua.c
// does: single-dash options may carry their argument attached (-e'print(1)',
// -lmod); "--" ends the options and the next word is the script; "-" is
// standard input as the script. The long options of residentlua accept
// "--opt value" and "--opt=value".
func parseArgs(args []string) (*options, error) {
	o := &options{args: args, script: len(args)}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			o.script = i + 1
			if o.script > len(args) {
				o.script = len(args)
			}
			return o, nil
		case a == "-" || !strings.HasPrefix(a, "-"):
			o.script = i
			return o, nil
		case a == "--help" || a == "-h":
			o.help = true
		case a == "--verbose":
			o.verbose = true
		case a == "--force":
			o.force = true
		case a == "--version":
			o.version = true
		case strings.HasPrefix(a, "--"):
			name, value, attached := strings.Cut(a[2:], "=")
			if !longOptionTakesValue(name) {
				return nil, &usageError{fmt.Sprintf("unrecognized option '%s'", a)}
			}
			if !attached {
				if i+1 >= len(args) {
					return nil, &usageError{fmt.Sprintf("'--%s' needs argument", name)}
				}
				i++
				value = args[i]
			}
			if err := o.setLong(name, value); err != nil {
				return nil, err
			}
		case a == "-i":
			o.interactive, o.version = true, true
		case a == "-v":
			o.version = true
		case a == "-E" || a == "-W":
			// lua.c's "ignore LUA_INIT" and "warnings on": accepted, nothing to do here.
		case a[1] == 'e' || a[1] == 'l':
			text := a[2:]
			if text == "" {
				// Like lua.c: the argument is the next word, which must not look like an option.
				if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
					return nil, &usageError{fmt.Sprintf("'%s' needs argument", a[:2])}
				}
				i++
				text = args[i]
			}
			kind := stepExec
			if a[1] == 'l' {
				kind = stepRequire
			}
			o.steps = append(o.steps, step{kind: kind, text: text})
		default:
			return nil, &usageError{fmt.Sprintf("unrecognized option '%s'", a)}
		}
	}
	return o, nil
}

// longOptionTakesValue reports whether name is a long option of residentlua.
func longOptionTakesValue(name string) bool {
	switch name {
	case "mode", "wait", "seed", "timing", "gpu", "trace", "stats", "events", "memory-limit":
		return true
	}
	return false
}

// setLong records one long option, checking its value.
func (o *options) setLong(name, value string) error {
	switch name {
	case "mode":
		if _, err := devices.ParseMode(value); err != nil {
			return &usageError{fmt.Sprintf("--mode %q: use sim or realtime", value)}
		}
		o.mode = value
	case "wait":
		if _, err := wait.Parse(value); err != nil {
			return &usageError{fmt.Sprintf("--wait %q: use spin, hybrid or block", value)}
		}
		o.wait = value
	case "gpu":
		if value == "" || backend.Check(value) != nil {
			return &usageError{fmt.Sprintf("--gpu %q: use %s", value, orList(backend.Names()))}
		}
		o.gpu = value
	case "timing":
		if _, err := timing.Profile(value); err != nil {
			return &usageError{fmt.Sprintf("--timing %q: use ideal or published", value)}
		}
		o.timing = value
	case "seed":
		n, err := strconv.ParseUint(value, 0, 64)
		if err != nil || n == 0 || n > seeds.Max {
			return &usageError{fmt.Sprintf("--seed %q: give a whole number from 1 to 2^53-1 (%d), which a Lua number holds exactly", value, uint64(seeds.Max))}
		}
		o.seed = n
	case "trace":
		o.tracePath = value
	case "stats":
		o.statsPath = value
	case "events":
		o.eventsPath = value
	case "memory-limit":
		n, err := lua51.ParseMemorySize(value)
		if err != nil {
			return &usageError{"--memory-limit: " + err.Error()}
		}
		o.memoryLimit = n
	}
	return nil
}

// orList is "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// fabricConfig is the configuration of the default fabric the options ask for.
func (o *options) fabricConfig() devices.Config {
	var cfg devices.Config
	if o.mode != "" {
		cfg.Mode, _ = devices.ParseMode(o.mode)
	}
	if o.timing != "" {
		cfg.Timing, _ = timing.Profile(o.timing)
	}
	if o.wait != "" {
		cfg.Wait, _ = wait.Parse(o.wait)
	}
	cfg.Seed = o.seed
	return cfg
}

// checkFabric refuses, before anything runs, options that cannot make the
// default fabric together: a real GPU in simulated time, or the spin wait
// policy in real time on too few cores. Said then, in one line, rather
// than as a traceback when a script first needs the fabric.
func (o *options) checkFabric() error {
	cfg := o.fabricConfig()
	if o.gpu != "" && o.gpu != backend.Sim && cfg.Mode == devices.Simulated {
		return fmt.Errorf("--gpu %s is a real GPU, which runs in real time: use --mode realtime (the default) with it, or leave --gpu out to simulate the GPU", o.gpu)
	}
	if cfg.Wait == wait.Spin && cfg.Mode != devices.Simulated {
		if err := wait.Check(wait.Spin, len(devices.DefaultDevices())); err != nil {
			msg := err.Error()
			if e, ok := errors.AsType[*failure.Error](err); ok {
				msg = e.Message
			}
			return fmt.Errorf("--wait spin: %s", msg)
		}
	}
	return nil
}

// usageText lists every option; --help prints it.
const usageText = `usage: residentlua [options] [script [args]]
Available options are:
  -e stat          execute string 'stat'
  -i               enter interactive mode after executing 'script'
  -l mod           require library 'mod' into global 'mod'
  -l g=mod         require library 'mod' into global 'g'
  -v, --version    show version information
  -E, -W           accepted for compatibility with lua; no effect
  --               stop handling options
  -                stop handling options and execute stdin
residentlua options (before the script):
  --mode sim|realtime        executor of the default fabric (default realtime)
  --wait spin|hybrid|block   how real-time devices and the host wait (default
                             hybrid); spin takes a core per device and the host
  --seed N                   seed of the run, 1 to 2^53-1 (default: chosen and
                             reported); each fabric's seed derives from it
  --timing ideal|published   timing profile of the default fabric (default ideal)
  --gpu sim|cuda             GPU of every fabric: simulated (default) or a real
                             NVIDIA GPU running a resident kernel (real time only)
  --trace FILE               write a Chrome trace-event JSON timeline of every fabric
  --stats FILE               write every session's stats as a JSON array
  --events FILE              write every session as a trace (JSON Lines) that
                             residentlua validate checks (docs/traces.md)
  --force                    let --trace, --stats and --events replace a file that does
                             not look like one they write (a .lua file, say)
  --memory-limit SIZE        memory budget of the Lua state, such as 512MiB or
                             4GiB (default: half the machine's memory, less
                             under ulimit -v); past it, "not enough memory"
  --verbose                  report every fabric the run makes (default: the first)
  --help, -h                 show this help
With no script, no -e and no -v: the REPL when standard input is a terminal,
otherwise standard input is run as a script. See docs/cli.md.
Fault campaigns on every core: residentlua campaign --help (docs/campaigns.md).
Model checking, every schedule within bounds: residentlua check --help
(docs/checking.md).
Checking recorded runs of other implementations: residentlua validate --help
(docs/traces.md).
`
