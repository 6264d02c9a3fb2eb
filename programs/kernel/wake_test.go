package kernel_test

import (
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/devices/wait"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/luaprogram"
	"github.com/residentlua/residentlua/programs/kernel"
)

// flagNPU waits for the flag a user's kernel raises in word 0 of its
// buffer, a write the host knows nothing about, and answers it in word 1.
const flagNPU = `return {
	buffers = function(a) return {flags = 64} end,
	run = function(p, a)
		local seen = p:load(p.startup, 0)
		while seen == p.WAIT do seen = p:wait(p.startup, 0, seen) end
		if seen ~= p.RUN then return end
		local f = p:load(p.buffers.flags, 0)
		while f == 0 do f = p:wait(p.buffers.flags, 0, f) end
		p:store(p.buffers.flags, 4, f + 1)
		p:drain(p.buffers.flags)
	end,
}`

// flagKernel plays a user's kernel on a real GPU, on a goroutine: it polls
// the startup word, reports RUN, raises the flag with a store of its own
// (as st.release.sys does: no view of the runtime announces it, no
// doorbell rings), and ends only once the NPU answered, so that nothing
// but the kernel program's polling can wake the NPU.
type flagKernel struct {
	observed, done atomic.Uint32
	gaveUp         atomic.Bool
}

func (k *flagKernel) Launch(b kernel.Block) (kernel.Running, error) {
	startup, flags := b.Startup, b.Buffers[0]
	go func() {
		deadline := time.Now().Add(20 * time.Second) // a failed test's kernel leaves
		for startup.Load(0) == program.StartupWait {
			if time.Now().After(deadline) {
				k.gaveUp.Store(true)
				return
			}
			time.Sleep(10 * time.Microsecond)
		}
		k.observed.Store(startup.Load(0))
		// Long enough for the NPU to go from polling the word to waiting
		// on it, parked under the block and hybrid policies.
		time.Sleep(50 * time.Millisecond)
		flags.Store(0, 41)
		for flags.Load(4) != 42 {
			if time.Now().After(deadline) {
				k.gaveUp.Store(true)
				return
			}
			time.Sleep(10 * time.Microsecond)
		}
		k.done.Store(uint32(kernel.DoneOK))
	}()
	return k, nil
}

func (k *flagKernel) Status() kernel.Status {
	return kernel.Status{Observed: k.observed.Load(), Done: kernel.Done(k.done.Load())}
}

func (k *flagKernel) Check() (bool, error) { return false, nil }

// TestUserKernelsFlagWakesTheNPU runs, in real time under each wait
// policy, a user's kernel that raises a flag the host knows nothing about
// beside an NPU program that waits for it: the kernel program's polling
// rings the doorbell, so the NPU, parked or spinning on the word, sees the
// flag and answers, and the session retires. The deadline is generous: the
// test asserts the outcome, not the speed.
func TestUserKernelsFlagWakesTheNPU(t *testing.T) {
	npu, err := luaprogram.Compile("flag_npu.lua", flagNPU, luaprogram.Options{Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer npu.Close()
	for _, policy := range []wait.Policy{wait.Spin, wait.Hybrid, wait.Block} {
		t.Run(policy.String(), func(t *testing.T) {
			f, err := devices.NewFabric(devices.Config{Mode: devices.RealTime, Wait: policy, Seed: 1})
			if err != nil && policy == wait.Spin {
				t.Skipf("skipped: %v", err) // spin needs a core for each device and the host
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			k := &flagKernel{}
			pair := luaprogram.Pair{NPU: npu, Buffers: []luaprogram.Sized{{Name: "flags", Bytes: 64}}, Queue: devices.AQL}
			pair.GPUProgram = func(line *devices.Buffer, bufs []*devices.Buffer, owner uint64) (program.Program, error) {
				regions := make([]*memory.Region, len(bufs))
				for i, b := range bufs {
					regions[i] = b.Region()
				}
				return kernel.NewProgram(k, "flag", kernel.Block{Startup: line.Region(), Buffers: regions, Owner: owner})
			}
			s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), pair.Programs)
			if err != nil {
				t.Fatal(err)
			}
			for _, verb := range []func() error{s.SubmitGPU, s.SubmitNPU, s.Start} {
				if err := verb(); err != nil {
					t.Fatal(err)
				}
			}
			ok, err := s.Wait(30 * time.Second)
			if !ok || err != nil || k.gaveUp.Load() {
				t.Fatalf("Wait = %v, %v (the kernel gave up: %v); the NPU never saw the kernel's flag", ok, err, k.gaveUp.Load())
			}
			if out := s.Close(); out != engine.Retired {
				t.Errorf("Close = %v", out)
			}
		})
	}
}
