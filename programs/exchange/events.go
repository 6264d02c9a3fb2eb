package exchange

import "github.com/residentlua/residentlua/devices"

// Event kinds the exchange's programs emit, besides the runtime's own
// (devices.EvDispatch, devices.EvRetire, ...).
var (
	EvPayloadWrite = devices.DefineEvent("payload.write", devices.CategoryRound) // A: invocation, B: generation
	EvPayloadRead  = devices.DefineEvent("payload.read", devices.CategoryRound)  // A: invocation, B: generation
	EvCredit       = devices.DefineEvent("credit", devices.CategoryRound)        // A: invocation, B: generation returned
	EvDrain        = devices.DefineEvent("drain", devices.CategoryRound)         // A: invocation, B: words written back

)
