package luaprogram

import (
	"context"
	"errors"
	"hash/fnv"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/lua51"
)

// View is a buffer an invocation reaches, by name, through its device's
// view of it.
type View struct {
	Name string
	View *devices.View
}

// Config is what one invocation of a program reaches and knows.
type Config struct {
	Startup *devices.View // the session's startup line
	Buffers []View        // the session's other buffers, sorted by name
	Args    Args
	Owner   uint64     // the session, which tags the invocation's events
	Device  string     // the device's name, "gpu0"
	Kind    string     // "gpu" or "npu"
	Queue   string     // the queue family's command, "aql"
	Run     fault.Site // the device's run site: fault.GPURun or fault.NPURun
	// Seed seeds the invocation's math.random, so that a program's random
	// numbers replay with its session.
	Seed uint64
	// Context ends the program's Lua code when the host stops (Ctrl-C);
	// nil is context.Background().
	Context context.Context
}

// Instance is one invocation of a program, for one session: a
// program.Program the runtime dispatches. Its steps run the program's Lua
// code up to each memory operation.
type Instance struct {
	prog     *Program
	cfg      Config
	observer program.Observer
	env      program.Env // during a step

	m        *machine       // the state running it, from its first step
	run      *lua.LFunction // the program's function, of the chunk run for it
	p        *lua.LTable    // the program's p
	pending  pendingOp
	next     program.Next // what the operation the program stopped at waits for
	finished bool         // the function returned
	ended    bool         // retired: its machine was given back or dropped
	misuse   string       // a memory operation called where it cannot yield
	history  uint64       // a hash of every result the program was given
	last     pendingOp    // the operation the program stopped at before this one
	polls    int          // loads of one word in a row, less one: a poll loop's
}

// newInstance makes an invocation of p with cfg, to be prepared on a
// device. An instance of a program that checks its own results is a
// program.Checker.
func (p *Program) newInstance(cfg Config) program.Program {
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	in := &Instance{prog: p, cfg: cfg, observer: program.NewObserver(cfg.Run), history: fnvOffset}
	if p.hasCheck {
		return &checkedInstance{in}
	}
	return in
}

// pendingOp is the memory operation a program stopped at: what its next
// step does first.
type pendingOp struct {
	kind  opKind
	buf   int // -1 for the startup line
	off   int
	n     int           // words, for a read
	words []uint32      // for a write
	into  *lua.LTable   // for a read, the table to fill
	val   uint32        // for a store, a flip's mask
	d     time.Duration // for a delay
	seen  uint32        // for opDeliver
	view  *devices.View // the view the operation acts through
}

type opKind uint8

const (
	opNone opKind = iota
	opLoad
	opWait
	opStore
	opStorePlain
	opRead
	opWrite
	opFlip
	opDrain
	opDiscard
	opDelay
	opDeliver // hand the program a decision after the run fault's delay
)

var opNames = [...]string{"", "load", "wait", "store", "store_plain", "read", "write", "flip", "drain", "discard", "delay", "deliver"}

// Sites lists the fault sites of its own that the program declared
// (program.SiteDeclarer): the runtime lets it hit those and the generic ones.
func (in *Instance) Sites() []fault.Site { return in.prog.siteList }

// Step runs the program up to its next memory operation, after doing the
// one it stopped at.
func (in *Instance) Step(env program.Env) program.Next {
	in.env = env
	defer func() { in.env = nil }()
	if in.ended {
		return program.Retire(errors.New(in.prog.Name() + " stepped after it retired"))
	}
	if in.m == nil {
		return in.begin()
	}
	res, next, stop := in.effect(env)
	if stop && next.Kind() == program.NextRetire {
		return in.end(next, true)
	}
	if stop {
		return next
	}
	return in.resume(res)
}

// begin takes a machine and starts the program's function on its thread,
// whose environment (getfenv(0)) is the invocation's.
func (in *Instance) begin() program.Next {
	m, err := in.prog.take(in.cfg.Context)
	if err != nil {
		in.ended = true
		return program.Retire(err)
	}
	in.m = m
	m.setContext(in.cfg.Context)
	m.reseed(in.cfg.Seed)
	run, err := m.fresh(runEntry)
	if err != nil {
		return in.end(program.Retire(err), true)
	}
	if m.th == nil {
		th, cancel := m.L.NewThread()
		if cancel != nil {
			cancel() // the child context NewThread derives is replaced
		}
		m.th = th
	}
	// A thread whose function returned is marked dead, its stack empty:
	// Resume starts the next function on it once it is not.
	m.th.Dead = false
	m.th.Env, in.run = run.Env, run
	args := m.argsOf(in.cfg.Args)
	in.p = m.newP(in, args)
	return in.resume([]lua.LValue{in.p, args})
}

// resume resumes the program's thread with results (the operation's
// results, or the function's arguments) and returns what it stopped at.
func (in *Instance) resume(results []lua.LValue) program.Next {
	m := in.m
	in.pending, in.next = pendingOp{}, program.Next{}
	m.run = in
	st, err := m.resumeThread(in.env, in.run, results)
	m.run = nil
	switch {
	case err != nil && stopping(in.env):
		return in.end(program.Retire(in.env.ResetError()), true)
	case err != nil:
		text := m.errorText(err)
		if text == callstackOverflow {
			text = "stack overflow" // Lua 5.1's words
		}
		msg := truncateMessage(m.budgetText(err, text)) + traceback(m.th)
		return in.end(program.Retire(errors.New(msg)), true)
	case in.misuse != "":
		return in.end(program.Retire(errors.New(in.misuse)), true)
	case st == lua.ResumeOK:
		// The function returned: the thread's stack is empty, and the
		// next invocation may start its own function on it.
		in.ended = true
		in.prog.give(m)
		return program.Retire(nil)
	}
	switch in.next.Kind() {
	case program.NextRetire, program.NextHang:
		return in.end(in.next, true)
	}
	return in.next
}

// Stopped gives the invocation's machine back when a device reset stopped
// it mid-program (program.Stopper), the state kept for the next
// invocation.
func (in *Instance) Stopped() {
	if in.ended || in.m == nil {
		in.ended = true
		return
	}
	in.end(program.Next{}, true)
}

// end retires the invocation with next and gives its machine back, when
// keep says it is fit to run another. A thread stopped inside the program
// (at a retirement, a hang or a reset) is ended where it stopped
// (lua51.Unwind) and kept when that leaves it empty, which it does when
// the program's function itself called the operation; otherwise (an
// error, or an operation called deeper) it is dropped, and no later
// invocation reaches its frames.
func (in *Instance) end(next program.Next, keep bool) program.Next {
	in.ended = true
	if th := in.m.th; th != nil && !lua51.Unwind(in.m.L, th) {
		in.m.th = nil
	}
	if keep {
		in.prog.give(in.m)
	}
	return next
}

// effect does the operation the program stopped at and returns its
// results. stop is true when next comes first (the run fault at the
// observation of a decision).
func (in *Instance) effect(env program.Env) (res []lua.LValue, next program.Next, stop bool) {
	op := in.pending
	m := in.m
	switch op.kind {
	case opLoad, opWait:
		v := op.view.Load(op.off)
		if op.buf < 0 && op.off == 0 {
			seen, next, stop := in.observer.Read(env, v)
			if stop {
				if next.Kind() == program.NextSleep {
					in.pending = pendingOp{kind: opDeliver, seen: seen}
				}
				return nil, next, true
			}
			v = seen
		}
		return in.word(v), program.Next{}, false
	case opDeliver:
		return in.word(op.seen), program.Next{}, false
	case opStore:
		op.view.Store(op.off, op.val)
	case opStorePlain:
		op.view.StorePlain(op.off, op.val)
	case opWrite:
		op.view.WritePlain(op.off, op.words)
	case opRead:
		t := op.into
		for i := 0; i < op.n; i++ {
			w := op.view.Load(op.off + 4*i)
			in.mix(uint64(w))
			t.RawSetInt(i+1, lua.LNumber(w))
		}
		m.one[0] = t
		return m.one[:], program.Next{}, false
	case opFlip:
		op.view.Flip(op.off, op.val)
	case opDrain:
		n := op.view.Drain()
		return in.word(uint32(n)), program.Next{}, false
	case opDiscard:
		op.view.Discard()
	}
	return m.none, program.Next{}, false
}

// word is one result, a word, mixed into the history.
func (in *Instance) word(v uint32) []lua.LValue {
	in.mix(uint64(v))
	in.m.one[0] = lua.LNumber(v)
	return in.m.one[:]
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// mix adds v to the history of what the program was given: with the
// arguments, that is everything its next steps depend on.
func (in *Instance) mix(v uint64) {
	for range 8 {
		in.history = (in.history ^ (v & 0xff)) * fnvPrime
		v >>= 8
	}
}

// mixString adds s to the history.
func (in *Instance) mixString(s string) {
	h := fnv.New64a()
	h.Write([]byte(s))
	in.mix(h.Sum64())
}

// HashState adds what the program does next to h, for a model checker's
// state hash: the hash of everything it was given so far (its arguments
// are the session's), the operation it stopped at, how it reads the
// decision, and its views' pending stores.
func (in *Instance) HashState(h *program.StateHash) {
	h.Add(in.history)
	op := in.pending
	h.Add(uint64(op.kind)<<56 | uint64(uint32(op.buf))<<24 | uint64(op.off))
	h.Add(uint64(op.val)<<32 | uint64(op.seen))
	h.Add(uint64(op.d))
	for _, w := range op.words {
		h.Add(uint64(w))
	}
	h.Add(boolWord(in.observer.Seen())<<1 | boolWord(in.observer.Ignoring()))
	in.cfg.Startup.HashState(h)
	for _, b := range in.cfg.Buffers {
		b.View.HashState(h)
	}
}

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// checkedInstance is an Instance of a program that checks its own results.
type checkedInstance struct{ *Instance }

// Check runs the program's check once the session retired under RUN.
func (c *checkedInstance) Check() error { return c.Instance.check() }
