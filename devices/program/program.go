// Package program is what a device program is written against: the
// author's side of the devices runtime, as database/sql/driver is the
// driver's side of database/sql. A program is a step machine (Program):
// each Step does a little work through its views (View) and the
// environment of its invocation (Env), and returns what it waits for next
// (Next). Programs never block, sleep or start goroutines themselves: the
// runtime's executors run them, in real time or in simulated time, so one
// program text is correct under both and every interleaving can be
// replayed.
//
// Package devices implements Env and View and runs programs; whoever makes
// fabrics, buffers and sessions uses devices' front. What a program can do
// besides stepping it says through optional interfaces: Starter (work
// started outside the fabric at dispatch, such as a kernel on real
// hardware), Checker (a check of its own results once its session retired
// under RUN). docs/programs.md says how to write one, and
// docs/memory-model.md states the rule each memory operation obeys.
package program

import (
	"time"

	"github.com/residentlua/residentlua/devices/fault"
)

// The protocol's values of the startup word, which the host writes once and
// programs poll: a program acts only once it reads RUN or ABORT.
const (
	StartupWait  uint32 = 0 // no decision yet
	StartupRun   uint32 = 1 // run the exchange
	StartupAbort uint32 = 2 // retire at once, touching nothing else
)

// Program is a device program written as a step machine. Step does a
// little work through its views and says what it waits for next.
type Program interface {
	Step(env Env) Next
}

// Starter is a Program that starts work outside the fabric when it is
// dispatched, such as a kernel on real hardware that the program's steps
// then watch. Dispatch calls Start once, with the invocation's Env, before
// it admits the program, and rejects the dispatch with Start's error. Start
// runs under the fabric's lock: it may use the Env but nothing else of the
// fabric.
type Starter interface {
	Program
	Start(env Env) error
}

// Checker is a Program that checks its own results: once a session under
// RUN saw both of its programs retire, the session calls Check of each
// program that is a Checker, and a failed check is a violation of the
// protocol's invariants unless a fault fired at a site of the program's
// own (one that is not generic, fault.Site.Generic) that explains it.
// Check runs on the host, after the program retired; it reads the program's
// buffers and returns nil when the results are right, or an error that
// says the first thing wrong.
type Checker interface {
	Program
	Check() error
}

// SiteDeclarer is a Program that hits fault sites of its own (fault
// sites a program defined, fault.DefineSite): Sites lists them. A program
// hits the runtime's generic sites and the sites it declares; a hit of any
// other site, one another program declared included, fires nothing.
type SiteDeclarer interface {
	Program
	Sites() []fault.Site
}

// Stopper is a Program that holds something of the host's (a Lua state,
// say) that it gives back when a device reset stops it before it retired.
// Stopped is called once, after the program's last step, and never
// concurrently with a step.
type Stopper interface {
	Program
	Stopped()
}

// Env is what a running program may use besides its views: the clock, the
// timing profile, the fault plane and the event stream of its invocation.
type Env interface {
	// Now is the fabric's time.
	Now() time.Duration
	// Timing is the fabric's timing profile: the latencies the model adds.
	Timing() Timing
	// Emit records an event of kind by this device about this invocation
	// (the event's A is the invocation), with b and detail as the kind
	// defines them.
	Emit(kind EventKind, b uint64, detail string)
	// Fault hits a fault site, recording what fired as an event: a
	// generic site or one the program declares (SiteDeclarer); any other
	// fires nothing.
	Fault(site fault.Site) fault.Fired
	// Ring says that the program wrote memory other programs may wait on
	// outside a view (a kernel on real hardware did), so waiting programs
	// look again: the doorbell a device rings after a write.
	Ring()
	// ResetError is the error of this invocation stopped by a device
	// reset, for a program that learns of the reset itself (a kernel
	// whose hardware was torn down) and retires with it.
	ResetError() error
	// DeviceName is the name of the device running the program, such as
	// "gpu0", for its messages.
	DeviceName() string
	// Interleaved reports whether the executor may run another program's
	// steps between two steps of this one: in simulated time it may, at
	// every memory operation (the seeded schedule, the model checker);
	// in real time a device runs the steps that go on at once back to
	// back. Where it does not, a program may go on within one Step through
	// steps that go on at once (Next.GoesOn), saving a return to the
	// executor for each; it should return after a step that emitted an
	// event, since a Step's events share the time of its first.
	Interleaved() bool
}

// Stopping is an Env that tells whether a device reset is stopping the
// invocation: a program whose step may run long (Lua code of a user's)
// looks, and ends the step, so that the reset never waits on it. Where
// steps are interleaved (Interleaved, simulated time) a reset lands
// between two steps, never during one, so Stopping does not change while
// a step runs.
type Stopping interface {
	Env
	Stopping() bool
}

// View is how one program reaches one buffer through the queue family it
// runs on. Each method obeys a rule of docs/memory-model.md: a coherent
// view (the GPU's) loads and stores memory at once; a non-coherent one
// (the NPU's XDNA DMA) reads lines the host stored into since the last host
// release for its family as they were then, and keeps its own stores
// pending in the device until Drain writes them.
type View interface {
	// Load reads the word at byte offset off (a multiple of 4) as this
	// family sees it (rules 1 and 3).
	Load(off int) uint32
	// Store writes the word at off with release ordering: at once when
	// coherent, waking programs that wait on it, at the next Drain
	// otherwise (rules 1 and 5).
	Store(off int, val uint32)
	// StorePlain writes the word at off as Store does but with no ordering
	// of its own: another program may read it only after it has loaded a
	// later Store of this program (rule 8).
	StorePlain(off int, val uint32)
	// Flip XORs mask into the word at off in memory, with no ordering and
	// no drain: what a corrupting fault does (rule 7).
	Flip(off int, mask uint32)
	// Drain writes the view's pending stores back to memory, in the order
	// they were first made, and returns how many words it wrote (rule 5).
	Drain() int
	// Discard forgets the pending stores, as a device reset or a
	// retirement without draining does (rule 5).
	Discard()
	// Coherent reports whether the view sees memory coherently.
	Coherent() bool
	// Size is the buffer's size in bytes (whole 64-byte lines).
	Size() int
}

// NextKind is what a step asks for: to continue, to wait, or to retire.
type NextKind uint8

// The kinds of Next.
const (
	NextContinue NextKind = iota // step again at once
	NextWaitWord                 // step again once a word changes
	NextSleep                    // step again after a time
	NextHang                     // never step again
	NextRetire                   // the program ended
	NextPoll                     // step again soon, after polling memory no view announces
)

// Next is what a step returns: continue, wait, or retire. The executors
// read it through its methods.
type Next struct {
	kind NextKind
	old  uint32 // WaitWord's
	view View   // WaitWord's
	arg  int64  // WaitWord's offset, or Sleep's duration
	err  error  // Retire's
}

// Continue asks to be stepped again at once.
func Continue() Next { return Next{kind: NextContinue} }

// WaitWord asks to be stepped again once the word at off, as v sees it, no
// longer holds old.
func WaitWord(v View, off int, old uint32) Next {
	return Next{kind: NextWaitWord, view: v, arg: int64(off), old: old}
}

// Sleep asks to be stepped again after d of the fabric's time.
func Sleep(d time.Duration) Next { return Next{kind: NextSleep, arg: int64(d)} }

// Poll asks to be stepped again soon, after a step that found nothing new
// in memory whose writes no view announces (a real device's status block,
// written by hardware). The real-time executor polls, yielding its
// processor, then backs off to naps of up to a millisecond; simulated time
// lets a microsecond pass.
func Poll() Next { return Next{kind: NextPoll} }

// Hang never asks to be stepped again: the program never retires by itself.
func Hang() Next { return Next{kind: NextHang} }

// Retire ends the program, successfully when err is nil.
func Retire(err error) Next { return Next{kind: NextRetire, err: err} }

// Kind is what the step asks for.
func (n Next) Kind() NextKind { return n.kind }

// Word is the word a WaitWord waits on: the view, the offset and the value
// it waits to change from.
func (n Next) Word() (v View, off int, old uint32) { return n.view, int(n.arg), n.old }

// Duration is how long a Sleep lasts.
func (n Next) Duration() time.Duration { return time.Duration(n.arg) }

// GoesOn reports whether the program asks to step again at once: Continue,
// or a Sleep of no time.
func (n Next) GoesOn() bool {
	return n.kind == NextContinue || n.kind == NextSleep && n.arg <= 0
}

// Err is a Retire's error: nil for a clean retirement.
func (n Next) Err() error { return n.err }

// Timing holds the latencies the model adds. Every figure can be set on its
// own; docs/memory-model.md cites the published ones.
type Timing struct {
	AQLDispatch  time.Duration // AQL packet written → kernel starts
	PM4Dispatch  time.Duration // PM4 submission → kernel starts
	XDNADispatch time.Duration // XDNA command → NPU program starts
	HostToGPU    time.Duration // a host store becomes visible to a polling GPU
	NPUDMALine   time.Duration // the NPU moves one 64-byte line by DMA
	Completion   time.Duration // a retirement is noticed by the host
	// Stall, when above zero, makes the devices' timing vary, drawn from
	// the fabric's seed: each step's memory operations cost their figures
	// times a factor from 1/2 to 3/2, and one step in 64 is held up by a
	// further stall of up to Stall (a device preempted, its bus or DMA
	// queue busy). Zero charges every figure exactly.
	Stall time.Duration
}
