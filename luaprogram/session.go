package luaprogram

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// Sized is a buffer of a session's programs with its size in bytes.
type Sized struct {
	Name  string
	Bytes int
}

// Pair is a session's two programs written in Lua, with what they are given.
type Pair struct {
	GPU, NPU *Program
	// GPUProgram, when set, makes the GPU program in place of GPU: one of
	// another kind (a user's kernel on a real GPU), given the startup line
	// and the buffers, in name order.
	GPUProgram func(line *devices.Buffer, buffers []*devices.Buffer, owner uint64) (program.Program, error)
	Args       Args
	// Buffers are the buffers both programs reach besides the startup
	// line, sorted by name (Declared lists what the programs declare).
	Buffers []Sized
	// Queue is the GPU program's queue family: devices.AQL or devices.PM4.
	Queue devices.Command
	// Seed seeds the programs' math.random, with the session and the device.
	Seed uint64
	// Context ends the programs' Lua code when the host stops.
	Context context.Context
}

// Declared lists the buffers gpu and npu declare for args, by name: one
// entry a name, with the size both give it (they must agree when both
// declare it).
func Declared(gpu, npu *Program, args Args) ([]Buffer, error) {
	var out []Buffer
	byName := map[string]int{}
	for _, p := range []*Program{gpu, npu} {
		if p == nil {
			continue // a GPU program of another kind declares nothing
		}
		bufs, err := p.Buffers(args)
		if err != nil {
			return nil, err
		}
		for _, b := range bufs {
			i, dup := byName[b.Name]
			if !dup {
				byName[b.Name] = len(out)
				out = append(out, b)
				continue
			}
			if fmt.Sprint(out[i].Size) != fmt.Sprint(b.Size) {
				return nil, fmt.Errorf("%s and %s declare buffer %s as %v and %v bytes; programs that share a buffer must give it one size", gpu.Name(), npu.Name(), b.Name, out[i].Size, b.Size)
			}
		}
	}
	return out, nil
}

// Programs prepares the pair on a session's startup line (engine.Programs):
// it allocates the buffers from the line's profile and budget, tagged with
// owner, gives each program a view of the line and of every buffer through
// its own queue family, and prepares the GPU program on pr.Queue of gpu and
// the NPU program on the XDNA family of npu. When it fails it releases what
// it allocated.
func (pr Pair) Programs(line *devices.Buffer, gpu, npu *devices.Device, owner uint64) (*devices.Prepared, *devices.Prepared, error) {
	if len(pr.Buffers) > maxBuffers {
		return nil, nil, failure.Errorf(failure.Invalid, "startup", "%d buffers; a session's programs reach at most %d", len(pr.Buffers), maxBuffers)
	}
	queue := pr.Queue
	if queue == 0 {
		queue = devices.AQL
	}
	if queue != devices.AQL && queue != devices.PM4 {
		return nil, nil, failure.Errorf(failure.Invalid, "startup", "the GPU program's queue must be aql or pm4, got %s", queue)
	}
	gfam, err := gpu.Family(queue)
	if err != nil {
		return nil, nil, err
	}
	nfam, err := npu.Family(devices.XDNA)
	if err != nil {
		return nil, nil, err
	}
	bufs := make([]*devices.Buffer, 0, len(pr.Buffers))
	release := func() {
		for _, b := range bufs {
			_ = b.Release()
		}
	}
	for _, s := range pr.Buffers {
		b, err := line.Profile().Allocate(s.Bytes, line.Budget(), owner)
		if err != nil {
			release()
			return nil, nil, err
		}
		b.Name(s.Name)
		bufs = append(bufs, b)
	}
	reach := append([]*devices.Buffer{line}, bufs...)
	prepare := func(prog *Program, d *devices.Device, fam devices.QueueFamily, kind string, run fault.Site) (*devices.Prepared, error) {
		cfg := Config{Args: pr.Args, Owner: owner, Device: d.Name(), Kind: kind, Queue: fam.Command.String(), Run: run,
			Seed: programSeed(pr.Seed, owner, d.Name()), Context: pr.Context}
		var err error
		if cfg.Startup, err = line.View(d, fam); err != nil {
			return nil, err
		}
		for i, b := range bufs {
			v, err := b.View(d, fam)
			if err != nil {
				return nil, err
			}
			cfg.Buffers = append(cfg.Buffers, View{Name: pr.Buffers[i].Name, View: v})
		}
		return d.Prepare(fam, prog.newInstance(cfg), owner, reach...)
	}
	var g *devices.Prepared
	if pr.GPUProgram != nil {
		var prog program.Program
		if prog, err = pr.GPUProgram(line, bufs, owner); err == nil {
			g, err = gpu.Prepare(gfam, prog, owner, reach...)
		}
	} else {
		g, err = prepare(pr.GPU, gpu, gfam, "gpu", fault.GPURun)
	}
	var n *devices.Prepared
	if err == nil {
		n, err = prepare(pr.NPU, npu, nfam, "npu", fault.NPURun)
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	return g, n, nil
}

// programSeed is the seed of one invocation's math.random: a function of
// the fabric's seed, the session and the device.
func programSeed(seed, owner uint64, device string) uint64 {
	var text [64]byte // "seed/owner/device", without fmt's cost in every session
	b := strconv.AppendUint(text[:0], seed, 10)
	b = strconv.AppendUint(append(b, '/'), owner, 10)
	b = append(append(b, '/'), device...)
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}
