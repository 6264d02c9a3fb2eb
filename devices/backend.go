package devices

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/residentlua/residentlua/devices/fault"
)

// Backend opens the real hardware behind a fabric's GPU. A hardware package
// registers one under a name when it is imported, as a database/sql driver
// does (backends/cuda registers "cuda"), and NewFabricWith finds it by that
// name; a program that does not import the package does not link it.
type Backend interface {
	// Open readies the hardware for one fabric, which closes it. Closing
	// what it returns must be safe twice: NewFabricWith closes it when the
	// fabric could not be made, and the fabric may have closed it already.
	Open() (Accelerator, error)
}

// SimBackend names the simulated GPU, which every build has and no package
// registers.
const SimBackend = "sim"

// backends is the registry of RegisterBackend; its lock is taken alone.
var backends struct {
	sync.RWMutex
	byName map[string]Backend
}

// RegisterBackend makes b available under name to NewFabricWith. Hardware
// packages call it from an init function. It panics when b is nil, when
// name is empty or "sim", or when name is already registered: each is a
// mistake in the program, not in its input.
func RegisterBackend(name string, b Backend) {
	if b == nil {
		panic("devices: RegisterBackend of a nil backend")
	}
	if name == "" || name == SimBackend {
		panic("devices: RegisterBackend needs a name other than \"\" and \"sim\", got " + strconv.Quote(name))
	}
	backends.Lock()
	defer backends.Unlock()
	if _, dup := backends.byName[name]; dup {
		panic("devices: RegisterBackend called twice for " + strconv.Quote(name))
	}
	if backends.byName == nil {
		backends.byName = map[string]Backend{}
	}
	backends.byName[name] = b
}

// Backends lists the GPU backends this program has: "sim" first, then the
// registered ones in alphabetical order.
func Backends() []string {
	backends.RLock()
	defer backends.RUnlock()
	names := make([]string, 0, len(backends.byName))
	for name := range backends.byName {
		names = append(names, name)
	}
	slices.Sort(names)
	return append([]string{SimBackend}, names...)
}

// CheckBackend says what is wrong with a backend name: nil for "" (the
// simulated GPU), "sim" and every registered name; otherwise an invalid
// error that lists the names there are.
func CheckBackend(name string) error {
	_, err := lookupBackend(name)
	return err
}

// lookupBackend finds a registered backend; nil (and no error) for the
// simulated GPU.
func lookupBackend(name string) (Backend, error) {
	if name == "" || name == SimBackend {
		return nil, nil
	}
	backends.RLock()
	b := backends.byName[name]
	backends.RUnlock()
	if b == nil {
		return nil, Errorf(KindInvalid, "fabric", "unknown GPU backend %q; use %s", name, quotedChoices(Backends()))
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
		return nil, Errorf(KindInvalid, "fabric", "the %s backend is a real GPU, which runs in real time; use mode \"realtime\"", backend)
	}
	if cfg.NoFineGrained {
		return nil, Errorf(KindInvalid, "fabric", "fine_grained = false (NoFineGrained) does not apply to the %s backend, whose memory is always pinned; leave it out", backend)
	}
	devs := cfg.Devices
	if devs == nil {
		devs = DefaultDevices()
	}
	devs = slices.Clone(devs)
	gpu := slices.IndexFunc(devs, func(d DeviceConfig) bool { return d.Kind == GPU })
	if gpu < 0 {
		return nil, Errorf(KindInvalid, "fabric", "the %s backend needs a GPU in the fabric", backend)
	}
	if devs[gpu].Accelerator != nil {
		return nil, Errorf(KindInvalid, "fabric", "the GPU already has an accelerator (%s); leave Accelerator unset for the %s backend", devs[gpu].Accelerator.Describe(), backend)
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

// FaultSupport is an optional interface of an Accelerator whose hardware
// cannot honour some fault sites (on a GPU whose kernel writes the payload
// slots itself, payload.corrupt has nothing to corrupt). An accelerator
// without it supports every site.
type FaultSupport interface {
	// UnsupportedFault says why site cannot fire on this hardware, or ""
	// when it can.
	UnsupportedFault(site fault.Site) string
}

// CheckFault says whether site can fire on the fabric's devices: nil, or an
// invalid error that names the hardware and says why not. Set a site's
// chain to anything but "off" only after asking.
func (f *Fabric) CheckFault(site fault.Site) error {
	for _, d := range f.devices {
		fs, ok := d.accel.(FaultSupport)
		if !ok {
			continue
		}
		if why := fs.UnsupportedFault(site); why != "" {
			return Errorf(KindInvalid, "fault", "%s does not apply to a real GPU (%s): %s", site, d.accel.Describe(), why)
		}
	}
	return nil
}
