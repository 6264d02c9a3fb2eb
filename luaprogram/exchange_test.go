package luaprogram_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/residentlua/residentlua/campaign/trial"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/luaprogram"
	"github.com/residentlua/residentlua/programs/exchange"
)

// luaExchange loads the exchange's two Lua programs.
func luaExchange(t testing.TB) (gpu, npu *luaprogram.Program) {
	t.Helper()
	opts := luaprogram.Options{Stdout: io.Discard}
	gpu, err := luaprogram.Load(context.Background(), "../programs/exchange/exchange_gpu.lua", opts)
	if err != nil {
		t.Fatal(err)
	}
	npu, err = luaprogram.Load(context.Background(), "../programs/exchange/exchange_npu.lua", opts)
	if err != nil {
		t.Fatal(err)
	}
	return gpu, npu
}

// luaPrograms prepares the Lua exchange for an exchange shape, as the Go
// exchange's exchange.Programs does.
func luaPrograms(t testing.TB, gpu, npu *luaprogram.Program) func(exchange.Config) engine.Programs {
	return func(x exchange.Config) engine.Programs {
		args := luaprogram.Numbers(map[string]float64{"rounds": float64(x.Rounds), "credits": float64(x.Credits), "slot_bytes": float64(x.SlotBytes)})
		decl, err := luaprogram.Declared(gpu, npu, args)
		if err != nil {
			t.Fatal(err)
		}
		pair := luaprogram.Pair{GPU: gpu, NPU: npu, Args: args, Queue: x.GPUQueue}
		for _, b := range decl {
			pair.Buffers = append(pair.Buffers, luaprogram.Sized{Name: b.Name, Bytes: int(b.Size.(float64))})
		}
		return pair.Programs
	}
}

// TestLuaExchangeGivesTheGoExchangesEvents runs randomized trials (random
// faults at random sites, random host operations) of the built-in exchange
// and of its Lua text, seed by seed: the two give the same event stream.
func TestLuaExchangeGivesTheGoExchangesEvents(t *testing.T) {
	seeds := 1000
	if testing.Short() {
		seeds = 100
	}
	gpu, npu := luaExchange(t)
	programs := luaPrograms(t, gpu, npu)
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		goRun := trial.Run(trial.Config{Seed: seed})
		luaRun := trial.Run(trial.Config{Seed: seed, Pair: trial.Exchange{Programs: programs}})
		if goRun.Digest != luaRun.Digest || goRun.Events != luaRun.Events {
			t.Fatalf("seed %d: the Go exchange gave %d events (digest %#x), the Lua one %d (digest %#x)\nGo:\n%s\nLua:\n%s",
				seed, goRun.Events, goRun.Digest, luaRun.Events, luaRun.Digest, goRun, luaRun)
		}
		if len(luaRun.Violations) != 0 {
			t.Fatalf("seed %d: %v", seed, luaRun.Violations)
		}
	}
}

// TestLuaExchangeWritesTheGoExchangesWords runs sessions of the Lua
// exchange of several shapes and reads what it left in memory: the words
// of the generations still in their slots are the Go exchange's Pattern,
// and each generation's checksum in the result area is the FNV-1a of its
// pattern, computed here in Go. So the programs' word arithmetic (which
// their own check repeats, and so cannot catch) is the Go exchange's and
// the CUDA kernel's.
func TestLuaExchangeWritesTheGoExchangesWords(t *testing.T) {
	gpu, npu := luaExchange(t)
	programs := luaPrograms(t, gpu, npu)
	for _, x := range []exchange.Config{
		{Rounds: 5, Credits: 1, SlotBytes: 8},
		{Rounds: 7, Credits: 3, SlotBytes: 64},
		{Rounds: 9, Credits: 4, SlotBytes: 256},
		{Rounds: 3, Credits: 2, SlotBytes: 1024},
	} {
		f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 { // later sessions have other owners
			s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), programs(x))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SubmitGPU(); err != nil {
				t.Fatal(err)
			}
			if err := s.SubmitNPU(); err != nil {
				t.Fatal(err)
			}
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			if ok, err := s.Wait(time.Second); !ok || err != nil {
				t.Fatalf("%+v: Wait = %v, %v", x, ok, err)
			}
			payload, owner := slices.Collect(s.NPU().Reach())[1], s.ID()
			l, words := exchange.Layout(x.SlotBytes), x.SlotBytes/4
			for g := 1; g <= x.Rounds; g++ {
				want := uint32(2166136261)
				for i := range words {
					want = (want ^ exchange.Pattern(owner, g, i)) * 16777619
				}
				if sum := payload.HostLoad(x.Credits*l.Stride + (g-1)*16 + 8); sum != want {
					t.Errorf("%+v, owner %d: generation %d's checksum is %#x, want %#x", x, owner, g, sum, want)
				}
				if g <= x.Rounds-x.Credits {
					continue // its slot holds a later generation
				}
				for i := range words {
					off := ((g-1)%x.Credits)*l.Stride + l.Data + 4*i
					if w, want := payload.HostLoad(off), exchange.Pattern(owner, g, i); w != want {
						t.Fatalf("%+v, owner %d: word %d of generation %d is %#x, want %#x", x, owner, g, i, w, want)
					}
				}
			}
			if out := s.Close(); out != engine.Retired {
				t.Fatalf("%+v: Close = %v", x, out)
			}
		}
		f.Close()
	}
}

// BenchmarkTrial is one randomized trial (campaign/trial: three sessions,
// random faults, random host operations) of the built-in exchange, and of
// the same trial with its Lua programs, with slots of up to 8 bytes (where
// the hosting of the programs is the most of a Lua trial's cost) and of up
// to 256 (the trial's default, where the programs' own arithmetic in Lua
// is).
func BenchmarkTrial(b *testing.B) {
	gpu, npu := luaExchange(b)
	for _, slot := range []int{8, 256} {
		for _, c := range []struct {
			name     string
			programs func(exchange.Config) engine.Programs
		}{{"go", nil}, {"lua", luaPrograms(b, gpu, npu)}} {
			b.Run(fmt.Sprintf("slot=%d/%s", slot, c.name), func(b *testing.B) {
				w := trial.NewWorld()
				defer w.Close()
				var r trial.Result
				for i := 0; b.Loop(); i++ {
					w.Run(trial.Config{Seed: uint64(i%1000 + 1), Pair: trial.Exchange{SlotBytes: slot, Programs: c.programs}, NoOps: true}, &r)
				}
			})
		}
	}
}

// TestStatesOutliveTheirUsersContexts runs trials whose programs' context
// ends after each, as a campaign's trials do: the next user of each Lua
// state (a declaration of buffers first) is not stopped by an earlier
// user's ended context.
func TestStatesOutliveTheirUsersContexts(t *testing.T) {
	gpu, npu := luaExchange(t)
	for seed := uint64(1); seed <= 5; seed++ {
		ctx, cancel := context.WithCancel(context.Background())
		programs := func(x exchange.Config) engine.Programs {
			args := luaprogram.Numbers(map[string]float64{"rounds": float64(x.Rounds), "credits": float64(x.Credits), "slot_bytes": float64(x.SlotBytes)})
			decl, err := luaprogram.Declared(gpu, npu, args)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			pair := luaprogram.Pair{GPU: gpu, NPU: npu, Args: args, Queue: x.GPUQueue, Context: ctx}
			for _, b := range decl {
				pair.Buffers = append(pair.Buffers, luaprogram.Sized{Name: b.Name, Bytes: int(b.Size.(float64))})
			}
			return pair.Programs
		}
		r := trial.Run(trial.Config{Seed: seed, Pair: trial.Exchange{Programs: programs}})
		cancel()
		if !r.OK() {
			t.Fatalf("seed %d: %s", seed, r.Report())
		}
	}
}
