package devices

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/memory"
)

// Mode selects the executor that runs device programs.
type Mode uint8

// Executor modes.
const (
	// Simulated runs every device step on the caller's goroutine against a
	// virtual clock, in an order drawn from the seed: reproducible byte for byte.
	Simulated Mode = iota + 1
	// RealTime runs each device on its own goroutine against the wall clock.
	RealTime
)

// String is "sim" or "realtime".
func (m Mode) String() string {
	switch m {
	case Simulated:
		return "sim"
	case RealTime:
		return "realtime"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode reads "sim" or "realtime".
func ParseMode(name string) (Mode, error) {
	switch name {
	case "sim":
		return Simulated, nil
	case "realtime":
		return RealTime, nil
	}
	return 0, Errorf(KindInvalid, "fabric", "unknown mode %q; use \"sim\" or \"realtime\"", name)
}

// DeviceConfig describes one device of a fabric.
type DeviceConfig struct {
	Name     string // defaults to kind and index, "gpu0"
	Kind     DeviceKind
	Families []Command // queue families in ordinal order
	// Accelerator, for a GPU, is real hardware behind it (devices/cuda),
	// which programs may run on; nil simulates it. The fabric closes it.
	Accelerator Accelerator
}

// DefaultDevices is one GPU (PM4, AQL, SDMA) and one NPU (XDNA).
func DefaultDevices() []DeviceConfig {
	return []DeviceConfig{
		{Name: "gpu0", Kind: GPU, Families: []Command{PM4, AQL, SDMA}},
		{Name: "npu0", Kind: NPU, Families: []Command{XDNA}},
	}
}

// defaultDevices is DefaultDevices for NewFabric, which only reads it:
// made once rather than per fabric.
var defaultDevices = DefaultDevices()

// DefaultBudget is the memory budget of a fabric that sets none: 1 GiB.
const DefaultBudget = 1 << 30

// Config says how to make a fabric. The zero value of every field means its default.
type Config struct {
	Mode          Mode           // default RealTime
	Wait          WaitPolicy     // how real-time waits pass; default WaitHybrid; ignored in simulated time
	Seed          uint64         // 0 picks one; Fabric.Seed reports it
	Timing        Timing         // default IdealTiming
	Budget        int64          // bytes; default DefaultBudget
	Devices       []DeviceConfig // default DefaultDevices
	NoFineGrained bool           // offer no fine-grained memory (startup must then fail)
	EventCapacity int            // events kept in the ring; default 1<<16
	// EventBuffer, when its capacity is at least EventCapacity, is used as
	// the ring's storage instead of allocating one, so that a caller making
	// many short-lived fabrics (a campaign) can reuse it. The caller must
	// leave it alone until the fabric is closed and its events are read.
	EventBuffer []Event
	// Chooser, in simulated time, decides every nondeterministic choice of
	// the fabric: the order of steps, fault probabilities, when host
	// releases land and whether deadlines pass first (docs/checking.md).
	// Nil is the seeded chooser: the seed decides, as it always has.
	Chooser Chooser
}

// Fabric holds the devices, the memory and its budget, the clock, the fault
// plane and the event stream. It is safe for concurrent use.
type Fabric struct {
	mu           sync.Mutex
	mode         Mode
	wait         WaitPolicy
	seed         uint64
	timing       Timing
	devices      []*Device
	budget       *MemoryBudget
	arena        memory.Arena // what buffers of host profiles other than pinned are carved from
	faults       *fault.Plane
	events       *Stream
	exec         executor
	ids          atomic.Uint64 // buffers and invocations
	owners       atomic.Uint64 // owners: sessions
	quarantines  []*Quarantined
	lingering    atomic.Int64 // quarantines waiting only for programs to retire
	fineGrained  bool
	closed       bool
	parts        *fabricParts // what the fabric is part of, until it is recycled
	invocations  slab[dispatched]
	buffers      slab[allocated]
	prepared     slab[Prepared]
	views        slab[View]
	publications slab[Publication]
	profiles     slab[profiled]
	lines        slab[lineAllocated]
}

// NewFabric makes a fabric from cfg.
func NewFabric(cfg Config) (*Fabric, error) {
	if cfg.Mode == 0 {
		cfg.Mode = RealTime
	}
	if cfg.Mode != Simulated && cfg.Mode != RealTime {
		return nil, Errorf(KindInvalid, "fabric", "unknown mode %d", cfg.Mode)
	}
	if cfg.Devices == nil {
		cfg.Devices = defaultDevices
	}
	if err := checkWait(cfg.Wait, cfg.Mode, len(cfg.Devices)); err != nil {
		return nil, err
	}
	if cfg.Seed == 0 {
		cfg.Seed = rand.Uint64()>>12 + 1
	}
	if cfg.Budget == 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.Budget < 0 {
		return nil, Errorf(KindInvalid, "fabric", "budget of %d bytes is negative; give a positive number of bytes", cfg.Budget)
	}
	if err := validateTiming(&cfg.Timing); err != nil {
		return nil, err
	}
	if cfg.Chooser != nil && cfg.Mode != Simulated {
		return nil, Errorf(KindInvalid, "fabric", "a chooser decides the choices of simulated time; use the sim mode with it")
	}
	if cfg.EventCapacity <= 0 {
		cfg.EventCapacity = 1 << 16
	}
	parts := newFabricParts(len(cfg.Devices))
	f := &parts.fabric
	f.parts = parts
	f.mode, f.wait, f.seed, f.timing, f.fineGrained = cfg.Mode, cfg.Wait, cfg.Seed, cfg.Timing, !cfg.NoFineGrained
	parts.faults.Reseed(cfg.Seed)
	f.faults = &parts.faults
	parts.budget.limit = cfg.Budget
	f.budget = &parts.budget
	counts := map[DeviceKind]int{}
	for i, dc := range cfg.Devices {
		if dc.Kind != GPU && dc.Kind != NPU {
			return nil, Errorf(KindInvalid, "fabric", "device %d has no kind; use GPU or NPU", i)
		}
		name := dc.Name
		if name == "" {
			name = fmt.Sprintf("%s%d", dc.Kind, counts[dc.Kind])
		}
		counts[dc.Kind]++
		for _, other := range f.devices {
			if other.name == name {
				return nil, Errorf(KindInvalid, "fabric", "two devices are named %s; give each device its own name", name)
			}
		}
		if dc.Accelerator != nil && dc.Kind != GPU {
			return nil, Errorf(KindInvalid, "fabric", "device %s is an %s; only a GPU can have an accelerator", name, dc.Kind)
		}
		if dc.Accelerator != nil && cfg.Mode != RealTime {
			return nil, Errorf(KindInvalid, "fabric", "device %s is real hardware (%s), which runs in real time; use the realtime mode", name, dc.Accelerator.Describe())
		}
		d := &parts.devs[i]
		d.fabric, d.actor, d.name, d.kind, d.accel = f, Actor(i+1), name, dc.Kind, dc.Accelerator
		d.families = slices.Grow(d.families[:0], len(dc.Families))[:len(dc.Families)]
		if cap(d.labels) < len(dc.Families) {
			d.labels = make([]string, len(dc.Families))
		}
		d.labels = d.labels[:len(dc.Families)]
		for ord, c := range dc.Families {
			d.families[ord] = QueueFamily{Ordinal: ord, Command: c}
			if !isLabel(d.labels[ord], name, c) { // a recycled device's label is made once
				d.labels[ord] = name + " " + c.String()
			}
		}
		f.devices = append(f.devices, d)
	}
	var clock func() time.Duration
	if cfg.Mode == Simulated {
		parts.sim.init(f, cfg.Seed, cfg.Chooser)
		if cfg.Chooser != nil {
			parts.faults.SetDecider(faultDecider(cfg.Chooser))
		}
		f.exec = &parts.sim
		if parts.simNow == nil {
			parts.simNow = parts.sim.now
		}
		clock = parts.simNow
	}
	f.events = &parts.events
	if cfg.Mode != Simulated {
		f.exec = newRealTimeExecutor(f) // its devices log into f.events
		clock = f.exec.now
	}
	parts.events.init(cfg.EventCapacity, cfg.EventBuffer, clock)
	for _, d := range f.devices {
		if d.accel == nil {
			continue
		}
		if err := d.accel.Attach(f.exec.now); err != nil {
			f.Close()
			return nil, Errorf(KindDevice, "fabric", "%s (%s) could not start: %w", d.name, d.accel.Describe(), err)
		}
	}
	return f, nil
}

// isLabel reports whether label is "name command".
func isLabel(label, name string, c Command) bool {
	cmd := c.String()
	return len(label) == len(name)+1+len(cmd) && label[:len(name)] == name && label[len(name)] == ' ' && label[len(name)+1:] == cmd
}

// fabricParts is a fabric and the parts it always has, made in one
// allocation, and reused after Recycle: a campaign makes a fabric per trial.
type fabricParts struct {
	fabric Fabric
	budget MemoryBudget
	// The host writes the stream's counters and digest while devices run,
	// and real-time devices read the fault plane at every fault site: the
	// pads keep those on lines of their own.
	_      cpu.CacheLinePad
	events Stream
	_      cpu.CacheLinePad
	faults fault.Plane
	sim    simExecutor          // unused in real time
	devs   []Device             // what fabric.devices points into
	simNow func() time.Duration // sim.now, bound once: the parts stay at one address
}

// spareParts keeps the parts of recycled fabrics for NewFabric.
var spareParts sync.Pool

// newFabricParts returns zeroed parts for a fabric of n devices: a
// recycled fabric's, keeping the storage of its slices, or new ones.
func newFabricParts(n int) *fabricParts {
	p, ok := spareParts.Get().(*fabricParts)
	if !ok {
		p = &fabricParts{}
	}
	devs, devices := p.devs, p.fabric.devices
	active, ready, subs, emit, simNow := p.sim.active, p.sim.ready, p.events.subs, p.events.emit, p.simNow
	held := p.events.held
	invocations, buffers := p.fabric.invocations.storage(), p.fabric.buffers.storage()
	prepared, views, publications := p.fabric.prepared.storage(), p.fabric.views.storage(), p.fabric.publications.storage()
	profiles, lines := p.fabric.profiles.storage(), p.fabric.lines.storage()
	*p = fabricParts{}
	p.fabric.invocations.items, p.fabric.buffers.items = invocations, buffers
	p.fabric.prepared.items, p.fabric.views.items, p.fabric.publications.items = prepared, views, publications
	p.fabric.profiles.items, p.fabric.lines.items = profiles, lines
	devs = devs[:cap(devs)]
	for i := range devs {
		devs[i] = Device{families: devs[i].families[:0], labels: devs[i].labels} // NewFabric fills in the rest
	}
	p.devs = slices.Grow(devs[:0], n)[:n]
	p.fabric.devices = slices.Grow(devices[:0], n)
	p.sim.active, p.sim.ready, p.events.subs, p.events.emit, p.simNow = active[:0], ready[:0], subs[:0], emit, simNow
	p.events.held = held[:0]
	return p
}

// Recycle closes the fabric, as Close does, and lets a later NewFabric
// reuse its memory: for callers that make many short-lived fabrics, such
// as a campaign's trials. Afterwards the caller must not use the fabric nor
// anything it returned (devices, profiles, buffers, the stream, the fault
// plane), and nothing may still refer to them. A fabric in real time, or
// one that still holds memory (a buffer not released, a quarantine), is
// only closed.
func (f *Fabric) Recycle() {
	f.Close()
	f.mu.Lock()
	p := f.parts
	f.parts = nil // a second Recycle only closes
	held := len(f.quarantines) > 0
	f.mu.Unlock()
	if f.mode != Simulated || p == nil || held || !f.arena.Empty() || f.budget.State().Charged != 0 {
		return
	}
	clear(p.sim.active[:cap(p.sim.active)])
	clear(p.sim.ready[:cap(p.sim.ready)])
	clear(p.events.subs[:cap(p.events.subs)])
	spareParts.Put(p)
}

// Mode is the fabric's executor mode.
func (f *Fabric) Mode() Mode { return f.mode }

// Seed is the seed that drives every random choice of the fabric.
func (f *Fabric) Seed() uint64 { return f.seed }

// Timing is the fabric's timing profile.
func (f *Fabric) Timing() Timing { return f.timing }

// Now is the fabric's clock: virtual time in simulated mode, wall time since
// the fabric was made in real time.
func (f *Fabric) Now() time.Duration { return f.exec.now() }

// Devices lists the devices in configuration order.
func (f *Fabric) Devices() []*Device { return append([]*Device(nil), f.devices...) }

// Device finds a device by name.
func (f *Fabric) Device(name string) (*Device, error) {
	for _, d := range f.devices {
		if d.name == name {
			return d, nil
		}
	}
	return nil, Errorf(KindInvalid, "fabric", "no device named %q", name)
}

// First returns the first device of kind k, or nil.
func (f *Fabric) First(k DeviceKind) *Device {
	for _, d := range f.devices {
		if d.kind == k {
			return d
		}
	}
	return nil
}

// ActorName names an actor: "host" or the device's name.
func (f *Fabric) ActorName(a Actor) string {
	if a == HostActor || int(a) > len(f.devices) {
		return "host"
	}
	return f.devices[a-1].name
}

// Budget is the fabric's memory budget.
func (f *Fabric) Budget() *MemoryBudget { return f.budget }

// Faults is the fabric's fault plane.
func (f *Fabric) Faults() *fault.Plane { return f.faults }

// Events is the fabric's event stream.
func (f *Fabric) Events() *Stream { return f.events }

// NewID returns a fresh identifier, unique in the fabric, for buffers and
// invocations.
func (f *Fabric) NewID() uint64 { return f.ids.Add(1) }

// NewOwnerID returns a fresh owner identifier (what tags the buffers and
// invocations of one client, such as a session): 1, 2, 3, ... in the
// order the owners are made, so that people reading them see no gaps.
func (f *Fabric) NewOwnerID() uint64 { return f.owners.Add(1) }

// Advance lets simulated time pass by d, running every device step that falls
// inside it. In real time it sleeps.
func (f *Fabric) Advance(d time.Duration) {
	f.exec.advance(d)
	f.settleQuarantines() // programs may have retired meanwhile
}

// Close stops every device (as Reset does) and the device threads. Memory
// held by open owners stays mapped; quarantined memory is released once its
// devices are stopped.
func (f *Fabric) Close() {
	for _, d := range f.devices {
		d.Reset()
	}
	f.mu.Lock()
	closed := f.closed
	f.closed = true
	f.mu.Unlock()
	if closed {
		return
	}
	// Not under f.mu: a device goroutine may need it to end a quarantine
	// after its last invocation, and close waits for the goroutines.
	f.exec.close()
	for _, d := range f.devices {
		if d.accel != nil {
			_ = d.accel.Close()
		}
	}
}

// simulated is the fabric's simulated executor, or nil in real time.
func (f *Fabric) simulated() *simExecutor {
	s, _ := f.exec.(*simExecutor)
	return s
}

// landPending lands the host releases in flight (simulated time under an
// explicit chooser) before a host operation that must follow them.
func (f *Fabric) landPending() {
	if s := f.simulated(); s != nil {
		s.landPending()
	}
}

// hitFault evaluates a fault site and, when something fires, records it as an event.
func (f *Fabric) hitFault(actor Actor, session uint64, site fault.Site) fault.Fired {
	return f.hitFaultTo(&hostEvents{stream: f.events}, actor, session, site)
}

// hitFaultTo is hitFault, its event going to events.
func (f *Fabric) hitFaultTo(events *hostEvents, actor Actor, session uint64, site fault.Site) fault.Fired {
	fired := f.faults.Hit(site)
	if fired.Action != fault.None {
		events.emit(actor, session, EvFault, uint64(site), uint64(fired.Action), faultDetail(site, fired.Action))
	}
	return fired
}

// faultDetail names site and action without allocating for the common pairs.
func faultDetail(site fault.Site, a fault.Action) string {
	if int(site) < len(faultNames) && int(a) < len(faultNames[site]) {
		return faultNames[site][a]
	}
	return site.String() + " " + a.String() // a site a program defined
}

var faultNames = func() (names [16][16]string) {
	for _, s := range fault.Sites() {
		for a := fault.Off; a <= fault.Flip; a++ {
			names[s][a] = s.String() + " " + a.String()
		}
	}
	return names
}()
