package luaapi

import (
	"context"
	"fmt"

	"github.com/residentlua/residentlua/internal/seeds"
)

// EndFabric lets the current fabric go as resident.fabric{...} does before
// it makes the next one, for an embedder that runs one experiment per
// fabric (a campaign's trial): the sessions still open are closed first
// (each joined for up to Options.CloseTimeout, quarantined when that
// passes), the oracle's end-of-run check runs so that its violation is in
// Violations now rather than when the next fabric is made, and a fabric the
// module made is closed, returning its memory. The next function that needs
// a fabric makes the default one. After Close it does nothing.
func (m *Module) EndFabric() {
	if m.closed || m.fab == nil {
		return
	}
	for _, s := range m.openSessions() {
		s.eng.CloseWithin(context.Background(), m.opts.CloseTimeout)
	}
	m.retire()
}

// Restart ends the current fabric (EndFabric) and starts the module over as
// a fresh run with seed would begin: the violations of earlier fabrics,
// the count of fabrics made and the Reach of its sessions are forgotten,
// so the next fabric made without a seed of its own gets seed and later
// ones the seeds derived from it. A
// campaign restarts each worker's module with a trial's seed, so that what
// the trial does depends on that seed alone, not on the trials the worker
// ran before it. A seed out of range (0 or above 2^53-1) is refused.
func (m *Module) Restart(seed uint64) error {
	if seed == 0 || seed > seeds.Max {
		return fmt.Errorf("luaapi: seed %d: give a whole number from 1 to %d", seed, uint64(seeds.Max))
	}
	m.EndFabric()
	m.runSeed, m.fabricsMade, m.pastViolations, m.reach = seed, 0, nil, Reach{}
	return nil
}
