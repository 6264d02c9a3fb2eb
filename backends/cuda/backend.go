package cuda

import (
	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/programs/kernel"
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

// UnsupportedFault refuses the sites that a program's GPU half hits in the
// host's steps, which a kernel running on its own cannot honour, as the
// program registered them (kernel.Unhonoured: the built-in exchange's
// payload.corrupt, whose slots the kernel writes itself).
func (g *GPU) UnsupportedFault(site fault.Site) string {
	return kernel.Unsupported(site)
}
