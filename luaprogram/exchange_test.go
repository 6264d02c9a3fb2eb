package luaprogram_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/residentlua/residentlua/devices/exchange"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/trial"
	"github.com/residentlua/residentlua/luaprogram"
)

// luaExchange loads the exchange's two Lua programs.
func luaExchange(t testing.TB) (gpu, npu *luaprogram.Program) {
	t.Helper()
	opts := luaprogram.Options{Stdout: io.Discard}
	gpu, err := luaprogram.Load("../programs/exchange_gpu.lua", opts)
	if err != nil {
		t.Fatal(err)
	}
	npu, err = luaprogram.Load("../programs/exchange_npu.lua", opts)
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
		luaRun := trial.Run(trial.Config{Seed: seed, Programs: programs})
		if goRun.Digest != luaRun.Digest || goRun.Events != luaRun.Events {
			t.Fatalf("seed %d: the Go exchange gave %d events (digest %#x), the Lua one %d (digest %#x)\nGo:\n%s\nLua:\n%s",
				seed, goRun.Events, goRun.Digest, luaRun.Events, luaRun.Digest, goRun, luaRun)
		}
		if len(luaRun.Violations) != 0 {
			t.Fatalf("seed %d: %v", seed, luaRun.Violations)
		}
	}
}

// BenchmarkTrial is one randomized trial (engine/trial: three sessions,
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
				for i := 0; b.Loop(); i++ {
					trial.Run(trial.Config{Seed: uint64(i%1000 + 1), SlotBytes: slot, Programs: c.programs, NoOps: true})
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
		r := trial.Run(trial.Config{Seed: seed, Programs: programs})
		cancel()
		if !r.OK() {
			t.Fatalf("seed %d: %s", seed, r.Report())
		}
	}
}
