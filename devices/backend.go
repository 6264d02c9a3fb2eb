package devices

import (
	"slices"
	"strconv"
	"strings"

	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
)

// CheckBackend says what is wrong with a backend name: nil for "" (the
// simulated GPU), "sim" and every registered name; otherwise an invalid
// error that lists the names there are.
func CheckBackend(name string) error {
	_, err := lookupBackend(name)
	return err
}

// lookupBackend finds a registered backend; nil (and no error) for the
// simulated GPU.
func lookupBackend(name string) (backend.Backend, error) {
	if name == "" || name == backend.Sim {
		return nil, nil
	}
	b, ok := backend.Lookup(name)
	if !ok {
		return nil, failure.Errorf(failure.Invalid, "fabric", "unknown GPU backend %q; use %s", name, quotedChoices(backend.Names()))
	}
	return b, nil
}

// quotedChoices is `"a", "b" or "c"`.
func quotedChoices(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
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
