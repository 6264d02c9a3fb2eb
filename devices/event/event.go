// Package event is the runtime's record of what happened: the events a
// fabric, its devices and their programs emit (Event), who emitted them
// (Actor), the kinds the runtime itself emits, and the fabric's bounded
// stream of them (Stream), with its digest for comparing runs, and the
// times of steps they stamp (Stamp, StampCell; an invocation's Steps).
// Kinds that programs and the engine emit are defined where they are, with
// program.DefineEvent.
package event

import (
	"fmt"
	"time"

	"github.com/residentlua/residentlua/devices/program"
)

// Event kinds the runtime emits.
var (
	EvAlloc          = program.DefineEvent("alloc", program.CategoryMemory)           // A: buffer, B: bytes; Detail: PrivateBudget or empty
	EvRelease        = program.DefineEvent("release", program.CategoryMemory)         // A: buffer, B: bytes; Detail: PrivateBudget or empty
	EvReleaseRefused = program.DefineEvent("release.refused", program.CategoryMemory) // A: buffer, B: bytes; Detail: why
	EvHostStore      = program.DefineEvent("host.store", program.CategoryHost)        // A: buffer, B: value
	EvPublication    = program.DefineEvent("publication", program.CategoryHost)       // A: device actor, B: 0 done, 1 skipped, 2 failed; Detail: device and family
	EvDispatch       = program.DefineEvent("dispatch", program.CategoryDevice)        // A: invocation, B: family ordinal
	EvReach          = program.DefineEvent("reach", program.CategoryDevice)           // A: invocation, B: buffer it can reach
	EvStart          = program.DefineEvent("start", program.CategoryDevice)           // A: invocation
	EvRetire         = program.DefineEvent("retire", program.CategoryDevice)          // A: invocation, B: 0 ok, 1 error; Detail: error
	EvFault          = program.DefineEvent("fault", program.CategoryFault)            // A: site, B: action; Detail: site and action
	EvReset          = program.DefineEvent("reset", program.CategoryDevice)           // A: invocation stopped (0 when idle), B: 1 when teardown failed; Detail: why
	EvQuarantine     = program.DefineEvent("quarantine", program.CategoryMemory)      // A: bytes kept charged to the fabric's budget, B: to other budgets
	EvHold           = program.DefineEvent("quarantine.hold", program.CategoryMemory) // A: a device's actor that the quarantine beginning holds
	EvKeep           = program.DefineEvent("quarantine.keep", program.CategoryMemory) // A: a buffer that the quarantine beginning keeps, B: bytes
	EvQuarantineEnd  = program.DefineEvent("quarantine.end", program.CategoryMemory)  // A: bytes returned to the fabric's budget, B: to other budgets
)

// PrivateBudget is the Detail of alloc and release events of buffers charged
// to a budget other than the fabric's.
const PrivateBudget = "private budget"

// Actor says who acted: the host or a device.
type Actor uint8

// HostActor is the host; devices are 1, 2, ... in fabric order.
const HostActor Actor = 0

// Event is one step of the protocol or of a device.
type Event struct {
	Seq     uint64        // position in the stream, from 1
	Time    time.Duration // since the fabric was made; virtual in simulated time
	Actor   Actor
	Session uint64 // the owner tag of the buffer or program (the engine's session id); 0 if none
	Kind    program.EventKind
	A, B    uint64 // kind-specific numbers, see the kind's comment
	Detail  string
}

// EvPlainRead is a read of a word that another program wrote with a plain
// store which no later release store of that program has published yet
// (the memory model's rule 8), seen in simulated time. A: buffer, B: the
// word's byte offset; Detail: the reader, the writer and the word.
var EvPlainRead = program.DefineEvent("plain.read", program.CategoryDevice)

// Format renders an event as one line, naming actors with names.
func (e Event) Format(names func(Actor) string) string {
	s := fmt.Sprintf("%12v %-5s s%-3d %-16s a=%d b=%d", e.Time, names(e.Actor), e.Session, e.Kind, e.A, e.B)
	if e.Detail != "" {
		s += " " + e.Detail
	}
	return s
}
