package devices

import (
	"slices"

	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
)

// lookupBackend finds a registered backend (backend.Check says what is
// wrong with a name); nil, and no error, for the simulated GPU.
func lookupBackend(name string) (backend.Backend, error) {
	if err := backend.Check(name); err != nil {
		return nil, err
	}
	b, _ := backend.Lookup(name)
	return b, nil
}

// NewFabricWith makes a fabric from cfg whose first GPU is the named
// backend's hardware, opened for this fabric alone (the fabric closes it);
// "" or "sim" makes it with NewFabric as it is. A hardware backend runs in
// real time (a zero Mode becomes RealTime) and its memory is always pinned,
// so NoFineGrained does not apply to it.
func NewFabricWith(cfg Config, backend string) (*Fabric, error) {
	b, err := lookupBackend(backend)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return NewFabric(cfg)
	}
	if cfg.Mode == Simulated {
		return nil, failure.Errorf(failure.Invalid, "fabric", "the %s backend is a real GPU, which runs in real time; use mode \"realtime\"", backend)
	}
	if cfg.NoFineGrained {
		return nil, failure.Errorf(failure.Invalid, "fabric", "fine_grained = false (NoFineGrained) does not apply to the %s backend, whose memory is always pinned; leave it out", backend)
	}
	devs := cfg.Devices
	if devs == nil {
		devs = DefaultDevices()
	}
	devs = slices.Clone(devs)
	gpu := slices.IndexFunc(devs, func(d DeviceConfig) bool { return d.Kind == GPU })
	if gpu < 0 {
		return nil, failure.Errorf(failure.Invalid, "fabric", "the %s backend needs a GPU in the fabric", backend)
	}
	if devs[gpu].Accelerator != nil {
		return nil, failure.Errorf(failure.Invalid, "fabric", "the GPU already has an accelerator (%s); leave Accelerator unset for the %s backend", devs[gpu].Accelerator.Describe(), backend)
	}
	accel, err := b.Open()
	if err != nil {
		return nil, err
	}
	devs[gpu].Accelerator = accel
	cfg.Devices = devs
	cfg.Mode = RealTime
	f, err := NewFabric(cfg)
	if err != nil {
		_ = accel.Close() // NewFabric closes only what it attached
		return nil, err
	}
	return f, nil
}

// CheckFault says whether site can fire on the fabric's devices: nil, or an
// invalid error that names the hardware and says why not. Set a site's
// chain to anything but "off" only after asking.
func (f *Fabric) CheckFault(site fault.Site) error {
	for _, d := range f.devices {
		fs, ok := d.accel.(backend.FaultSupport)
		if !ok {
			continue
		}
		if why := fs.UnsupportedFault(site); why != "" {
			return failure.Errorf(failure.Invalid, "fault", "%s does not apply to a real GPU (%s): %s", site, d.accel.Describe(), why)
		}
	}
	return nil
}
