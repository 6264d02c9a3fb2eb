package engine

import (
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/program"
)

// HashState adds to h what the session's future depends on: its
// decision, whether it is poisoned, retired, verified or closed, how its
// participants' completions stand, and the words of its buffers, for a
// model checker's state hash.
func (s *Session) HashState(h *program.StateHash) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h.Add(s.startup.id)
	h.Add(uint64(s.decision)<<8 | uint64(s.outcome))
	h.Add(program.Flags(s.poisoned, s.retired, s.checked, s.checkErr != nil, s.closing))
	for _, c := range []*devices.Completion{s.gpuDone, s.npuDone} {
		if c == nil {
			h.Add(0)
			continue
		}
		done, err := c.IsComplete()
		h.Add(c.ID()<<2 | program.Flags(done, err != nil))
		if err != nil {
			h.AddString(err.Error())
		}
	}
	for _, b := range s.buffers() {
		b.HashState(h)
	}
}
