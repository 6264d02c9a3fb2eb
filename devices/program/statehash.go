package program

// StateHash accumulates a 64-bit FNV-1a hash of what a simulated fabric's
// future depends on, for a model checker that prunes schedules reaching a
// state it has explored (docs/checking.md says what is and is not in it).
type StateHash struct{ sum uint64 }

// NewStateHash returns an empty hash.
func NewStateHash() StateHash { return StateHash{sum: 14695981039346656037} }

// Add mixes v into the hash.
func (h *StateHash) Add(v uint64) {
	for range 8 {
		h.sum = (h.sum ^ (v & 0xff)) * 1099511628211
		v >>= 8
	}
}

// AddString mixes s and its length into the hash.
func (h *StateHash) AddString(s string) {
	h.Add(uint64(len(s)))
	for i := 0; i < len(s); i++ {
		h.sum = (h.sum ^ uint64(s[i])) * 1099511628211
	}
}

// Flags packs flags into a word for Add, the first flag in the lowest bit.
func Flags(flags ...bool) uint64 {
	var w uint64
	for i, f := range flags {
		if f {
			w |= 1 << i
		}
	}
	return w
}

// Sum is the hash.
func (h *StateHash) Sum() uint64 { return h.sum }

// StateHasher is a Program that can add its state (what its next steps do
// depends on: counters, phase, its views' pending stores) to a StateHash.
// A program that is not one makes every state it is in distinct, which is
// sound but prunes nothing.
type StateHasher interface {
	HashState(h *StateHash)
}
