package luaapi

import (
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/backend"
)

// backendOf describes the GPU backend of f: "sim", or the real GPU.
func backendOf(f *devices.Fabric) string {
	if g := f.First(devices.GPU); g != nil && g.Accelerator() != nil {
		return g.Accelerator().Describe()
	}
	return backend.Sim
}
