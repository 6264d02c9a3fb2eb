package cuda_test

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/backends/cuda"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/luaprogram"
	"github.com/residentlua/residentlua/programs/kernel"
)

// The worked example of docs/cuda.md: programs/exchange/exchange_gpu.ptx (built from
// exchange_gpu.cu) plays the GPU half of the Lua exchange beside its NPU
// half, programs/exchange/exchange_npu.lua, running in real time.
const (
	examplePTX   = "../../programs/exchange/exchange_gpu.ptx"
	exampleEntry = "exchange_gpu"
)

// userPair prepares the example kernel beside the Lua NPU half for an
// exchange of rounds generations through credits slots.
func userPair(t *testing.T, f *devices.Fabric, rounds, credits int) engine.Programs {
	t.Helper()
	ptx, err := os.ReadFile(examplePTX)
	if err != nil {
		t.Fatalf("the example's PTX (build it with nvcc, docs/cuda.md): %v", err)
	}
	launcher := f.First(devices.GPU).Accelerator().(kernel.Launcher)
	mod, err := launcher.Load(ptx, exampleEntry)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	npu, err := luaprogram.Load(context.Background(), "../../programs/exchange/exchange_npu.lua", luaprogram.Options{Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	args := luaprogram.Numbers(map[string]float64{"rounds": float64(rounds), "credits": float64(credits), "slot_bytes": 64})
	decl, err := luaprogram.Declared(nil, npu, args)
	if err != nil {
		t.Fatal(err)
	}
	pair := luaprogram.Pair{NPU: npu, Args: args}
	for _, b := range decl {
		pair.Buffers = append(pair.Buffers, luaprogram.Sized{Name: b.Name, Bytes: int(b.Size.(float64))})
	}
	pair.GPUProgram = func(line *devices.Buffer, bufs []*devices.Buffer, owner uint64) (program.Program, error) {
		block := kernel.Block{Startup: line.Region(), Owner: owner, Values: []int64{int64(rounds), int64(credits), 64}}
		for _, b := range bufs {
			block.Buffers = append(block.Buffers, b.Region())
		}
		return kernel.NewProgram(mod, exampleEntry, block)
	}
	return pair.Programs
}

// TestUserKernelBesideALuaNPU runs the example kernel with the Lua NPU half:
// it retires and passes the NPU's check; its hang is quarantined, and the
// resets release the quarantine so that the next session runs.
func TestUserKernelBesideALuaNPU(t *testing.T) {
	f, _ := gpuFabric(t)
	gpu, npu := pair(f)
	s, err := engine.Open(gpu, npu, userPair(t, f, 200, 4))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	started(t, s)
	if ok, err := s.Wait(gpuWait); !ok || err != nil {
		t.Fatalf("Wait = %v, %v; want both retired", ok, err)
	}
	if problem, checked := s.Checked(); !checked || problem != nil {
		t.Fatalf("the NPU's check: %v (ran %v)", problem, checked)
	}
	if out := s.Close(); out != engine.Retired {
		t.Fatalf("Close = %v", out)
	}

	if err := f.Faults().Set(fault.GPURun, "1*hang"); err != nil {
		t.Fatal(err)
	}
	hung, err := engine.Open(gpu, npu, userPair(t, f, 10, 2))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	started(t, hung)
	if ok, err := hung.Wait(200 * time.Millisecond); ok || err != nil {
		t.Fatalf("Wait of a hung kernel = %v, %v; want a timeout", ok, err)
	}
	if out := hung.CloseWithin(context.Background(), 100*time.Millisecond); out != engine.Quarantined {
		t.Fatalf("Close of a hung kernel's session = %v, want quarantined", out)
	}
	gpu.Reset()
	npu.Reset()
	if q := f.Quarantines(); len(q) != 0 {
		t.Fatalf("after both resets %d quarantines are left", len(q))
	}
	again, err := engine.Open(gpu, npu, userPair(t, f, 20, 1))
	if err != nil {
		t.Fatalf("Open after the reset: %v", err)
	}
	started(t, again)
	if ok, err := again.Wait(gpuWait); !ok || err != nil {
		t.Fatalf("Wait after the reset = %v, %v", ok, err)
	}
	if problem, _ := again.Checked(); problem != nil || again.Close() != engine.Retired {
		t.Fatalf("after the reset: check %v", problem)
	}
}

// TestUserKernelLoadErrors: a PTX that does not load and an entry that is
// not in it are errors of Load, before anything is dispatched.
func TestUserKernelLoadErrors(t *testing.T) {
	f, _ := gpuFabric(t)
	launcher := f.First(devices.GPU).Accelerator().(kernel.Launcher)
	if _, err := launcher.Load([]byte("this is not PTX"), "k"); err == nil || !strings.Contains(err.Error(), "the PTX does not load") {
		t.Errorf("Load of garbage: %v", err)
	}
	ptx, err := os.ReadFile(examplePTX)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := launcher.Load(ptx, "no_such_kernel"); err == nil || !strings.Contains(err.Error(), `the PTX has no kernel entry "no_such_kernel"`) {
		t.Errorf("Load of a missing entry: %v", err)
	}
}

// TestLoadingAKernelAgainGivesTheModuleLoadedBefore checks that the GPU keeps
// what it compiled: the same PTX and entry give the same module, another
// entry or a Load that failed is not taken for it, and after Close a Load
// is refused.
func TestLoadingAKernelAgainGivesTheModuleLoadedBefore(t *testing.T) {
	g, err := cuda.Open()
	if err != nil {
		t.Skipf("skipped: this test needs a CUDA GPU: %v", err)
	}
	ptx, err := os.ReadFile(examplePTX)
	if err != nil {
		t.Fatal(err)
	}
	first, err := g.Load(ptx, exampleEntry)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	again, err := g.Load(append([]byte(nil), ptx...), exampleEntry)
	if err != nil || again != first {
		t.Errorf("a second Load of the kernel = %v, %v; want the module loaded first", again, err)
	}
	if _, err := g.Load(ptx, "no_such_kernel"); err == nil {
		t.Error("a Load of another entry was given the loaded kernel")
	}
	for i := range 2 {
		if _, err := g.Load([]byte("this is not PTX"), "k"); err == nil {
			t.Errorf("Load %d of garbage succeeded", i)
		}
	}
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := g.Load(ptx, exampleEntry); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Load after Close = %v, want the closed backend refused", err)
	}
}
