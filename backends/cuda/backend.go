package cuda

import (
	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/programs/exchange"
)

// BackendName is the name this package registers its backend under when it
// is imported: devices.NewFabricWith(cfg, "cuda") makes a fabric whose GPU
// is a real NVIDIA GPU.
const BackendName = "cuda"

func init() { backend.Register(BackendName, opener{}) }

// opener opens GPU ordinal 0 for each fabric.
type opener struct{}

// Open is Open as a backend.Backend.
func (opener) Open() (backend.Accelerator, error) {
	g, err := Open()
	if err != nil {
		return nil, err // not a nil *GPU inside a non-nil Accelerator
	}
	return g, nil
}

// UnsupportedFault refuses payload.corrupt: the kernel writes the payload
// slots itself, so nothing on the host's side can corrupt them in flight.
func (g *GPU) UnsupportedFault(site fault.Site) string {
	if site == exchange.PayloadCorrupt {
		return "the kernel writes the slots itself; see docs/faults.md"
	}
	return ""
}
