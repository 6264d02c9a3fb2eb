package exchange

import "github.com/residentlua/residentlua/devices"

// Event kinds the exchange's programs emit, besides the runtime's own
// (devices.EvDispatch, devices.EvRetire, ...).
const (
	EvObserve      devices.EventKind = "observe"       // A: invocation, B: decision seen
	EvPayloadWrite devices.EventKind = "payload.write" // A: invocation, B: generation
	EvPayloadRead  devices.EventKind = "payload.read"  // A: invocation, B: generation
	EvCredit       devices.EventKind = "credit"        // A: invocation, B: generation returned
	EvDrain        devices.EventKind = "drain"         // A: invocation, B: words written back

	// A GPU half that runs as a kernel on an accelerator reports the
	// kernel's own clock readings (aligned with the fabric's).
	EvKernelObserve devices.EventKind = "kernel.observe" // A: invocation, B: fabric time in ns when the kernel saw the decision
	EvKernelRetire  devices.EventKind = "kernel.retire"  // A: invocation, B: fabric time in ns when the kernel retired
)
