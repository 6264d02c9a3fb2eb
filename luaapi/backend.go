package luaapi

import (
	"github.com/residentlua/residentlua/devices"
)

// GPU backends, as resident.fabric{gpu={backend=...}}, Options.GPUBackend
// and the command's --gpu name them: "sim", or a name a hardware package
// registered with devices.RegisterBackend when the program imported it.
const BackendSim = devices.SimBackend // the simulated GPU (default)

// backendOf describes the GPU backend of f: "sim", or the real GPU.
func backendOf(f *devices.Fabric) string {
	if g := f.First(devices.GPU); g != nil && g.Accelerator() != nil {
		return g.Accelerator().Describe()
	}
	return BackendSim
}
