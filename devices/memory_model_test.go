package devices

// Tests of the memory model (docs/memory-model.md), one
// or more per sentence, as buffer.go, view.go, budget.go and profile.go
// implement it. Helper names start with "mm" so that other test files of the
// package can have their own.

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/wait"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// mmFabric makes a fabric from cfg (simulated with a fixed seed unless cfg
// says otherwise) and closes it when the test ends.
func mmFabric(t testing.TB, cfg Config) *Fabric {
	t.Helper()
	if cfg.Mode == 0 {
		cfg.Mode = Simulated
	}
	if cfg.Seed == 0 {
		cfg.Seed = 33
	}
	if cfg.Mode == RealTime && cfg.Wait == wait.Spin {
		spinnable(t, cfg)
	}
	f, err := NewFabric(cfg)
	if err != nil {
		t.Fatalf("NewFabric: %v", err)
	}
	t.Cleanup(f.Close)
	return f
}

// mmShared makes a fabric from cfg (as mmFabric does) and allocates a
// fine-grained buffer of size bytes on it; it returns them with the fabric's
// first GPU and first NPU.
func mmShared(t testing.TB, cfg Config, size int) (f *Fabric, gpu, npu *Device, b *Buffer) {
	t.Helper()
	f = mmFabric(t, cfg)
	gpu, npu = f.First(GPU), f.First(NPU)
	return f, gpu, npu, mmAlloc(t, mmProfile(t, f, memory.FineGrained), size)
}

// mmFamily returns d's family for command c.
func mmFamily(t testing.TB, d *Device, c Command) QueueFamily {
	t.Helper()
	fam, err := d.Family(c)
	if err != nil {
		t.Fatalf("%s.Family(%s): %v", d.Name(), c, err)
	}
	return fam
}

// mmProfile returns the first host-accessible profile for devs, which must be
// of kind want.
func mmProfile(t testing.TB, f *Fabric, want memory.Kind, devs ...*Device) *Profile {
	t.Helper()
	if len(devs) == 0 {
		devs = f.Devices()
	}
	ps, err := f.AllocationProfiles(devs, true)
	if err != nil {
		t.Fatalf("AllocationProfiles: %v", err)
	}
	if len(ps) == 0 || ps[0].Kind() != want {
		t.Fatalf("first host-accessible profile is %v, want %v", mmKinds(ps), want)
	}
	return ps[0]
}

func mmKinds(ps []*Profile) []memory.Kind {
	out := make([]memory.Kind, len(ps))
	for i, p := range ps {
		out[i] = p.Kind()
	}
	return out
}

// mmAlloc allocates size bytes from p charged to the fabric's budget.
func mmAlloc(t testing.TB, p *Profile, size int) *Buffer {
	t.Helper()
	b, err := p.Allocate(size, nil, 0)
	if err != nil {
		t.Fatalf("Allocate(%d): %v", size, err)
	}
	return b
}

// mmView returns the view of b for d's family c.
func mmView(t testing.TB, b *Buffer, d *Device, c Command) *View {
	t.Helper()
	v, err := b.View(d, mmFamily(t, d, c))
	if err != nil {
		t.Fatalf("View(%s %s): %v", d.Name(), c, err)
	}
	return v
}

// mmRelease prepares and executes a host release of bytes [lo, hi) of b for
// d's family c.
func mmRelease(t testing.TB, b *Buffer, d *Device, c Command, lo, hi int) {
	t.Helper()
	p, err := b.PrepareHostRelease(d, mmFamily(t, d, c), lo, hi)
	if err != nil {
		t.Fatalf("PrepareHostRelease(%s %s, %d, %d): %v", d.Name(), c, lo, hi, err)
	}
	if err := p.release(); err != nil {
		t.Fatalf("Execute release to %s %s: %v", d.Name(), c, err)
	}
}

// mmPrepare prepares program on d's family c, owned by owner, reaching
// the buffers reach.
func mmPrepare(t testing.TB, d *Device, c Command, prog program.Program, owner uint64, reach ...*Buffer) *Prepared {
	t.Helper()
	pp, err := d.Prepare(mmFamily(t, d, c), prog, owner, reach...)
	if err != nil {
		t.Fatalf("Prepare on %s %s: %v", d.Name(), c, err)
	}
	return pp
}

// mmDispatch dispatches a prepared program, which must be accepted.
func mmDispatch(t testing.TB, pp *Prepared) *Completion {
	t.Helper()
	c, err := pp.Dispatch()
	if err != nil {
		t.Fatalf("Dispatch: %v", err)
	}
	return c
}

// mmLoad checks what v reads at off.
func mmLoad(t testing.TB, what string, v *View, off int, want uint32) {
	t.Helper()
	if got := v.Load(off); got != want {
		t.Errorf("%s: view Load(%d) = %d, want %d", what, off, got, want)
	}
}

// mmHost checks what the host reads at off.
func mmHost(t testing.TB, what string, b *Buffer, off int, want uint32) {
	t.Helper()
	if got := b.HostLoad(off); got != want {
		t.Errorf("%s: HostLoad(%d) = %d, want %d", what, off, got, want)
	}
}

// mmCharged checks the fabric budget's charged and quarantined bytes.
func mmCharged(t testing.TB, f *Fabric, charged, quarantined int64) {
	t.Helper()
	st := f.Budget().State()
	if st.Charged != charged || st.Quarantined != quarantined {
		t.Errorf("budget charges %d bytes (%d quarantined), want %d (%d quarantined)", st.Charged, st.Quarantined, charged, quarantined)
	}
}

// mmKind checks that err is a *failure.Error of kind k that errors.Is matches.
func mmKind(t testing.TB, what string, err error, k failure.Kind) {
	t.Helper()
	var e *failure.Error
	if !errors.As(err, &e) || e.Kind != k || !errors.Is(err, k) {
		t.Fatalf("%s: error %v, want a %v error", what, err, k)
	}
	if e.Message == "" {
		t.Errorf("%s: %v error has no message", what, k)
	}
}

// mmEvents lists the events of kind k about buffer or invocation a.
func mmEvents(f *Fabric, k program.EventKind, a uint64) []event.Event {
	return f.Events().Events(func(e *event.Event) bool { return e.Kind == k && e.A == a })
}

// mmSharedMappings counts the shared anonymous mappings (shown as
// "/dev/zero (deleted)") of exactly size bytes in /proc/self/maps, and
// returns the start address of one of them.
func mmSharedMappings(t testing.TB, size int) (n int, start uint64) {
	t.Helper()
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("cannot read /proc/self/maps: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 6 || !strings.Contains(fields[1], "s") || fields[5] != "/dev/zero" {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || b-a != uint64(size) {
			continue
		}
		n++
		start = a
	}
	return n, start
}

// mmProgram is a small test program: each step calls step, which may use
// the env and says what comes next.
type mmProgram struct {
	step  func(env program.Env) program.Next
	steps atomic.Int32
}

func (p *mmProgram) Step(env program.Env) program.Next {
	p.steps.Add(1)
	return p.step(env)
}

// mmWaitNonZero is a program that waits until the word at off, as v sees
// it, is not zero, records what it saw, and retires.
func mmWaitNonZero(v *View, off int, seen *atomic.Uint32) *mmProgram {
	return &mmProgram{step: func(env program.Env) program.Next {
		if x := v.Load(off); x != 0 {
			seen.Store(x)
			return program.Retire(nil)
		}
		return program.WaitWord(v, off, 0)
	}}
}

// mmConfigs are the executors a memory-model test runs in: simulated time,
// and real time under each wait policy.
func mmConfigs() []Config {
	configs := []Config{{Mode: Simulated}}
	for _, w := range wait.Policies() {
		configs = append(configs, Config{Mode: RealTime, Wait: w})
	}
	return configs
}

// mmName names a configuration of mmConfigs for t.Run: "sim", "realtime/spin".
func mmName(cfg Config) string {
	if cfg.Mode == RealTime {
		return cfg.Mode.String() + "/" + cfg.Wait.String()
	}
	return cfg.Mode.String()
}

// mmNever is how long a test waits for something that must not happen;
// mmSoon how long it waits for something that must.
const (
	mmNever = 30 * time.Millisecond
	mmSoon  = 10 * time.Second
)

// --- Buffers: mapped, line-aligned, zeroed, unmapped only when released ---

// "Buffers are real memory: mapped with x/sys/unix (anonymous, shared),
// 64-byte aligned, ... unmapped only when released."
func TestMemoryBuffersAreSharedAnonymousMappingsUnmappedOnRelease(t *testing.T) {
	f := mmFabric(t, Config{})
	p := mmProfile(t, f, memory.FineGrained)
	const size = 1237 * 4096 // a size no other mapping of the test binary has
	before, _ := mmSharedMappings(t, size)
	b := mmAlloc(t, p, size)
	n, start := mmSharedMappings(t, size)
	if n != before+1 {
		t.Fatalf("after Allocate(%d): %d shared anonymous mappings of that size, want %d", size, n, before+1)
	}
	if start%64 != 0 {
		t.Errorf("the mapping starts at %#x, not 64-byte aligned", start)
	}
	b.storeWord(size-4, 7) // the last word is inside the mapping
	mmHost(t, "last word", b, size-4, 7)
	if err := b.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if n, _ := mmSharedMappings(t, size); n != before {
		t.Errorf("after Release: %d shared anonymous mappings of %d bytes, want %d (the buffer must be unmapped)", n, size, before)
	}
	mmCharged(t, f, 0, 0)
}

// "64-byte aligned, zeroed": sizes round up to whole lines, the budget is
// charged the rounded size, and every word reads zero, as the host and as
// every family.
func TestMemoryBuffersAreWholeLinesAndZeroed(t *testing.T) {
	f := mmFabric(t, Config{})
	p := mmProfile(t, f, memory.FineGrained)
	gpu, npu := f.First(GPU), f.First(NPU)
	var charged int64
	for _, size := range []int{1, 4, 63, 64, 65, 100, 128, 4095, 4096, 4097, 1 << 20} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			b := mmAlloc(t, p, size)
			want := (size + 63) / 64 * 64
			if b.region.Len() != want || b.region.Len()%64 != 0 {
				t.Errorf("Allocate(%d) made %d bytes, want %d (whole 64-byte lines)", size, b.region.Len(), want)
			}
			charged += int64(want)
			mmCharged(t, f, charged, 0)
			if evs := mmEvents(f, event.EvAlloc, b.ID()); len(evs) != 1 || evs[0].B != uint64(want) {
				t.Errorf("alloc events of buffer %d: %+v, want one with B=%d", b.ID(), evs, want)
			}
			gv, nv := mmView(t, b, gpu, AQL), mmView(t, b, npu, XDNA)
			for off := 0; off < b.region.Len(); off += 4 {
				if b.HostLoad(off) != 0 || gv.Load(off) != 0 || nv.Load(off) != 0 {
					t.Fatalf("word %d of a fresh %d-byte buffer is not zero (host %d, gpu %d, npu %d)", off, size, b.HostLoad(off), gv.Load(off), nv.Load(off))
				}
			}
		})
	}
	// Memory that held data before is zero when allocated again.
	b := mmAlloc(t, p, 4096)
	for off := 0; off < b.region.Len(); off += 4 {
		b.storeWord(off, 0xdeadbeef)
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	b = mmAlloc(t, p, 4096)
	for off := 0; off < b.region.Len(); off += 4 {
		if b.HostLoad(off) != 0 {
			t.Fatalf("word %d of a reallocated buffer reads %#x, want 0", off, b.HostLoad(off))
		}
	}
	// Zero stores zero into every word.
	b.storeWord(64, 5)
	b.Zero()
	mmHost(t, "after Zero", b, 64, 0)
}

// "Words are accessed with atomics": host stores and device loads race
// freely (the race detector must stay quiet), a coherent reader never sees
// a value go back, and a non-coherent reader never sees a value the host
// has not released yet.
func TestMemoryConcurrentWordsAreAtomic(t *testing.T) {
	f := mmFabric(t, Config{})
	p := mmProfile(t, f, memory.FineGrained)
	gpu, npu := f.First(GPU), f.First(NPU)
	b := mmAlloc(t, p, 128)
	gv, nv := mmView(t, b, gpu, PM4), mmView(t, b, npu, XDNA)
	rel, err := b.PrepareHostRelease(npu, mmFamily(t, npu, XDNA), 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	// Store and release once before the readers start: the race of a
	// buffer's very first host store has its own test below.
	b.storeWord(0, 0)
	if err := rel.release(); err != nil {
		t.Fatal(err)
	}
	const n = 5000
	var announced atomic.Uint32 // the value about to be released
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan string, 2)
	reader := func(name string, v *View, bound func() uint32) {
		defer wg.Done()
		last := uint32(0)
		for !stop.Load() {
			x := v.Load(0)
			limit := bound()
			if x < last {
				errs <- fmt.Sprintf("%s read %d after %d: a value went back", name, x, last)
				return
			}
			if x > limit {
				errs <- fmt.Sprintf("%s read %d, but only %d may be visible to it", name, x, limit)
				return
			}
			last = x
		}
	}
	wg.Add(2)
	go reader("gpu (coherent)", gv, func() uint32 { return n })
	go reader("npu (non-coherent)", nv, announced.Load)
	for v := uint32(1); v <= n; v++ {
		b.storeWord(0, v)
		if v%3 == 0 {
			announced.Store(v)
			if err := rel.release(); err != nil {
				t.Fatal(err)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// --- Coherent families ---

// "A coherent family's loads and stores act on memory at once": on
// fine-grained memory every GPU family sees a host store with no release,
// and its stores reach the host at once.
func TestMemoryCoherentGPUFamiliesActOnMemoryAtOnce(t *testing.T) {
	f := mmFabric(t, Config{})
	gpu, npu := f.First(GPU), f.First(NPU)
	p := mmProfile(t, f, memory.FineGrained)
	b := mmAlloc(t, p, 256)
	for i, fam := range slices.Collect(gpu.Families()) {
		if !p.Coherent(gpu, fam) {
			t.Errorf("fine-grained profile: %s %s is not coherent", gpu.Name(), fam.Command)
		}
		if a, err := b.attachment(gpu, fam); err != nil || !a.coherent {
			t.Errorf("the buffer's attachment to %s %s: %+v, %v; want it coherent", gpu.Name(), fam.Command, a, err)
		}
		v := mmView(t, b, gpu, fam.Command)
		if !v.Coherent() {
			t.Errorf("the %s view is not coherent", fam.Command)
		}
		off := 64 * (i % 4)
		val := uint32(100 + i)
		b.storeWord(off, val)
		mmLoad(t, fam.Command.String()+" sees the host store with no release", v, off, val)
		v.Store(off+4, val+1)
		mmHost(t, fam.Command.String()+" store reaches memory at once", b, off+4, val+1)
		if n := v.Drain(); n != 0 {
			t.Errorf("a coherent view drained %d words; its stores never wait", n)
		}
	}
	for fam := range npu.Families() {
		if p.Coherent(npu, fam) {
			t.Errorf("fine-grained profile: %s %s is coherent, want non-coherent", npu.Name(), fam.Command)
		}
	}
}

// --- Non-coherent families: host stores need a host release ---

// "A non-coherent family does not see a host store until a host release
// covering that range has executed for that family; until then its reads
// of that range return what the range held at the previous release."
func TestMemoryNonCoherentSeesHostStoreOnlyAfterRelease(t *testing.T) {
	f, gpu, npu, b := mmShared(t, Config{}, 128)
	nv := mmView(t, b, npu, XDNA)
	if nv.Coherent() {
		t.Fatal("the NPU XDNA view of fine-grained memory is coherent")
	}

	b.storeWord(0, 7)
	mmHost(t, "host", b, 0, 7)
	mmLoad(t, "before any release", nv, 0, 0)
	pub, err := b.PrepareHostRelease(npu, mmFamily(t, npu, XDNA), 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	if pub.att.device != npu || pub.att.family.Command != XDNA {
		t.Errorf("publication is for %s %s, want %s xdna", pub.att.device.Name(), pub.att.family.Command, npu.Name())
	}
	mmLoad(t, "prepared, not executed", nv, 0, 0)
	if err := pub.release(); err != nil {
		t.Fatal(err)
	}
	mmLoad(t, "after the release", nv, 0, 7)
	if evs := mmEvents(f, event.EvPublication, uint64(npu.Actor())); len(evs) != 1 || evs[0].B != 0 {
		t.Errorf("publication events: %+v, want one done (B=0)", evs)
	}

	// Two stores before the next release: the old value until it executes.
	b.storeWord(0, 8)
	b.storeWord(0, 9)
	mmLoad(t, "two stores since the last release", nv, 0, 7)
	// The rest of a line the host stored into also reads as it was then,
	// even when a coherent family changes it meanwhile.
	gv := mmView(t, b, gpu, AQL)
	gv.Store(4, 44)
	mmLoad(t, "a GPU store into a line the host stored into", nv, 4, 0)
	// The same publication can be executed again.
	if err := pub.release(); err != nil {
		t.Fatal(err)
	}
	mmLoad(t, "after the second release", nv, 0, 9)
	mmLoad(t, "after the second release", nv, 4, 44)
	// After the release, coherent-family stores to the line are seen again
	// at once, until the host stores into it again.
	gv.Store(4, 45)
	mmLoad(t, "a GPU store after the release", nv, 4, 45)
}

// The same, seen by a running program in both executors: an NPU program
// waiting for a word the host stored does not wake before the release.
func TestMemoryNPUProgramWakesOnlyAfterRelease(t *testing.T) {
	for _, cfg := range mmConfigs() {
		t.Run(mmName(cfg), func(t *testing.T) {
			_, _, npu, b := mmShared(t, cfg, 64)
			var seen atomic.Uint32
			prog := mmWaitNonZero(mmView(t, b, npu, XDNA), 0, &seen)
			c := mmDispatch(t, mmPrepare(t, npu, XDNA, prog, 0, b))
			b.storeWord(0, 3)
			if ok, err := c.waitFor(mmNever); ok || err != nil {
				t.Fatalf("Wait before the release = %v, %v; want a timeout: the NPU must not see the store", ok, err)
			}
			// On a busy machine the device's thread may not have run in
			// that time: wait for its first step, then give it as long
			// again to see the store.
			for deadline := time.Now().Add(mmSoon); prog.steps.Load() == 0; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the program never ran")
				}
			}
			if ok, err := c.waitFor(mmNever); ok || err != nil {
				t.Fatalf("Wait before the release, once the program ran = %v, %v; want a timeout: the NPU must not see the store", ok, err)
			}
			mmRelease(t, b, npu, XDNA, 0, 4)
			if ok, err := c.waitFor(mmSoon); !ok || err != nil {
				t.Fatalf("Wait after the release = %v, %v; want retired", ok, err)
			}
			if seen.Load() != 3 {
				t.Errorf("the program saw %d, want 3", seen.Load())
			}
		})
	}
}

// "... executed for that family": a release for one non-coherent family
// does not show the store to another one, on another NPU or on another
// family of the same NPU.
func TestMemoryReleaseIsForOneFamilyOnly(t *testing.T) {
	f := mmFabric(t, Config{Devices: []DeviceConfig{
		{Name: "gpu0", Kind: GPU, Families: []Command{PM4, AQL, SDMA}},
		{Name: "npu0", Kind: NPU, Families: []Command{XDNA}},
		{Name: "npu1", Kind: NPU, Families: []Command{XDNA, XDNA}},
	}})
	devs := f.Devices()
	npu0, npu1 := devs[1], devs[2]
	b := mmAlloc(t, mmProfile(t, f, memory.FineGrained), 64)
	v0 := mmView(t, b, npu0, XDNA)
	fams := slices.Collect(npu1.Families())
	v10, err := b.View(npu1, fams[0])
	if err != nil {
		t.Fatal(err)
	}
	v11, err := b.View(npu1, fams[1])
	if err != nil {
		t.Fatal(err)
	}

	b.storeWord(0, 5)
	mmRelease(t, b, npu0, XDNA, 0, 64)
	mmLoad(t, "npu0, released", v0, 0, 5)
	mmLoad(t, "npu1 family 0, released only to npu0", v10, 0, 0)
	mmLoad(t, "npu1 family 1, released only to npu0", v11, 0, 0)

	p, err := b.PrepareHostRelease(npu1, fams[0], 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.release(); err != nil {
		t.Fatal(err)
	}
	mmLoad(t, "npu1 family 0, released", v10, 0, 5)
	mmLoad(t, "npu1 family 1, released only to family 0", v11, 0, 0)

	p, err = b.PrepareHostRelease(npu1, fams[1], 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.release(); err != nil {
		t.Fatal(err)
	}
	mmLoad(t, "npu1 family 1, released", v11, 0, 5)

	// A buffer is not shared with a family of a device outside its profile.
	other := mmAlloc(t, mmProfile(t, f, memory.FineGrained, devs[0], npu0), 64)
	if _, err := other.View(npu1, fams[0]); err == nil {
		t.Error("View of a buffer for a device outside its profile succeeded")
	} else {
		mmKind(t, "View outside the profile", err, failure.Invalid)
	}
	if _, err := other.PrepareHostRelease(npu1, fams[0], 0, 64); err == nil {
		t.Error("PrepareHostRelease for a device outside the profile succeeded")
	}
}

// "... a host release covering that range": a release of another range
// does not help; one covering the stored word does.
func TestMemoryReleaseOfAnotherRangeDoesNotHelp(t *testing.T) {
	_, _, npu, b := mmShared(t, Config{}, 192)
	nv := mmView(t, b, npu, XDNA)
	b.storeWord(64, 11) // line 1
	mmRelease(t, b, npu, XDNA, 0, 64)
	mmLoad(t, "after releasing line 0", nv, 64, 0)
	mmRelease(t, b, npu, XDNA, 128, 192)
	mmLoad(t, "after releasing line 2", nv, 64, 0)
	mmRelease(t, b, npu, XDNA, 64, 68)
	mmLoad(t, "after releasing [64, 68)", nv, 64, 11)

	// A release spanning several lines covers each of them.
	b.storeWord(0, 1)
	b.storeWord(128, 3)
	mmRelease(t, b, npu, XDNA, 60, 132)
	mmLoad(t, "line 0 after releasing [60, 132)", nv, 0, 1)
	mmLoad(t, "line 2 after releasing [60, 132)", nv, 128, 3)

	for _, r := range [][2]int{{0, 0}, {64, 64}, {-4, 4}, {0, 196}, {100, 60}} {
		if _, err := b.PrepareHostRelease(npu, mmFamily(t, npu, XDNA), r[0], r[1]); err == nil {
			t.Errorf("PrepareHostRelease(%d, %d) of a 192-byte buffer succeeded", r[0], r[1])
		} else {
			mmKind(t, fmt.Sprintf("PrepareHostRelease(%d, %d)", r[0], r[1]), err, failure.Invalid)
		}
	}
}

// "Lines never stored by the host are read directly": a GPU store into
// such a line is seen by the NPU at once, while a line the host stored into
// keeps its released content.
func TestMemoryLinesNeverStoredByHostAreReadDirectly(t *testing.T) {
	_, gpu, npu, b := mmShared(t, Config{}, 128)
	gv, nv := mmView(t, b, gpu, AQL), mmView(t, b, npu, XDNA)
	gv.Store(0, 21)
	mmLoad(t, "GPU store, nothing stored by the host", nv, 0, 21)

	b.storeWord(64, 1) // line 1 is now hidden from the NPU
	gv.Store(0, 22)
	mmLoad(t, "GPU store into line 0 after a host store into line 1", nv, 0, 22)
	gv.Store(68, 23)
	mmLoad(t, "GPU store into line 1, which the host stored into", nv, 68, 0)

	// Zero is a host store into every line.
	b.Zero()
	gv.Store(0, 24)
	mmLoad(t, "GPU store after Zero, before a release", nv, 0, 22)
	mmRelease(t, b, npu, XDNA, 0, 128)
	mmLoad(t, "GPU store after Zero, after a release", nv, 0, 24)
}

// Zero stores into the lines that hold a non-zero word: a line of zeros
// is not stored into, so it stays as the NPU sees it, while a line it
// zeroes is hidden until a release, in real time as in simulated time.
func TestMemoryZeroStoresOnlyIntoLinesThatChange(t *testing.T) {
	for _, mode := range []Mode{Simulated, RealTime} {
		t.Run(mode.String(), func(t *testing.T) {
			f := mmFabric(t, Config{Mode: mode})
			gpu, npu := f.First(GPU), f.First(NPU)
			b := mmAlloc(t, mmProfile(t, f, memory.FineGrained), 128)
			gv, nv := mmView(t, b, gpu, PM4), mmView(t, b, npu, XDNA)
			b.storeWord(64, 5)
			mmRelease(t, b, npu, XDNA, 0, 128) // the NPU sees both lines: zeros, then 5

			b.Zero()
			mmHost(t, "line 1 after Zero", b, 64, 0)
			gv.Store(0, 9)
			mmLoad(t, "GPU store into line 0, which held zeros at Zero", nv, 0, 9)
			gv.Store(68, 11)
			mmLoad(t, "line 1, which Zero stored into, before a release", nv, 64, 5)
			mmLoad(t, "GPU store into line 1 before a release", nv, 68, 0)
			mmRelease(t, b, npu, XDNA, 64, 128)
			mmLoad(t, "line 1 after a release", nv, 64, 0)
			mmLoad(t, "GPU store into line 1 after a release", nv, 68, 11)
		})
	}
}

// The protocol's publications matter: skip one and the NPU never sees RUN.
// host.publish=skip makes a publication succeed without the release, error
// makes it fail with failure.Publish; either way the NPU stays blind, and an
// event says which.
func TestMemoryHostPublishFaultsLeaveNPUBlind(t *testing.T) {
	f, _, npu, b := mmShared(t, Config{}, 64)
	nv := mmView(t, b, npu, XDNA)
	pub, err := b.PrepareHostRelease(npu, mmFamily(t, npu, XDNA), 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	b.storeWord(0, 1)

	if err := f.Faults().Set(fault.HostPublish, "skip"); err != nil {
		t.Fatal(err)
	}
	if err := pub.release(); err != nil {
		t.Fatalf("Execute with host.publish=skip: %v, want nil (the release silently does not happen)", err)
	}
	mmLoad(t, "after a skipped release", nv, 0, 0)

	if err := f.Faults().Set(fault.HostPublish, "error(link down)"); err != nil {
		t.Fatal(err)
	}
	err = pub.release()
	mmKind(t, "Execute with host.publish=error", err, failure.Publish)
	if !strings.Contains(err.Error(), "link down") {
		t.Errorf("publish error %q does not carry the fault's message", err)
	}
	mmLoad(t, "after a failed release", nv, 0, 0)

	evs := mmEvents(f, event.EvPublication, uint64(npu.Actor()))
	if len(evs) != 2 || evs[0].B != 1 || evs[1].B != 2 {
		t.Errorf("publication events %+v, want skipped (B=1) then failed (B=2)", evs)
	}
	if n := len(f.Events().Events(func(e *event.Event) bool { return e.Kind == event.EvFault && fault.Site(e.A) == fault.HostPublish })); n != 2 {
		t.Errorf("%d host.publish fault events, want 2", n)
	}

	if err := f.Faults().Set(fault.HostPublish, "off"); err != nil {
		t.Fatal(err)
	}
	if err := pub.release(); err != nil {
		t.Fatal(err)
	}
	mmLoad(t, "after a real release", nv, 0, 1)
}

// --- Non-coherent families: device stores need a drain ---

// "Its own writes reach memory only when it drains them": the NPU reads its
// own stores at once; the host and the GPU see them only after Drain;
// Discard drops them.
func TestMemoryNPUStoresReachMemoryOnlyWhenDrained(t *testing.T) {
	_, gpu, npu, b := mmShared(t, Config{}, 128)
	gv, nv := mmView(t, b, gpu, PM4), mmView(t, b, npu, XDNA)

	nv.Store(0, 5)
	nv.Store(4, 6)
	nv.Store(0, 7) // a second store to a word replaces the pending one
	mmLoad(t, "the NPU reads its own store", nv, 0, 7)
	mmLoad(t, "the NPU reads its own store", nv, 4, 6)
	mmHost(t, "before Drain", b, 0, 0)
	mmHost(t, "before Drain", b, 4, 0)
	mmLoad(t, "GPU before Drain", gv, 0, 0)
	other := mmView(t, b, npu, XDNA) // another program's view of the same family
	mmLoad(t, "another NPU view before Drain", other, 0, 0)

	if n := nv.Drain(); n != 2 {
		t.Errorf("Drain wrote %d words, want 2", n)
	}
	mmHost(t, "after Drain", b, 0, 7)
	mmHost(t, "after Drain", b, 4, 6)
	mmLoad(t, "GPU after Drain", gv, 0, 7)
	mmLoad(t, "another NPU view after Drain", other, 4, 6)
	mmLoad(t, "the NPU after its Drain", nv, 0, 7)
	if n := nv.Drain(); n != 0 {
		t.Errorf("a second Drain wrote %d words, want 0", n)
	}

	nv.Store(64, 9)
	mmLoad(t, "pending store before Discard", nv, 64, 9)
	nv.Discard()
	mmLoad(t, "after Discard", nv, 64, 0)
	if n := nv.Drain(); n != 0 {
		t.Errorf("Drain after Discard wrote %d words, want 0", n)
	}
	mmHost(t, "after Discard and Drain", b, 64, 0)

	// A pending store shadows a line the host stored into.
	b.storeWord(64, 1)
	nv.Store(68, 2)
	mmLoad(t, "own store on a hidden line", nv, 68, 2)
	mmLoad(t, "host store on that line, not released", nv, 64, 0)
}

// "StorePlain is a store with no ordering of its own; another program may
// read the word only after it has loaded a later Store of the writer": a
// coherent writer fills a line with plain stores, then stores the
// generation word; a reader on another goroutine that loads a generation
// reads all of its data, never a word of an earlier one. A non-coherent
// view keeps a plain store pending, as any store.
func TestMemoryPlainStoresArePublishedByALaterStore(t *testing.T) {
	_, gpu, npu, b := mmShared(t, Config{Mode: RealTime}, 256)
	mmPublishGenerations(t, mmView(t, b, gpu, AQL), mmView(t, b, gpu, PM4), 20_000)

	nv := mmView(t, b, npu, XDNA)
	nv.StorePlain(192, 7)
	mmLoad(t, "the NPU reads its own plain store", nv, 192, 7)
	mmHost(t, "a non-coherent plain store before Drain", b, 192, 0)
	if n := nv.Drain(); n != 1 {
		t.Errorf("Drain wrote %d words, want the plain store", n)
	}
	mmHost(t, "a non-coherent plain store after Drain", b, 192, 7)
}

// A non-coherent view's drain writes its plain stores plainly and the rest
// with Store, in the order they were made, so a drained Store publishes the
// plain stores before it as a coherent one does: a reader on another
// goroutine that loads a generation reads all of its data (and the race
// detector sees no race). A word stored with Store and then StorePlain
// before one drain keeps Store's ordering.
func TestMemoryDrainedPlainStoresArePublishedByTheDrainedStore(t *testing.T) {
	_, gpu, npu, b := mmShared(t, Config{Mode: RealTime}, 256)
	writer := mmView(t, b, npu, XDNA)
	mmPublishGenerations(t, writer, mmView(t, b, gpu, AQL), 5_000)
	const mixed = 60
	writer.Store(mixed, 1)
	writer.StorePlain(mixed, 2)
	if len(writer.pending) != 1 || writer.pending[0].plain || writer.pending[0].val != 2 {
		t.Fatalf("a word stored with Store, then StorePlain, is pending as %+v; want one ordered store of 2", writer.pending)
	}
}

// mmPublishGenerations has writer publish gens generations of 14 words at
// bytes 4 to 56 with plain stores on a real-time fabric (two goroutines use
// the views at once, as devices' threads do; a simulated fabric's views
// are used by its executor's steps alone), each followed by the store of its number
// into word 0 (and a drain, for a non-coherent writer), while reader, on
// another goroutine, waits for each number, checks that it reads all of
// the generation's words, and acknowledges it at byte 128, which the
// writer waits for before the next.
func mmPublishGenerations(t *testing.T, writer, reader *View, gens uint32) {
	t.Helper()
	const words, ack = 14, 128
	data := func(g uint32, i int) uint32 { return g<<8 | uint32(i) }
	found := make(chan string, 1)
	go func() {
		for g := uint32(1); g <= gens; g++ {
			for reader.Load(0) != g {
				runtime.Gosched()
			}
			for i := 1; i <= words; i++ {
				if v := reader.Load(4 * i); v != data(g, i) {
					found <- fmt.Sprintf("generation %d: word %d reads %#x, want %#x", g, i, v, data(g, i))
					return
				}
			}
			reader.Store(ack, g)
		}
		found <- ""
	}()
	for g := uint32(1); g <= gens; g++ {
		for i := 1; i <= words; i++ {
			writer.StorePlain(4*i, data(g, i))
		}
		writer.Store(0, g)
		if !writer.Coherent() {
			if n := writer.Drain(); n != words+1 {
				t.Fatalf("generation %d: Drain wrote %d words, want %d", g, n, words+1)
			}
		}
		for writer.Load(ack) != g {
			runtime.Gosched()
			if len(found) > 0 {
				break
			}
		}
	}
	if problem := <-found; problem != "" {
		t.Fatal(problem)
	}
}

// The same in both executors: an NPU program's store reaches the GPU only
// when the program drains it.
func TestMemoryNPUProgramStoreReachesGPUOnDrain(t *testing.T) {
	for _, cfg := range mmConfigs() {
		t.Run(mmName(cfg), func(t *testing.T) {
			_, gpu, npu, b := mmShared(t, cfg, 128)
			nv, gv := mmView(t, b, npu, XDNA), mmView(t, b, gpu, AQL)
			stored := make(chan struct{})
			state := 0
			prog := &mmProgram{step: func(env program.Env) program.Next {
				switch state {
				case 0: // store, then wait for the host's go
					nv.Store(64, 42)
					state = 1
					close(stored)
					return program.WaitWord(nv, 0, 0)
				default:
					if nv.Load(0) == 0 {
						return program.WaitWord(nv, 0, 0)
					}
					nv.Drain()
					return program.Retire(nil)
				}
			}}
			c := mmDispatch(t, mmPrepare(t, npu, XDNA, prog, 0, b))
			if ok, _ := c.waitFor(mmNever); ok {
				t.Fatal("the program retired without the host's go")
			}
			select {
			case <-stored:
			case <-time.After(mmSoon):
				t.Fatal("the program never stored")
			}
			mmLoad(t, "GPU, the NPU stored but did not drain", gv, 64, 0)
			mmHost(t, "host, the NPU stored but did not drain", b, 64, 0)
			b.storeWord(0, 1)
			mmRelease(t, b, npu, XDNA, 0, 64)
			if ok, err := c.waitFor(mmSoon); !ok || err != nil {
				t.Fatalf("Wait = %v, %v; want retired", ok, err)
			}
			mmLoad(t, "GPU after the drain", gv, 64, 42)
			mmHost(t, "host after the drain", b, 64, 42)
		})
	}
}

// --- Profiles ---

// Coarse-grained host memory: every family non-coherent, GPU families
// included, so a GPU family also needs a release, for itself.
func TestMemoryCoarseGrainedEveryFamilyNonCoherent(t *testing.T) {
	f := mmFabric(t, Config{NoFineGrained: true})
	gpu, npu := f.First(GPU), f.First(NPU)
	ps, err := f.AllocationProfiles([]*Device{gpu, npu}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Kind() != memory.CoarseGrained {
		t.Fatalf("profiles without fine-grained memory: %v, want [coarse-grained]", mmKinds(ps))
	}
	p := ps[0]
	b := mmAlloc(t, p, 64)
	for _, d := range []*Device{gpu, npu} {
		for fam := range d.Families() {
			if p.Coherent(d, fam) {
				t.Errorf("coarse-grained: %s %s is coherent", d.Name(), fam.Command)
			}
			if a, err := b.attachment(d, fam); err != nil || a.coherent {
				t.Errorf("coarse-grained buffer's attachment to %s %s: %+v, %v; want it non-coherent", d.Name(), fam.Command, a, err)
			}
		}
	}
	pm4, aql := mmView(t, b, gpu, PM4), mmView(t, b, gpu, AQL)
	b.storeWord(0, 9)
	mmLoad(t, "coarse-grained PM4 before a release", pm4, 0, 0)
	mmRelease(t, b, gpu, PM4, 0, 64)
	mmLoad(t, "coarse-grained PM4 after its release", pm4, 0, 9)
	mmLoad(t, "coarse-grained AQL after a PM4 release", aql, 0, 0)
	mmRelease(t, b, gpu, AQL, 0, 64)
	mmLoad(t, "coarse-grained AQL after its release", aql, 0, 9)

	aql.Store(4, 12)
	mmHost(t, "coarse-grained GPU store before Drain", b, 4, 0)
	if n := aql.Drain(); n != 1 {
		t.Errorf("Drain wrote %d words, want 1", n)
	}
	mmHost(t, "coarse-grained GPU store after Drain", b, 4, 12)

	// On the default fabric coarse-grained memory comes second.
	g := mmFabric(t, Config{})
	ps, err = g.AllocationProfiles(g.Devices(), true)
	if err != nil {
		t.Fatal(err)
	}
	if k := mmKinds(ps); len(k) != 2 || k[0] != memory.FineGrained || k[1] != memory.CoarseGrained {
		t.Errorf("default host-accessible profiles %v, want [fine-grained coarse-grained]", k)
	}
	for _, d := range g.Devices() {
		for fam := range d.Families() {
			if ps[1].Coherent(d, fam) {
				t.Errorf("default coarse-grained: %s %s is coherent", d.Name(), fam.Command)
			}
		}
	}
}

// Device-local memory is not host-accessible: never offered when host
// access is asked for, offered last otherwise, and never allocated.
func TestMemoryDeviceLocalNotOfferedWithHostAccess(t *testing.T) {
	for _, noFine := range []bool{false, true} {
		f := mmFabric(t, Config{NoFineGrained: noFine})
		host, err := f.AllocationProfiles(f.Devices(), true)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range host {
			if p.Kind() == memory.DeviceLocal {
				t.Errorf("NoFineGrained=%v: device-local offered with host access: %v", noFine, mmKinds(host))
			}
		}
		all, err := f.AllocationProfiles(f.Devices(), false)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != len(host)+1 || all[len(all)-1].Kind() != memory.DeviceLocal {
			t.Fatalf("NoFineGrained=%v: profiles without host access %v, want %v then device-local", noFine, mmKinds(all), mmKinds(host))
		}
		before := f.Budget().State()
		if _, err := all[len(all)-1].Allocate(64, nil, 0); err == nil {
			t.Error("allocating host memory from the device-local profile succeeded")
		} else {
			mmKind(t, "device-local Allocate", err, failure.Unsupported)
		}
		if after := f.Budget().State(); after != before {
			t.Errorf("a refused device-local allocation changed the budget: %+v -> %+v", before, after)
		}
	}
	f := mmFabric(t, Config{})
	if _, err := f.AllocationProfiles(nil, true); err == nil {
		t.Error("AllocationProfiles of no devices succeeded")
	}
	other := mmFabric(t, Config{})
	if _, err := f.AllocationProfiles([]*Device{other.First(GPU)}, true); err == nil {
		t.Error("AllocationProfiles with another fabric's device succeeded")
	}
}

// "A memory.Budget has a limit in bytes; allocations charge it, releases
// return it": charged per allocation rounded to lines, refused over the
// limit with a failure.Budget error that changes nothing.
func TestMemoryBudgetChargesWholeLinesAndRefusesOverLimit(t *testing.T) {
	f := mmFabric(t, Config{Budget: 256})
	p := mmProfile(t, f, memory.FineGrained)
	a := mmAlloc(t, p, 1) // 64
	mmCharged(t, f, 64, 0)
	b := mmAlloc(t, p, 100) // 128
	mmCharged(t, f, 192, 0)

	_, err := p.Allocate(65, nil, 0) // 128 more would make 320
	if err == nil {
		t.Fatal("an allocation over the budget succeeded")
	}
	mmKind(t, "Allocate over the budget", err, failure.Budget)
	mmCharged(t, f, 192, 0)
	if evs := f.Events().Events(func(e *event.Event) bool { return e.Kind == evAllocFailed }); len(evs) != 1 || evs[0].B != 128 {
		t.Errorf("alloc.failed events %+v, want one of 128 bytes", evs)
	}

	c := mmAlloc(t, p, 64) // exactly at the limit
	mmCharged(t, f, 256, 0)
	if _, err := p.Allocate(1, nil, 0); err == nil {
		t.Fatal("an allocation over a full budget succeeded")
	} else {
		mmKind(t, "Allocate over a full budget", err, failure.Budget)
	}
	if st := f.Budget().State(); st.Limit != 256 {
		t.Errorf("budget limit %d, want 256", st.Limit)
	}

	for _, x := range []struct {
		b    *Buffer
		left int64
	}{{b, 128}, {a, 64}, {c, 0}} {
		if err := x.b.Release(); err != nil {
			t.Fatalf("Release: %v", err)
		}
		mmCharged(t, f, x.left, 0)
	}
	if err := a.Release(); err == nil {
		t.Error("releasing a buffer twice succeeded")
	} else {
		mmKind(t, "second Release", err, failure.Busy)
	}
	mmCharged(t, f, 0, 0)

	// memory.alloc=error fails an allocation before anything is charged.
	if err := f.Faults().Set(fault.MemoryAlloc, "1*error(no memory)"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Allocate(64, nil, 0); err == nil || !strings.Contains(err.Error(), "no memory") {
		t.Errorf("Allocate with memory.alloc=error: %v, want the injected error", err)
	}
	mmCharged(t, f, 0, 0)
	mmAlloc(t, p, 64) // the fault fired once
	mmCharged(t, f, 64, 0)

	if _, err := p.Allocate(0, nil, 0); err == nil {
		t.Error("Allocate(0) succeeded")
	} else {
		mmKind(t, "Allocate(0)", err, failure.Invalid)
	}
}

// "Release ... refuses, and keeps the memory, while a program that can
// reach the buffer has not retired", in both executors.
func TestMemoryReleaseRefusedWhileReachableProgramRuns(t *testing.T) {
	for _, cfg := range mmConfigs() {
		t.Run(mmName(cfg), func(t *testing.T) {
			f := mmFabric(t, cfg)
			gpu := f.First(GPU)
			p := mmProfile(t, f, memory.FineGrained)
			b := mmAlloc(t, p, 128)
			unreached := mmAlloc(t, p, 64)
			var seen atomic.Uint32
			pp := mmPrepare(t, gpu, AQL, mmWaitNonZero(mmView(t, b, gpu, AQL), 64, &seen), 0, b)
			if r := slices.Collect(pp.Reach()); len(r) != 1 || r[0] != b {
				t.Fatalf("Reach() = %v, want [buffer %d]", r, b.ID())
			}
			c := mmDispatch(t, pp)
			err := b.Release()
			mmKind(t, "Release while reachable (just dispatched)", err, failure.Busy)
			if ok, _ := c.waitFor(mmNever); ok {
				t.Fatal("the program retired on its own")
			}
			err = b.Release()
			mmKind(t, "Release while reachable (waiting)", err, failure.Busy)
			if !strings.Contains(err.Error(), "reachable") {
				t.Errorf("refusal %q does not say the buffer is reachable", err)
			}
			if evs := mmEvents(f, event.EvReleaseRefused, b.ID()); len(evs) != 2 {
				t.Errorf("%d release.refused events for buffer %d, want 2", len(evs), b.ID())
			}
			if len(mmEvents(f, event.EvRelease, b.ID())) != 0 {
				t.Error("a release event was emitted for a refused release")
			}
			mmCharged(t, f, 192, 0)
			// The memory is still mapped and usable.
			b.storeWord(64, 77)
			if ok, err := c.waitFor(mmSoon); !ok || err != nil {
				t.Fatalf("Wait = %v, %v; want retired", ok, err)
			}
			if seen.Load() != 77 {
				t.Errorf("the program saw %d, want 77", seen.Load())
			}
			// A buffer the program cannot reach was releasable all along;
			// the reached one is releasable once the program retired.
			if err := unreached.Release(); err != nil {
				t.Errorf("Release of a buffer no program reaches: %v", err)
			}
			if err := b.Release(); err != nil {
				t.Errorf("Release after the program retired: %v", err)
			}
			mmCharged(t, f, 0, 0)
			if len(mmEvents(f, event.EvRelease, b.ID())) != 1 {
				t.Error("no release event for the released buffer")
			}
		})
	}
}

// "Unmapped only when released (never when quarantined)", "quarantined
// memory stays charged": a quarantine keeps the memory mapped and charged
// and the devices occupied until every one of its devices was reset.
func TestMemoryQuarantinedMemoryStaysMappedAndCharged(t *testing.T) {
	for _, cfg := range mmConfigs() {
		t.Run(mmName(cfg), func(t *testing.T) {
			f := mmFabric(t, cfg)
			gpu, npu := f.First(GPU), f.First(NPU)
			p := mmProfile(t, f, memory.FineGrained)
			const size = 1239 * 4096
			before, _ := mmSharedMappings(t, size)
			b := mmAlloc(t, p, size)
			line := mmAlloc(t, p, 64)
			hang := &mmProgram{step: func(program.Env) program.Next { return program.Hang() }}
			c := mmDispatch(t, mmPrepare(t, gpu, PM4, hang, 99, b, line))
			if ok, _ := c.waitFor(mmNever); ok {
				t.Fatal("a hanging program retired")
			}
			total := int64(size + 64)
			f.Quarantine(99, "test quarantine", []*Device{gpu, npu}, []*Buffer{b, line})
			mmCharged(t, f, total, total)
			qs := f.Quarantines()
			if len(qs) != 1 || qs[0].Owner != 99 || qs[0].Bytes != total || strings.Join(qs[0].Waiting, ",") != "gpu0,npu0" {
				t.Fatalf("Quarantines() = %+v, want one of owner 99, %d bytes, waiting for gpu0 and npu0", qs, total)
			}
			if err := b.Release(); err == nil {
				t.Fatal("Release of quarantined memory succeeded")
			} else {
				mmKind(t, "Release of quarantined memory", err, failure.Busy)
			}
			if n, _ := mmSharedMappings(t, size); n != before+1 {
				t.Errorf("quarantined buffer: %d mappings of its size, want %d (still mapped)", n, before+1)
			}
			b.storeWord(0, 1) // still mapped: a store does not fault
			mmCharged(t, f, total, total)
			if !gpu.Occupied() || !npu.Occupied() {
				t.Errorf("Occupied: gpu %v npu %v, want both held by the quarantine", gpu.Occupied(), npu.Occupied())
			}
			idle := &mmProgram{step: func(program.Env) program.Next { return program.Retire(nil) }}
			np := mmPrepare(t, npu, XDNA, idle, 0)
			if _, err := np.Dispatch(); err == nil {
				t.Error("a dispatch to a device held by a quarantine was accepted")
			} else {
				mmKind(t, "Dispatch to a held device", err, failure.Busy)
			}

			gpu.Reset()
			if ok, err := c.waitFor(mmSoon); !ok || err == nil {
				t.Errorf("completion of the reset program: %v, %v; want retired with a reset error", ok, err)
			} else {
				mmKind(t, "reset program", err, failure.Device)
			}
			mmCharged(t, f, total, total) // the NPU was not reset yet
			if qs := f.Quarantines(); len(qs) != 1 || strings.Join(qs[0].Waiting, ",") != "npu0" {
				t.Errorf("after resetting gpu0: %+v, want the quarantine waiting for npu0", qs)
			}
			if n, _ := mmSharedMappings(t, size); n != before+1 {
				t.Errorf("after resetting only gpu0: %d mappings, want %d", n, before+1)
			}

			npu.Reset()
			mmCharged(t, f, 0, 0)
			if qs := f.Quarantines(); len(qs) != 0 {
				t.Errorf("after resetting both: %+v, want no quarantine", qs)
			}
			if n, _ := mmSharedMappings(t, size); n != before {
				t.Errorf("after the quarantine ended: %d mappings, want %d (unmapped)", n, before)
			}
			if evs := f.Events().Events(func(e *event.Event) bool { return e.Kind == event.EvQuarantineEnd && e.Session == 99 }); len(evs) != 1 || evs[0].A != uint64(total) {
				t.Errorf("quarantine.end events %+v, want one returning %d bytes", evs, total)
			}
			if gpu.Occupied() || npu.Occupied() {
				t.Error("a device is still occupied after its reset")
			}
		})
	}
}

// "Does not see a host store until a host release ...", under real
// concurrency: a device program may be polling a buffer through its
// non-coherent view at the moment the host stores into the buffer for the
// first time. No release is ever executed here, so the reader must never
// see the store.
func TestMemoryFirstHostStoreHiddenFromConcurrentReader(t *testing.T) {
	f := mmFabric(t, Config{})
	npu := f.First(NPU)
	p := mmProfile(t, f, memory.FineGrained)
	xdna := mmFamily(t, npu, XDNA)
	var cur atomic.Pointer[View]
	var stop atomic.Bool
	var loops, leaks atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			if v := cur.Load(); v != nil && v.Load(0) != 0 {
				leaks.Add(1)
			}
			loops.Add(1)
		}
	}()
	var bufs []*Buffer
	defer func() {
		stop.Store(true)
		<-done
		for _, b := range bufs {
			_ = b.Release()
		}
	}()
	deadline := time.Now().Add(1500 * time.Millisecond)
	n := 0
	for ; n < 3000 && leaks.Load() == 0 && time.Now().Before(deadline); n++ {
		b := mmAlloc(t, p, 64)
		bufs = append(bufs, b)
		v, err := b.View(npu, xdna)
		if err != nil {
			t.Fatal(err)
		}
		cur.Store(v)
		for l := loops.Load(); loops.Load() < l+2; {
			runtime.Gosched() // let the reader poll the fresh buffer
		}
		b.storeWord(0, 1) // the buffer's first host store
	}
	cur.Store(nil)
	if k := leaks.Load(); k > 0 {
		t.Errorf("a non-coherent reader saw the host's first store into a buffer with no release executed (%d times in %d buffers)", k, n)
	}
}

// WritePlain is StorePlain of each word in turn: a coherent view's words
// are in memory at once, a non-coherent view's after its drain, which
// writes each (and a word stored twice once, its last value).
func TestMemoryWritePlainIsAStorePlainOfEachWord(t *testing.T) {
	_, gpu, npu, b := mmShared(t, Config{Mode: RealTime}, 256)
	gv := mmView(t, b, gpu, AQL)
	gv.WritePlain(16, []uint32{1, 2, 3})
	for i, want := range []uint32{1, 2, 3} {
		mmHost(t, "a coherent WritePlain", b, 16+4*i, want)
	}
	nv := mmView(t, b, npu, XDNA)
	nv.WritePlain(128, []uint32{4, 5})
	nv.WritePlain(132, []uint32{6})
	mmLoad(t, "the NPU reads its own WritePlain", nv, 132, 6)
	mmHost(t, "a non-coherent WritePlain before Drain", b, 128, 0)
	if n := nv.Drain(); n != 2 {
		t.Errorf("Drain wrote %d words, want the two words written", n)
	}
	mmHost(t, "a non-coherent WritePlain after Drain", b, 128, 4)
	mmHost(t, "a word written twice, after Drain", b, 132, 6)
}
