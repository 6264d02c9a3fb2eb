package exchange

import (
	"github.com/residentlua/residentlua/devices/program"
)

// Event kinds the exchange's programs emit, besides the runtime's own
// (event.EvDispatch, event.EvRetire, ...).
var (
	EvPayloadWrite = program.DefineEvent("payload.write", program.CategoryRound) // A: invocation, B: generation
	EvPayloadRead  = program.DefineEvent("payload.read", program.CategoryRound)  // A: invocation, B: generation
	EvCredit       = program.DefineEvent("credit", program.CategoryRound)        // A: invocation, B: generation returned
	EvDrain        = program.DefineEvent("drain", program.CategoryRound)         // A: invocation, B: words written back

)
