package exchange

import (
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/programs/kernel"
)

// The exchange's own fault sites, which its programs hit of their own
// accord (docs/faults.md). They are defined as the package is initialised,
// before any program of a user's can define one, so they take the numbers
// the fault package keeps free for the first sites programs define.
var (
	// NPUDrain is hit after every round the NPU's program consumes, when
	// its DMA writes the round's result and credit stores out to memory:
	// skip leaves them pending in the NPU until a later drain writes them,
	// and at the last round they are lost.
	NPUDrain = defineSite("npu.drain", fault.Skip)
	// PayloadCorrupt is hit by the GPU's program after it writes each
	// generation's data and before it stores the generation's number: flip
	// XORs one bit of the slot in memory.
	PayloadCorrupt = defineSite("payload.corrupt", fault.Flip)
)

// On a real GPU the exchange's GPU half is a kernel, which writes the slots
// itself: nothing on the host's side can corrupt them in flight, and a
// hardware backend refuses payload.corrupt (kernel.Unsupported).
func init() {
	kernel.Unhonoured(PayloadCorrupt, "the kernel writes the slots itself; see docs/faults.md")
}

// Sites lists the exchange's own sites, in the order of their numbers.
func Sites() []fault.Site { return []fault.Site{NPUDrain, PayloadCorrupt} }

// The sites each half declares (program.SiteDeclarer): the GPU's program
// may corrupt a slot, the NPU's skip a drain, and neither hits the other's.
var (
	gpuSites = []fault.Site{PayloadCorrupt}
	npuSites = []fault.Site{NPUDrain}
)

// Sites lists the GPU half's own fault site, payload.corrupt.
func (p *gpuExchange) Sites() []fault.Site { return gpuSites }

// Sites lists the NPU half's own fault site, npu.drain.
func (p *npuExchange) Sites() []fault.Site { return npuSites }

// defineSite defines one of the exchange's sites; its name and actions are
// fixed here, so an error is a programming error.
func defineSite(name string, a fault.Action) fault.Site {
	s, err := fault.DefineSite(name, a)
	if err != nil {
		panic("exchange: " + err.Error())
	}
	return s
}
