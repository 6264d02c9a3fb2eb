package exchange

import "github.com/residentlua/residentlua/devices"

// HashState adds what the GPU half does next to h: its phase, generation,
// what it saw of the decision, and its views' pending stores (none: its
// views are coherent), for a model checker's state hash.
func (p *gpuExchange) HashState(h *devices.StateHash) {
	p.half.hashState(h)
	h.Add(uint64(p.state)<<32 | uint64(p.g))
	p.payload.HashState(h)
}

// HashState adds what the NPU half does next to h: its phase, generation,
// count of consumed generations, whether it is reading a slot, what it saw
// of the decision, and its views' pending stores.
func (p *npuExchange) HashState(h *devices.StateHash) {
	p.half.hashState(h)
	h.Add(uint64(p.state)<<32 | uint64(p.g))
	h.Add(uint64(p.consumed)<<1 | boolWord(p.reading))
	p.payload.HashState(h)
}

func (r *half) hashState(h *devices.StateHash) {
	h.Add(uint64(r.seen)<<1 | boolWord(r.ignored))
	r.line.HashState(h)
}

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
