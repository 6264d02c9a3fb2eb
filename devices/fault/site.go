// Package fault is the fault plane of the hardware simulator: named sites
// where the model misbehaves on purpose. Each site is configured with a chain
// of failpoint terms in the syntax of pingcap/failpoint and tikv/fail-rs,
// `[p%][N*]action[(arg)]` joined by `->`, for example `50%error(busy)`,
// `1*off->1*hang` or `delay(10us)`.
package fault

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Site names a place in the model where a fault can be injected.
type Site uint8

// The fault sites, in the order Sites returns them. docs/faults.md says
// when each is hit and what each action does there.
const (
	// GPUDispatch is hit when the host dispatches a program to a GPU queue,
	// once the dispatch passed its busy checks: error rejects the dispatch,
	// delay adds to its latency.
	GPUDispatch Site = iota
	// NPUDispatch is GPUDispatch for an NPU queue.
	NPUDispatch
	// GPURun is hit by the GPU's exchange program when it acts on the
	// decision it observed, and at the start of every round under RUN. On a
	// real GPU it is hit once, when the kernel is launched, and sets how the
	// kernel behaves.
	GPURun
	// NPURun is hit by the NPU's exchange program when it acts on the
	// decision it observed, and at the start of every round under RUN.
	NPURun
	// NPUDrain is hit after every round the NPU's exchange program
	// consumes, when its DMA writes the round's result and credit stores
	// out to memory: skip leaves them pending in the NPU until a later
	// drain writes them, and at the last round they are lost.
	NPUDrain
	// GPUComplete is hit when a GPU invocation's completion finishes (a
	// crashed or reset one included): error turns a clean retirement into a
	// device error.
	GPUComplete
	// NPUComplete is GPUComplete for an NPU invocation.
	NPUComplete
	// HostPublish is hit by each host release publication as the host
	// executes it: a decision is stored in the startup line, then released
	// to each PM4, AQL and XDNA queue family of both devices by one
	// publication each. Error fails that publication (and the later ones
	// are not executed), skip leaves its family without the release; the
	// word is stored either way.
	HostPublish
	// MemoryAlloc is hit when a host-accessible buffer is allocated, after
	// its size is checked and before any memory is mapped or charged to the
	// budget.
	MemoryAlloc
	// PayloadCorrupt is hit by the GPU's exchange program after it writes
	// each generation's data and before it stores the generation's number:
	// flip XORs one bit of the slot in memory.
	PayloadCorrupt

	numSites // the built-in sites; programs define more (DefineSite)

	// MaxSites is how many sites there can be, built-in and defined.
	MaxSites = 64
)

// Action is what a fault term does when it fires.
type Action uint8

// The actions. None is never parsed; it is what Hit reports when nothing fired.
const (
	// None means nothing fired.
	None Action = iota
	// Off fires but does nothing; callers treat it like None.
	Off
	// Error makes the operation fail with the term's message.
	Error
	// Delay makes the operation take the term's extra time.
	Delay
	// Hang makes the operation never finish.
	Hang
	// Crash makes the program retire at once with a device error carrying
	// the term's message.
	Crash
	// IgnoreAbort makes the program keep polling past an ABORT it observed.
	IgnoreAbort
	// Skip makes the operation silently not happen.
	Skip
	// Flip corrupts the payload by flipping a bit in memory.
	Flip

	numActions
)

var builtinNames = [numSites]string{
	"gpu.dispatch", "npu.dispatch", "gpu.run", "npu.run", "npu.drain",
	"gpu.complete", "npu.complete", "host.publish", "memory.alloc", "payload.corrupt",
}

var builtinActions = [numSites][]Action{
	GPUDispatch:    {Error, Delay},
	NPUDispatch:    {Error, Delay},
	GPURun:         {Hang, Crash, Delay, IgnoreAbort},
	NPURun:         {Hang, Crash, Delay, IgnoreAbort},
	NPUDrain:       {Skip},
	GPUComplete:    {Error},
	NPUComplete:    {Error},
	HostPublish:    {Error, Skip},
	MemoryAlloc:    {Error},
	PayloadCorrupt: {Flip},
}

var actionNames = [numActions]string{
	"none", "off", "error", "delay", "hang", "crash", "ignore_abort", "skip", "flip",
}

// Sites returns the built-in sites, in declaration order.
func Sites() []Site {
	s := make([]Site, numSites)
	for i := range s {
		s[i] = Site(i)
	}
	return s
}

// The sites programs define, after the built-in ones, numbered in the
// order they are defined in the process.
var defined struct {
	sync.RWMutex
	names []string
}

// sitePattern is what a defined site's name looks like: lower-case words
// joined by dots, such as "stream.drop".
var sitePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)

// DefineSite defines a site of a program's own, named like the built-in
// ones ("stream.drop"), where every action may be set: the program that
// consults it decides what each does. Defining a name again returns the
// same site. It refuses a built-in site's name, a malformed name, and more
// than MaxSites sites in all.
func DefineSite(name string) (Site, error) {
	if s, err := ParseSite(name); err == nil {
		if s < numSites {
			return 0, fmt.Errorf("%s is a built-in fault site; give a site of your program's own a name of its own, such as stream.%s", name, strings.ReplaceAll(name, ".", "_"))
		}
		return s, nil
	}
	if len(name) > 40 || !sitePattern.MatchString(name) {
		return 0, fmt.Errorf("fault site %q: name a site with lower-case words joined by dots, such as stream.drop, at most 40 bytes", name)
	}
	defined.Lock()
	defer defined.Unlock()
	for i, n := range defined.names {
		if n == name {
			return numSites + Site(i), nil
		}
	}
	if int(numSites)+len(defined.names) >= MaxSites {
		return 0, fmt.Errorf("fault site %s: there are %d sites already, the most a process holds", name, MaxSites)
	}
	defined.names = append(defined.names, name)
	return numSites + Site(len(defined.names)-1), nil
}

// String returns the site's name, such as "gpu.dispatch".
func (s Site) String() string {
	if s < numSites {
		return builtinNames[s]
	}
	defined.RLock()
	defer defined.RUnlock()
	if i := int(s - numSites); i < len(defined.names) {
		return defined.names[i]
	}
	return "site(" + strconv.Itoa(int(s)) + ")"
}

// ParseSite returns the site with the given name: a built-in site or one a
// program defined.
func ParseSite(name string) (Site, error) {
	for i, n := range builtinNames {
		if n == name {
			return Site(i), nil
		}
	}
	defined.RLock()
	defer defined.RUnlock()
	for i, n := range defined.names {
		if n == name {
			return numSites + Site(i), nil
		}
	}
	known := strings.Join(builtinNames[:], ", ")
	if len(defined.names) > 0 {
		known += "; sites programs defined: " + strings.Join(defined.names, ", ")
	}
	return 0, fmt.Errorf("unknown fault site %q; sites are %s", name, known)
}

// Generic reports whether the site is hit by the runtime or the protocol
// for every program (dispatch, run, completion, publication, allocation),
// rather than consulted by a program of its own accord (npu.drain,
// payload.corrupt, and the sites programs define): a fault at a site of a
// program's own may spoil the program's results, so its failed check is no
// violation.
func (s Site) Generic() bool {
	switch s {
	case GPUDispatch, NPUDispatch, GPURun, NPURun, GPUComplete, NPUComplete, HostPublish, MemoryAlloc:
		return true
	}
	return false
}

// Defined reports whether s is a site: built in, or defined by a program.
func (s Site) Defined() bool {
	if s < numSites {
		return true
	}
	defined.RLock()
	defer defined.RUnlock()
	return int(s-numSites) < len(defined.names)
}

// Actions returns the actions allowed at the site, not counting Off, which
// every site allows. A site a program defined allows every action.
func (s Site) Actions() []Action {
	if s >= numSites {
		if !s.Defined() {
			return nil
		}
		return []Action{Error, Delay, Hang, Crash, IgnoreAbort, Skip, Flip}
	}
	return append([]Action(nil), builtinActions[s]...)
}

func (s Site) allows(a Action) bool {
	switch {
	case a == Off:
		return true
	case s >= numSites:
		return a > Off && a < numActions // a site a program defined allows every action
	}
	return slices.Contains(builtinActions[s], a)
}

// allowed lists the site's actions for error messages, Off last.
func (s Site) allowed() string {
	var names []string
	for _, a := range s.Actions() {
		names = append(names, a.String())
	}
	return strings.Join(append(names, "off"), ", ")
}

// String returns the action's name as written in a term, such as "ignore_abort".
func (a Action) String() string {
	if a < numActions {
		return actionNames[a]
	}
	return "action(" + strconv.Itoa(int(a)) + ")"
}

// actionByName returns the parseable action with the name, or None.
func actionByName(name string) Action {
	for a := Off; a < numActions; a++ {
		if actionNames[a] == name {
			return a
		}
	}
	return None
}

func defaultMessage(a Action, s Site) string {
	return "injected " + a.String() + " at " + s.String()
}
