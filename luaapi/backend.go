package luaapi

import (
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/cuda"
)

// GPU backends, as resident.fabric{gpu={backend=...}}, Options.GPUBackend
// and the command's --gpu name them.
const (
	BackendSim  = "sim"  // the simulated GPU (default)
	BackendCUDA = "cuda" // a real NVIDIA GPU running the GPU half as a resident kernel
)

// checkBackend says what is wrong with a backend name, if anything.
func checkBackend(name string) error {
	switch name {
	case "", BackendSim, BackendCUDA:
		return nil
	}
	return devices.Errorf(devices.KindInvalid, "fabric", "unknown GPU backend %q; use \"sim\" or \"cuda\"", name)
}

// newFabric makes a fabric from cfg whose first GPU is the backend's: the
// simulated one, or a real GPU opened for this fabric alone (the fabric
// closes it).
func newFabric(cfg devices.Config, backend string) (*devices.Fabric, error) {
	if err := checkBackend(backend); err != nil {
		return nil, err
	}
	if backend != BackendCUDA {
		return devices.NewFabric(cfg)
	}
	if cfg.Mode == devices.Simulated {
		return nil, devices.Errorf(devices.KindInvalid, "fabric", "the cuda backend is a real GPU, which runs in real time; use mode \"realtime\"")
	}
	if cfg.NoFineGrained {
		return nil, devices.Errorf(devices.KindInvalid, "fabric", "fine_grained = false does not apply to the cuda backend, whose memory is always pinned; leave it out")
	}
	devs := cfg.Devices
	if devs == nil {
		devs = devices.DefaultDevices()
	}
	devs = append([]devices.DeviceConfig(nil), devs...)
	gpu := -1
	for i, d := range devs {
		if d.Kind == devices.GPU {
			gpu = i
			break
		}
	}
	if gpu < 0 {
		return nil, devices.Errorf(devices.KindInvalid, "fabric", "the cuda backend needs a GPU in the fabric")
	}
	g, err := cuda.Open()
	if err != nil {
		return nil, err
	}
	devs[gpu].Accelerator = g
	cfg.Devices = devs
	f, err := devices.NewFabric(cfg)
	if err != nil {
		_ = g.Close()
		return nil, err
	}
	return f, nil
}

// backendOf describes the GPU backend of f: "sim", or the real GPU.
func backendOf(f *devices.Fabric) string {
	if g := f.First(devices.GPU); g != nil && g.Accelerator() != nil {
		return g.Accelerator().Describe()
	}
	return BackendSim
}
