// Package fault is the fault plane of the hardware simulator: named sites
// where the model misbehaves on purpose. Each site is configured with a chain
// of failpoint terms in the syntax of pingcap/failpoint and tikv/fail-rs,
// `[p%][N*]action[(arg)]` joined by `->`, for example `50%error(busy)`,
// `1*off->1*hang` or `delay(10us)`.
package fault

import (
	"fmt"
	"strconv"
	"strings"
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

	numSites
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

var siteNames = [numSites]string{
	"gpu.dispatch", "npu.dispatch", "gpu.run", "npu.run", "npu.drain",
	"gpu.complete", "npu.complete", "host.publish", "memory.alloc", "payload.corrupt",
}

var siteActions = [numSites][]Action{
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

// Sites returns all sites, in declaration order.
func Sites() []Site {
	s := make([]Site, numSites)
	for i := range s {
		s[i] = Site(i)
	}
	return s
}

// String returns the site's name, such as "gpu.dispatch".
func (s Site) String() string {
	if s < numSites {
		return siteNames[s]
	}
	return "site(" + strconv.Itoa(int(s)) + ")"
}

// Generic reports whether the site is hit by the runtime or the protocol
// for every program (dispatch, run, completion, publication, allocation),
// rather than consulted by a program of its own accord (npu.drain,
// payload.corrupt, and sites programs define): a fault at a site of a
// program's own may spoil the program's results, so its failed check is no
// violation.
func (s Site) Generic() bool {
	switch s {
	case GPUDispatch, NPUDispatch, GPURun, NPURun, GPUComplete, NPUComplete, HostPublish, MemoryAlloc:
		return true
	}
	return false
}

// ParseSite returns the site with the given name.
func ParseSite(name string) (Site, error) {
	for i, n := range siteNames {
		if n == name {
			return Site(i), nil
		}
	}
	return 0, fmt.Errorf("unknown fault site %q; sites are %s", name, strings.Join(siteNames[:], ", "))
}

// Actions returns the actions allowed at the site, not counting Off, which
// every site allows.
func (s Site) Actions() []Action {
	if s >= numSites {
		return nil
	}
	return append([]Action(nil), siteActions[s]...)
}

func (s Site) allows(a Action) bool {
	if a == Off {
		return true
	}
	for _, b := range siteActions[s] {
		if a == b {
			return true
		}
	}
	return false
}

// allowed lists the site's actions for error messages, Off last.
func (s Site) allowed() string {
	var names []string
	for _, a := range siteActions[s] {
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
