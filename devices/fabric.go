package devices

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/choice"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/devices/wait"

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
	return 0, failure.Errorf(failure.Invalid, "fabric", "unknown mode %q; use \"sim\" or \"realtime\"", name)
}

// DeviceConfig describes one device of a fabric.
type DeviceConfig struct {
	Name     string // defaults to kind and index, "gpu0"
	Kind     DeviceKind
	Families []Command // queue families in ordinal order
	// Accelerator, for a GPU, is real hardware behind it (backends/cuda),
	// which programs may run on; nil simulates it. The fabric closes it.
	Accelerator backend.Accelerator
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

// defaultBudget is the memory budget of a fabric that sets none: 1 GiB.
const defaultBudget = 1 << 30

// Config says how to make a fabric. The zero value of every field means its default.
type Config struct {
	Mode          Mode           // default RealTime
	Wait          wait.Policy    // how real-time waits pass; default wait.Hybrid; ignored in simulated time
	Seed          uint64         // 0 picks one; Fabric.Seed reports it
	Timing        program.Timing // default timing.Ideal
	Budget        int64          // bytes; 0 means 1 GiB
	Devices       []DeviceConfig // default DefaultDevices
	NoFineGrained bool           // offer no fine-grained memory (startup must then fail)
	EventCapacity int            // events kept in the ring; default 1<<16
	// EventBuffer, when its capacity is at least EventCapacity, is used as
	// the ring's storage instead of allocating one, so that a caller making
	// many short-lived fabrics (a campaign) can reuse it. The caller must
	// leave it alone until the fabric is closed and its events are read.
	EventBuffer []event.Event
	// Chooser, in simulated time, decides every nondeterministic choice of
	// the fabric: the order of steps, fault probabilities, when host
	// releases land and whether deadlines pass first (docs/checking.md).
	// Nil is the seeded chooser: the seed decides, as it always has.
	Chooser choice.Chooser
}

// Fabric holds the devices, the memory and its budget, the clock, the fault
// plane and the event stream. It is safe for concurrent use.
type Fabric struct {
	// What real-time devices read as they run (the clock's executor, the
	// timing profile, the mode): written only as the fabric is made or
	// renewed, and on lines of its own, apart from what the host writes as
	// sessions come and go, so that a device's first step after the host
	// submitted or started takes no line from the host.
	_           cpu.CacheLinePad
	mode        Mode
	wait        wait.Policy
	seed        uint64
	timing      program.Timing
	fineGrained bool
	devices     []*Device
	exec        executor
	_           cpu.CacheLinePad
	mu          sync.Mutex
	// generation counts the fabric's renewals (Renew): what was made on it
	// keeps the generation it was made in, and is stale once they differ.
	generation  atomic.Uint64
	closed      bool
	arena       *memory.Arena // what buffers of host profiles other than pinned are carved from
	ids         atomic.Uint64 // buffers and invocations
	owners      atomic.Uint64 // owners: sessions
	quarantines []*quarantine
	lingering   atomic.Int64 // quarantines waiting only for programs to retire
	budget      memory.Budget
	// The host writes the stream's counters and digest while devices run,
	// and real-time devices read the fault plane at every fault site: the
	// pads keep those on lines of their own.
	_      cpu.CacheLinePad
	events event.Stream
	_      cpu.CacheLinePad
	faults fault.Plane
	sim    simExecutor          // the executor in simulated time
	simNow func() time.Duration // sim.now, bound once for the stream's clock
}

// NewFabric makes a fabric from cfg.
func NewFabric(cfg Config) (*Fabric, error) {
	cfg, err := cfg.complete()
	if err != nil {
		return nil, err
	}
	f := &Fabric{}
	f.makeDevices(cfg.Devices)
	if err := f.build(cfg); err != nil {
		return nil, err
	}
	return f, nil
}

// Renew closes the fabric, as Close does, and makes it again from cfg, as
// NewFabric makes a fabric, in the storage it already has (the event ring,
// the executor's lists): for the one owner of a fabric that runs short
// fabrics one after another, such as a campaign worker, which renews its
// fabric for every trial.
//
// What was made on the fabric before is stale afterwards: profiles,
// buffers, prepared programs, completions and publications, and what
// clients made of them (the engine's startups and sessions). Whatever they
// would do to the fabric fails with a failure.Stale error instead, so a handle
// kept from before never acts on what the renewed fabric made since. The
// fabric's own parts, its devices, event stream, fault plane and budget,
// are renewed with it and stay its own; subscriptions to the stream end.
//
// The renewed fabric keeps its devices: cfg must describe devices of the
// same names, kinds and queue families (nil, the default ones, for a
// fabric made with the default ones), and none of real hardware, which a
// fabric closes for good. When cfg is not one Renew can make, the error
// says why and the fabric is left as it was. The owner calls Renew while
// nothing else uses the fabric or its handles: the generation check
// refuses a handle used after the renewal, not one in use during it.
func (f *Fabric) Renew(cfg Config) error {
	cfg, err := cfg.complete()
	if err == nil {
		err = f.sameDevices(cfg.Devices)
	}
	if err != nil {
		return err
	}
	f.Close()
	f.generation.Add(1)
	f.renewDevices()
	return f.build(cfg)
}

// complete is cfg with every zero field given its default, or what is
// wrong with it.
func (cfg Config) complete() (Config, error) {
	if cfg.Mode == 0 {
		cfg.Mode = RealTime
	}
	if cfg.Mode != Simulated && cfg.Mode != RealTime {
		return cfg, failure.Errorf(failure.Invalid, "fabric", "unknown mode %d", cfg.Mode)
	}
	if cfg.Devices == nil {
		cfg.Devices = defaultDevices
	}
	if err := checkWait(cfg.Wait, cfg.Mode, len(cfg.Devices)); err != nil {
		return cfg, err
	}
	if cfg.Seed == 0 {
		cfg.Seed = rand.Uint64()>>12 + 1
	}
	if cfg.Budget == 0 {
		cfg.Budget = defaultBudget
	}
	if cfg.Budget < 0 {
		return cfg, failure.Errorf(failure.Invalid, "fabric", "budget of %d bytes is negative; give a positive number of bytes", cfg.Budget)
	}
	if err := validateTiming(&cfg.Timing); err != nil {
		return cfg, err
	}
	if cfg.Chooser != nil && cfg.Mode != Simulated {
		return cfg, failure.Errorf(failure.Invalid, "fabric", "a chooser decides the choices of simulated time; use the sim mode with it")
	}
	if cfg.EventCapacity <= 0 {
		cfg.EventCapacity = 1 << 16
	}
	return cfg, checkDevices(cfg.Devices, cfg.Mode)
}

// checkDevices says what is wrong with the devices of a fabric of mode.
func checkDevices(devs []DeviceConfig, mode Mode) error {
	for i, dc := range devs {
		if dc.Kind != GPU && dc.Kind != NPU {
			return failure.Errorf(failure.Invalid, "fabric", "device %d has no kind; use GPU or NPU", i)
		}
		name := deviceName(devs, i)
		for j := range i {
			if deviceName(devs, j) == name {
				return failure.Errorf(failure.Invalid, "fabric", "two devices are named %s; give each device its own name", name)
			}
		}
		if dc.Accelerator != nil && dc.Kind != GPU {
			return failure.Errorf(failure.Invalid, "fabric", "device %s is an %s; only a GPU can have an accelerator", name, dc.Kind)
		}
		if dc.Accelerator != nil && mode != RealTime {
			return failure.Errorf(failure.Invalid, "fabric", "device %s is real hardware (%s), which runs in real time; use the realtime mode", name, dc.Accelerator.Describe())
		}
	}
	return nil
}

// deviceName is the name of devs[i]: its own, or its kind and how many of
// its kind come before it, "gpu0".
func deviceName(devs []DeviceConfig, i int) string {
	if devs[i].Name != "" {
		return devs[i].Name
	}
	n := 0
	for _, dc := range devs[:i] {
		if dc.Kind == devs[i].Kind {
			n++
		}
	}
	return devs[i].Kind.String() + strconv.Itoa(n)
}

// makeDevices gives a new fabric the devices devs describes.
func (f *Fabric) makeDevices(devs []DeviceConfig) {
	storage := make([]Device, len(devs))
	f.devices = make([]*Device, len(devs))
	for i, dc := range devs {
		d := &storage[i]
		d.fabric, d.actor, d.name, d.kind, d.accel = f, event.Actor(i+1), deviceName(devs, i), dc.Kind, dc.Accelerator
		d.families = make([]QueueFamily, len(dc.Families))
		d.labels = make([]string, len(dc.Families))
		for ord, c := range dc.Families {
			d.families[ord] = QueueFamily{ordinal: ord, Command: c}
			d.labels[ord] = d.name + " " + c.String()
		}
		f.devices[i] = d
	}
}

// sameDevices says why the fabric cannot be renewed with the devices devs
// describes: they must be the fabric's, of no real hardware.
func (f *Fabric) sameDevices(devs []DeviceConfig) error {
	same := len(devs) == len(f.devices)
	for i := 0; same && i < len(devs); i++ {
		d := f.devices[i]
		same = deviceName(devs, i) == d.name && devs[i].Kind == d.kind && len(devs[i].Families) == len(d.families)
		for ord := 0; same && ord < len(d.families); ord++ {
			same = devs[i].Families[ord] == d.families[ord].Command
		}
	}
	if !same {
		return failure.Errorf(failure.Invalid, "fabric", "a renewed fabric keeps its devices; describe the same devices, or make a new fabric for others")
	}
	for _, d := range f.devices {
		if d.accel != nil {
			return failure.Errorf(failure.Invalid, "fabric", "%s is real hardware (%s), which a fabric closes for good; make a new fabric", d.name, d.accel.Describe())
		}
	}
	return nil
}

// renewDevices readies the closed fabric's devices for its next
// generation: nothing runs on them and nothing holds them.
func (f *Fabric) renewDevices() {
	for _, d := range f.devices {
		d.current, d.held = nil, 0
	}
}

// build readies the fabric's state, memory, executor and event stream for
// cfg (complete) and attaches its accelerators: what NewFabric and Renew
// share once the devices are there.
func (f *Fabric) build(cfg Config) error {
	f.mode, f.wait, f.seed, f.timing, f.fineGrained, f.closed = cfg.Mode, cfg.Wait, cfg.Seed, cfg.Timing, !cfg.NoFineGrained, false
	f.ids.Store(0)
	f.owners.Store(0)
	f.renewMemory(cfg.Budget)
	f.faults.Reseed(cfg.Seed)
	for _, d := range f.devices {
		d.meter.renew(&f.timing, cfg.Seed, d.actor)
	}
	f.events.Init(cfg.EventCapacity, cfg.EventBuffer, cfg.Mode == RealTime, f.startExecutor(cfg))
	return f.attachAccelerators()
}

// renewMemory gives the fabric an empty budget of limit bytes, no
// quarantine, and an arena with nothing carved: the one it has when every
// buffer of the last generation was given back, otherwise a new one (what
// a stale buffer holds stays its own).
func (f *Fabric) renewMemory(limit int64) {
	f.budget.Renew(limit)
	clear(f.quarantines)
	f.quarantines = f.quarantines[:0]
	f.lingering.Store(0)
	// In real time the devices are threads on other cores, which write
	// much of what the host carves before the host reads it again.
	switch evicts := f.mode == RealTime; {
	case f.arena != nil && f.arena.Empty() && f.arena.Evicts() == evicts:
		// the arena it has will do
	case evicts:
		f.arena = memory.NewEvictingArena()
	default:
		f.arena = memory.NewArena()
	}
}

// startExecutor starts the executor of cfg's mode and returns its clock.
func (f *Fabric) startExecutor(cfg Config) (clock func() time.Duration) {
	if cfg.Mode == Simulated {
		f.sim.init(f, cfg.Seed, cfg.Chooser)
		if cfg.Chooser != nil {
			f.faults.SetDecider(faultDecider(cfg.Chooser))
		}
		f.exec = &f.sim
		if f.simNow == nil {
			f.simNow = f.sim.now
		}
		return f.simNow
	}
	rt := newRealTimeExecutor(f) // its devices log into f.events
	f.exec = rt
	return rt.now
}

// attachAccelerators attaches the devices' real hardware to the fabric's
// clock; when one cannot start, it closes the fabric.
func (f *Fabric) attachAccelerators() error {
	for _, d := range f.devices {
		if d.accel == nil {
			continue
		}
		if err := d.accel.Attach(f.exec.now); err != nil {
			f.Close()
			return failure.Errorf(failure.Device, "fabric", "%s (%s) could not start: %w", d.name, d.accel.Describe(), err)
		}
	}
	return nil
}

// made is the fabric a handle was made on and the generation it was made
// in.
type made struct {
	fabric     *Fabric
	generation uint64
}

// madeNow is a stamp of the fabric's present generation.
func (f *Fabric) madeNow() made { return made{f, f.generation.Load()} }

// stale reports whether the fabric was renewed since the handle was made.
func (m made) stale() bool { return m.fabric.generation.Load() != m.generation }

// staleError is the error of op on a stale handle, what saying which
// ("buffer 4").
func staleError(op, what string) error {
	return failure.Errorf(failure.Stale, op, "%s was made before its fabric was renewed; use what the renewed fabric makes", what)
}

// Mode is the fabric's executor mode.
func (f *Fabric) Mode() Mode { return f.mode }

// Seed is the seed that drives every random choice of the fabric.
func (f *Fabric) Seed() uint64 { return f.seed }

// Timing is the fabric's timing profile.
func (f *Fabric) Timing() program.Timing { return f.timing }

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
	return nil, failure.Errorf(failure.Invalid, "fabric", "no device named %q", name)
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
func (f *Fabric) ActorName(a event.Actor) string {
	if a == event.HostActor || int(a) > len(f.devices) {
		return "host"
	}
	return f.devices[a-1].name
}

// Budget is the fabric's memory budget.
func (f *Fabric) Budget() *memory.Budget { return &f.budget }

// Faults is the fabric's fault plane.
func (f *Fabric) Faults() *fault.Plane { return &f.faults }

// Events is the fabric's event stream.
func (f *Fabric) Events() *event.Stream { return &f.events }

// newID returns a fresh identifier, unique in the fabric, for buffers and
// invocations.
func (f *Fabric) newID() uint64 { return f.ids.Add(1) }

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
func (f *Fabric) hitFault(actor event.Actor, session uint64, site fault.Site) fault.Fired {
	fired := f.faults.Hit(site)
	events := f.events.Direct()
	recordFault(&events, actor, session, site, fired)
	return fired
}

// recordFault records what fired at site as an event, when something did.
func recordFault(events *event.HostEvents, actor event.Actor, session uint64, site fault.Site, fired fault.Fired) {
	if fired.Action != fault.None {
		events.Emit(actor, session, event.EvFault, uint64(site), uint64(fired.Action), faultDetail(site, fired.Action))
	}
}

// faultDetail names site and action without allocating for the common pairs.
func faultDetail(site fault.Site, a fault.Action) string {
	if int(site) < len(faultNames) && int(a) < len(faultNames[site]) && faultNames[site][a] != "" {
		return faultNames[site][a]
	}
	return site.String() + " " + a.String() // a site a program defined, whose number may lie among the runtime's
}

var faultNames = func() (names [16][16]string) {
	for _, s := range fault.Sites() {
		for a := fault.Off; a <= fault.Flip; a++ {
			names[s][a] = s.String() + " " + a.String()
		}
	}
	return names
}()
