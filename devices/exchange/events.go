package exchange

import "github.com/residentlua/residentlua/devices"

// Event kinds the exchange's programs emit, besides the runtime's own
// (devices.EvDispatch, devices.EvRetire, ...).
var (
	EvPayloadWrite = devices.DefineEvent("payload.write", devices.CategoryRound) // A: invocation, B: generation
	EvPayloadRead  = devices.DefineEvent("payload.read", devices.CategoryRound)  // A: invocation, B: generation
	EvCredit       = devices.DefineEvent("credit", devices.CategoryRound)        // A: invocation, B: generation returned
	EvDrain        = devices.DefineEvent("drain", devices.CategoryRound)         // A: invocation, B: words written back

	// A GPU half that runs as a kernel on an accelerator reports the
	// kernel's own clock readings (aligned with the fabric's).
	EvKernelObserve = devices.DefineEvent("kernel.observe", devices.CategoryDevice) // A: invocation, B: fabric time in ns when the kernel saw the decision
	EvKernelRetire  = devices.DefineEvent("kernel.retire", devices.CategoryDevice)  // A: invocation, B: fabric time in ns when the kernel retired
)
