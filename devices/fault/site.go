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

// Site names a place in the model where a fault can be injected: one of
// the runtime's generic sites, or a site a program defined (DefineSite).
type Site uint32

// The runtime's sites, which it or the protocol hits for every program, in
// the order Sites returns them. docs/faults.md says when each is hit and
// what each action does there. The numbers 4 and 9 are no generic site's:
// they are the first two that programs' sites take (DefineSite), so the
// built-in exchange, which defines npu.drain and payload.corrupt as its
// package is initialised, keeps the numbers its fault events have always
// carried, and with them the digests of its recorded runs.
const (
	// GPUDispatch is hit when the host dispatches a program to a GPU queue,
	// once the dispatch passed its busy checks: error rejects the dispatch,
	// delay adds to its latency.
	GPUDispatch Site = 0
	// NPUDispatch is GPUDispatch for an NPU queue.
	NPUDispatch Site = 1
	// GPURun is hit for a GPU program when it acts on the decision it
	// observed (and by the exchange at the start of every round under RUN).
	// On a real GPU it is hit once, when the kernel is launched, and sets
	// how the kernel behaves.
	GPURun Site = 2
	// NPURun is GPURun for an NPU program.
	NPURun Site = 3
	// GPUComplete is hit when a GPU invocation's completion finishes (a
	// crashed or reset one included): error turns a clean retirement into a
	// device error.
	GPUComplete Site = 5
	// NPUComplete is GPUComplete for an NPU invocation.
	NPUComplete Site = 6
	// HostPublish is hit by each host release publication as the host
	// executes it: a decision is stored in the startup line, then released
	// to each PM4, AQL and XDNA queue family of both devices by one
	// publication each. Error fails that publication (and the later ones
	// are not executed), skip leaves its family without the release; the
	// word is stored either way.
	HostPublish Site = 7
	// MemoryAlloc is hit when a host-accessible buffer is allocated, after
	// its size is checked and before any memory is mapped or charged to the
	// budget.
	MemoryAlloc Site = 8

	firstFree Site = 10 // after the generic sites and the two numbers kept free
	noSite    Site = ^Site(0)
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

// generic holds the runtime's sites by number: their names and actions.
var generic = map[Site]struct {
	name    string
	actions []Action
}{
	GPUDispatch: {"gpu.dispatch", []Action{Error, Delay}},
	NPUDispatch: {"npu.dispatch", []Action{Error, Delay}},
	GPURun:      {"gpu.run", []Action{Hang, Crash, Delay, IgnoreAbort}},
	NPURun:      {"npu.run", []Action{Hang, Crash, Delay, IgnoreAbort}},
	GPUComplete: {"gpu.complete", []Action{Error}},
	NPUComplete: {"npu.complete", []Action{Error}},
	HostPublish: {"host.publish", []Action{Error, Skip}},
	MemoryAlloc: {"memory.alloc", []Action{Error}},
}

var actionNames = [numActions]string{
	"none", "off", "error", "delay", "hang", "crash", "ignore_abort", "skip", "flip",
}

// Sites returns the runtime's generic sites, in the order of their numbers.
func Sites() []Site {
	return []Site{GPUDispatch, NPUDispatch, GPURun, NPURun, GPUComplete, NPUComplete, HostPublish, MemoryAlloc}
}

// every lists every action a site may allow, Off aside.
var every = []Action{Error, Delay, Hang, Crash, IgnoreAbort, Skip, Flip}

// definedSite is a site a program defined.
type definedSite struct {
	name    string
	actions []Action
}

// The sites programs define, numbered in the order they are defined in the
// process: 4 and 9 first, then from firstFree on, with no limit.
var defined struct {
	sync.RWMutex
	sites  map[Site]definedSite
	byName map[string]Site
	next   Site
}

// sitePattern is what a defined site's name looks like: lower-case words
// joined by dots, such as "stream.drop".
var sitePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)

// DefineSite defines a site of a program's own, named like the runtime's
// ("stream.drop"), where actions may be set (every action when none is
// given): the program that hits it decides what each does. Defining a name
// again returns the same site, with the actions it was first defined with.
// It refuses a generic site's name and a malformed name.
func DefineSite(name string, actions ...Action) (Site, error) {
	for s, g := range generic {
		if g.name == name {
			return s, fmt.Errorf("%s is a site of the runtime; give a site of your program's own a name of its own, such as stream.%s", name, strings.ReplaceAll(name, ".", "_"))
		}
	}
	if len(name) > 40 || !sitePattern.MatchString(name) {
		return 0, fmt.Errorf("fault site %q: name a site with lower-case words joined by dots, such as stream.drop, at most 40 bytes", name)
	}
	for _, a := range actions {
		if !slices.Contains(every, a) {
			return 0, fmt.Errorf("fault site %s: %v is no action a site may allow", name, a)
		}
	}
	defined.Lock()
	defer defined.Unlock()
	if s, ok := defined.byName[name]; ok {
		return s, nil
	}
	if defined.sites == nil {
		defined.sites, defined.byName = map[Site]definedSite{}, map[string]Site{}
	}
	var s Site
	switch len(defined.sites) {
	case 0:
		s = 4
	case 1:
		s = 9
	default:
		s = firstFree + Site(len(defined.sites)-2)
	}
	if len(actions) == 0 {
		actions = every
	}
	defined.sites[s] = definedSite{name: name, actions: slices.Clone(actions)}
	defined.byName[name] = s
	return s, nil
}

// lookup returns a defined site's name and actions.
func lookup(s Site) (definedSite, bool) {
	defined.RLock()
	defer defined.RUnlock()
	d, ok := defined.sites[s]
	return d, ok
}

// String returns the site's name, such as "gpu.dispatch".
func (s Site) String() string {
	if g, ok := generic[s]; ok {
		return g.name
	}
	if d, ok := lookup(s); ok {
		return d.name
	}
	return "site(" + strconv.FormatUint(uint64(s), 10) + ")"
}

// ParseSite returns the site with the given name: a generic site or one a
// program defined.
func ParseSite(name string) (Site, error) {
	for _, s := range Sites() {
		if generic[s].name == name {
			return s, nil
		}
	}
	defined.RLock()
	defer defined.RUnlock()
	if s, ok := defined.byName[name]; ok {
		return s, nil
	}
	var known []string
	for _, s := range Sites() {
		known = append(known, generic[s].name)
	}
	msg := strings.Join(known, ", ")
	if len(defined.byName) > 0 {
		var names []string
		for n := range defined.byName {
			names = append(names, n)
		}
		slices.Sort(names)
		msg += "; sites programs defined: " + strings.Join(names, ", ")
	}
	return 0, fmt.Errorf("unknown fault site %q; sites are %s", name, msg)
}

// Generic reports whether the site is hit by the runtime or the protocol
// for every program (dispatch, run, completion, publication, allocation),
// rather than consulted by a program of its own accord (a site a program
// defined, such as the exchange's npu.drain): a fault at a site of a
// program's own may spoil the program's results, so its failed check is no
// violation.
func (s Site) Generic() bool {
	switch s {
	case GPUDispatch, NPUDispatch, GPURun, NPURun, GPUComplete, NPUComplete, HostPublish, MemoryAlloc:
		return true
	}
	return false
}

// Defined reports whether s is a site: generic, or defined by a program.
func (s Site) Defined() bool {
	if s.Generic() {
		return true
	}
	_, ok := lookup(s)
	return ok
}

// Actions returns the actions allowed at the site, not counting Off, which
// every site allows.
func (s Site) Actions() []Action {
	if g, ok := generic[s]; ok {
		return slices.Clone(g.actions)
	}
	if d, ok := lookup(s); ok {
		return slices.Clone(d.actions)
	}
	return nil
}

func (s Site) allows(a Action) bool {
	if a == Off {
		return true
	}
	if g, ok := generic[s]; ok {
		return slices.Contains(g.actions, a)
	}
	d, ok := lookup(s)
	return ok && slices.Contains(d.actions, a)
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
