package program

import (
	"errors"

	"github.com/residentlua/residentlua/devices/fault"
)

// Observer reads the decision from the startup word for a program and
// applies its device's run fault (fault.GPURun or fault.NPURun) the first
// time a load returns a decision, as the runtime does for every program
// written in Lua: hang, the program never goes on; crash, it retires with
// the fault's message; ignore_abort, an ABORT reads as WAIT from then on
// (the program keeps polling, breaking its contract); delay, the program
// goes on after the fault's delay.
type Observer struct {
	site     fault.Site
	seen     bool // a decision was read
	ignoring bool // ignore_abort fired on ABORT
}

// NewObserver is an Observer that hits site when a decision is first read.
func NewObserver(site fault.Site) Observer { return Observer{site: site} }

// Read is what the program sees of v, a word it loaded from the startup
// word. When stop is true the program does next before it goes on (a
// delay: Sleep) or instead of going on (Hang, Retire); after a Sleep it
// goes on with seen.
func (o *Observer) Read(env Env, v uint32) (seen uint32, next Next, stop bool) {
	if o.ignoring && v == StartupAbort {
		return StartupWait, Next{}, false
	}
	if v == StartupWait || o.seen {
		return v, Next{}, false
	}
	o.seen = true
	fired := env.Fault(o.site)
	switch fired.Action {
	case fault.Hang:
		return v, Hang(), true
	case fault.Crash:
		return v, Retire(errors.New(env.DeviceName() + " crashed: " + fired.Message)), true
	case fault.IgnoreAbort:
		if v == StartupAbort {
			o.ignoring = true
			return StartupWait, Next{}, false
		}
	case fault.Delay:
		return v, Sleep(fired.Delay), true
	}
	return v, Next{}, false
}

// WaitFor is the word to wait on for a change, for a program that read old
// (Read's seen) from the startup word: the ABORT that an ignore_abort fault
// hides, rather than the WAIT the program saw.
func (o *Observer) WaitFor(old uint32) uint32 {
	if o.ignoring && old == StartupWait {
		return StartupAbort
	}
	return old
}

// Ignoring reports whether the program reads ABORT as WAIT, for a state
// hash.
func (o *Observer) Ignoring() bool { return o.ignoring }

// Seen reports whether the program read a decision, for a state hash.
func (o *Observer) Seen() bool { return o.seen }
