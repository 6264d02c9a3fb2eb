package exchange

import (
	"github.com/residentlua/residentlua/devices/program"
)

// HashState adds what the GPU half does next to h: the operation it
// stopped at, its generation, what it read of the decision and of the
// payload, and its views' pending stores (none: its views are coherent),
// for a model checker's state hash. The slot's words are a function of the
// generation.
func (p *gpuExchange) HashState(h *program.StateHash) {
	p.half.hashState(h)
	p.payload.HashState(h)
}

// HashState adds what the NPU half does next to h: as the GPU half's, and
// the count of generations consumed, the checksum of the slot it read, what
// its last drain wrote and its payload view's pending stores.
func (p *npuExchange) HashState(h *program.StateHash) {
	p.half.hashState(h)
	h.Add(uint64(p.consumed)<<32 | uint64(p.sum))
	h.Add(uint64(int64(p.drained)))
	p.payload.HashState(h)
}

func (r *half) hashState(h *program.StateHash) {
	h.Add(uint64(r.op)<<40 | uint64(r.seen)<<32 | uint64(r.g))
	h.Add(uint64(r.word)<<32 | uint64(r.at))
	h.Add(boolWord(r.observer.Seen())<<1 | boolWord(r.observer.Ignoring()))
	r.line.HashState(h)
}

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
