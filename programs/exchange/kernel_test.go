package exchange

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/programs/kernel"
)

// The exchange's kernel (exchange_gpu.cu) is given only the slot bytes and
// computes its slots' offsets itself: the data at +8, the credit word at
// ceil((8 + slot_bytes) / 128) * 128 and the next slot a pair of lines
// after it. That must be Layout's answer for every slot size, or the NPU
// half would read the generations and write the credits elsewhere than
// the kernel.
func TestTheKernelLaysSlotsOutAsLayoutDoes(t *testing.T) {
	src, err := os.ReadFile("exchange_gpu.cu")
	if err != nil {
		t.Fatal(err)
	}
	for _, formula := range []string{
		"const u32 gpu = (8 + slot_bytes + 127) / 128 * 128, stride = gpu + 128",
		"(const u32 *)(base + gpu)",
		"(volatile u32 *)(base + 8)",
		"store_release((u32 *)base, g)",
	} {
		if !strings.Contains(string(src), formula) {
			t.Fatalf("exchange_gpu.cu no longer says %q; check its layout against Layout and update this test", formula)
		}
	}
	kernelLayout := func(slotBytes int) SlotLayout {
		gpu := (8 + slotBytes + 127) / 128 * 128
		return SlotLayout{Data: 8, Credit: gpu, Stride: gpu + 128}
	}
	for _, slotBytes := range []int{8, 56, 64, 112, 120, 128, 240, 248, 256, 1000, 4096, MaxSlotBytes - 8, MaxSlotBytes} {
		if got, want := Layout(slotBytes), kernelLayout(slotBytes); got != want {
			t.Errorf("%d-byte slots: Layout %+v, the kernel's %+v", slotBytes, got, want)
		}
	}
}

// The embedded PTX is the kernel the backend launches: its entry takes the
// whole ResidentArgs block (440 bytes) by value, it reads shared words only
// with ld.acquire.sys (a plain global load of mapped memory is a PCIe round
// trip), it stores its start at entry, and its modes and endings are
// programs/kernel's.
func TestTheEmbeddedKernelTakesTheGenericBlock(t *testing.T) {
	ptx := string(kernelPTX)
	for _, want := range []string{".target sm_75", ".entry " + kernelEntry + "(\n\t.param .align 8 .b8 " + kernelEntry + "_param_0[440]", "ld.acquire.sys.global.u32", "st.release.sys.global.u32", "%globaltimer"} {
		if !strings.Contains(ptx, want) {
			t.Errorf("exchange_gpu.ptx lacks %q; rebuild it from exchange_gpu.cu with the command in that file", want)
		}
	}
	if n := strings.Count(ptx, "ld.global"); n != 0 {
		t.Errorf("exchange_gpu.ptx has %d plain global loads; the kernel should read shared words only with ld.acquire.sys", n)
	}
	src, err := os.ReadFile("exchange_gpu.cu")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"s->started = globaltimer();", // at entry, which Start awaits (Block.AwaitStart)
		fmt.Sprintf("enum { MODE_RUN = %d, MODE_HANG = %d, MODE_IGNORE_ABORT = %d, MODE_CRASH = %d };", kernel.ModeRun, kernel.ModeHang, kernel.ModeIgnoreAbort, kernel.ModeCrash),
		fmt.Sprintf("enum { DONE_OK = %d, DONE_CRASHED = %d, DONE_STOPPED = %d, DONE_BAD_DECISION = %d };", kernel.DoneOK, kernel.DoneCrashed, kernel.DoneStopped, kernel.DoneBadDecision),
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("exchange_gpu.cu does not say %q: its modes or endings differ from programs/kernel's", want)
		}
	}
}

// kernelEnv is an Env for driving the GPU half on an accelerator by hand:
// it fires fault, counts the doorbell's rings and answers resetErr for a
// reset.
type kernelEnv struct {
	stepEnv
	fired    fault.Fired
	rings    int
	resetErr error
}

func (e *kernelEnv) Fault(fault.Site) fault.Fired { return e.fired }
func (e *kernelEnv) Ring()                        { e.rings++ }
func (e *kernelEnv) ResetError() error            { return e.resetErr }

// scriptedModule launches scriptedRunning, recording each block.
type scriptedModule struct {
	blocks  []kernel.Block
	running *scriptedRunning
	err     error
}

func (m *scriptedModule) Launch(b kernel.Block) (kernel.Running, error) {
	m.blocks = append(m.blocks, b)
	if m.err != nil {
		return nil, m.err
	}
	return m.running, nil
}

// scriptedRunning reports status, and checkErr when the driver is asked.
type scriptedRunning struct {
	status   kernel.Status
	checkErr error
	checks   int
}

func (r *scriptedRunning) Status() kernel.Status { return r.status }
func (r *scriptedRunning) Check() (bool, error)  { r.checks++; return false, r.checkErr }

// startedByHand is the GPU half of an exchange of cfg on an accelerator,
// its kernel m, started in env.
func startedByHand(t *testing.T, cfg Config, m *scriptedModule, env *kernelEnv) (*kernelExchange, *Exchange, error) {
	t.Helper()
	x := preparedByHand(t, fabricByHand(t, devices.Simulated), cfg)
	p := &kernelExchange{x: x, module: m, startup: x.payload}
	return p, x, p.Start(env)
}

// Start hands the kernel the generic block (the payload, rounds, credits
// and slot bytes, awaiting its start) with the gpu.run fault as its mode;
// a launch that fails is a device error that says so.
func TestTheKernelsBlockCarriesTheExchangeAndTheRunFault(t *testing.T) {
	cfg := Config{Rounds: 5, Credits: 3, SlotBytes: 24, GPUQueue: devices.AQL}
	for _, tc := range []struct {
		fired fault.Fired
		mode  kernel.Mode
		delay time.Duration
	}{
		{fault.Fired{}, kernel.ModeRun, 0},
		{fault.Fired{Action: fault.Hang}, kernel.ModeHang, 0},
		{fault.Fired{Action: fault.Crash, Message: "boom"}, kernel.ModeCrash, 0},
		{fault.Fired{Action: fault.IgnoreAbort}, kernel.ModeIgnoreAbort, 0},
		{fault.Fired{Action: fault.Delay, Delay: 3 * time.Millisecond}, kernel.ModeRun, 3 * time.Millisecond},
	} {
		m := &scriptedModule{running: &scriptedRunning{}}
		_, x, err := startedByHand(t, cfg, m, &kernelEnv{fired: tc.fired})
		if err != nil || len(m.blocks) != 1 {
			t.Fatalf("%v: Start = %v after %d launches", tc.fired.Action, err, len(m.blocks))
		}
		b := m.blocks[0]
		switch {
		case b.Mode != tc.mode || b.Delay != tc.delay:
			t.Errorf("%v: mode %d, delay %v; want %d, %v", tc.fired.Action, b.Mode, b.Delay, tc.mode, tc.delay)
		case len(b.Buffers) != 1 || b.Buffers[0] != x.payload.Region() || b.Owner != x.owner || !b.AwaitStart:
			t.Errorf("%v: buffers %v, owner %d, AwaitStart %v; want the payload alone, %d, true", tc.fired.Action, b.Buffers, b.Owner, b.AwaitStart, x.owner)
		case !slices.Equal(b.Values, []int64{5, 3, 24}):
			t.Errorf("%v: values %v, want rounds, credits and slot bytes", tc.fired.Action, b.Values)
		}
	}
	m := &scriptedModule{err: errors.New("out of streams")}
	if _, _, err := startedByHand(t, cfg, m, &kernelEnv{}); !errors.Is(err, failure.Device) || !strings.Contains(err.Error(), "test could not launch the kernel: out of streams") {
		t.Errorf("a failed launch: Start = %v", err)
	}
}

// How the kernel ended is the invocation's result: the crash fault's
// message, a bad decision, a reset's error for a stopped kernel.
func TestTheKernelsEndingIsTheResult(t *testing.T) {
	reset := errors.New("reset")
	for _, tc := range []struct {
		status kernel.Status
		want   string // "" for no error
	}{
		{kernel.Status{Observed: 1, Done: kernel.DoneOK}, ""},
		{kernel.Status{Observed: 1, Done: kernel.DoneCrashed}, "test crashed: boom"},
		{kernel.Status{Observed: 7, Done: kernel.DoneBadDecision}, "test read 7 from the startup word; only RUN (1) or ABORT (2) may follow WAIT"},
		{kernel.Status{Done: kernel.DoneStopped}, "reset"},
		{kernel.Status{Observed: 1, Done: 9}, "test's kernel ended with unknown code 9"},
	} {
		r := &scriptedRunning{status: tc.status}
		env := &kernelEnv{fired: fault.Fired{Action: fault.Crash, Message: "boom"}, resetErr: reset}
		p, _, err := startedByHand(t, Default(), &scriptedModule{running: r}, env)
		if err != nil {
			t.Fatal(err)
		}
		next := p.Step(env)
		err = next.Err()
		switch {
		case next.Kind() != program.NextRetire:
			t.Errorf("done %d: Step = %v, want a retirement", tc.status.Done, next.Kind())
		case tc.want == "" && err != nil, tc.want != "" && (err == nil || !strings.HasSuffix(err.Error(), tc.want)):
			t.Errorf("done %d: retired with %v, want %q", tc.status.Done, err, tc.want)
		case tc.status.Done == kernel.DoneStopped && err != reset:
			t.Errorf("a stopped kernel retired with %v, want the reset's error", err)
		}
	}
}

// While the kernel runs, the doorbell rings when a slot's generation word
// changes, and only then; the driver is asked whether the kernel failed
// every faultCheckEvery polls, and a failure retires the half.
func TestTheWatcherRingsOnNewGenerationsAndChecksForFaults(t *testing.T) {
	r := &scriptedRunning{}
	env := &kernelEnv{}
	p, x, err := startedByHand(t, Config{Rounds: 4, Credits: 2, SlotBytes: 8, GPUQueue: devices.AQL}, &scriptedModule{running: r}, env)
	if err != nil {
		t.Fatal(err)
	}
	if next := p.Step(env); next.Kind() != program.NextPoll || env.rings != 0 {
		t.Fatalf("nothing changed: Step = %v with %d rings, want a poll and none", next.Kind(), env.rings)
	}
	x.payload.Region().Store(x.genOff(1), 1)
	if next := p.Step(env); next.Kind() != program.NextContinue || env.rings != 1 {
		t.Fatalf("slot 1's generation changed: Step = %v with %d rings, want to go on after one", next.Kind(), env.rings)
	}
	if next := p.Step(env); next.Kind() != program.NextPoll || env.rings != 1 {
		t.Fatalf("nothing changed since: Step = %v with %d rings, want a poll and no more", next.Kind(), env.rings)
	}
	r.checkErr = errors.New("illegal address")
	for p.polls%faultCheckEvery != faultCheckEvery-1 {
		if next := p.Step(env); next.Kind() != program.NextPoll {
			t.Fatalf("poll %d: Step = %v before the driver was asked", p.polls, next.Kind())
		}
	}
	if r.checks != 0 {
		t.Fatalf("the driver was asked %d times within %d polls", r.checks, p.polls)
	}
	next := p.Step(env)
	if err := next.Err(); next.Kind() != program.NextRetire || !errors.Is(err, failure.Device) || !strings.Contains(err.Error(), "test: the kernel failed: illegal address") || r.checks != 1 {
		t.Errorf("after %d polls with a failed kernel: Step = %v, %v (%d checks); want a retirement saying so", p.polls, next.Kind(), err, r.checks)
	}
}
