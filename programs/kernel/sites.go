package kernel

import (
	"sync"

	"github.com/residentlua/residentlua/devices/fault"
)

// Fault sites that a kernel cannot honour. A program may define a fault
// site that its GPU half hits of its own accord in the host's steps on a
// simulated GPU (the built-in exchange's payload.corrupt, hit between
// writing a slot and publishing it); on a real GPU that half is a kernel,
// which runs on its own and consults no fault plane, so the site cannot
// fire there. The program registers such a site here with its reason, and a
// hardware backend refuses it (backend.FaultSupport) without knowing the
// program.
var unhonoured = struct {
	mu  sync.Mutex
	why map[fault.Site]string
}{why: map[fault.Site]string{}}

// Unhonoured registers site as one a kernel on real hardware cannot honour,
// for why, which a refusal quotes. A program calls it as it defines the
// site.
func Unhonoured(site fault.Site, why string) {
	unhonoured.mu.Lock()
	defer unhonoured.mu.Unlock()
	unhonoured.why[site] = why
}

// Unsupported says why site cannot fire where the GPU runs a kernel, or ""
// when it can (every site nothing registered).
func Unsupported(site fault.Site) string {
	unhonoured.mu.Lock()
	defer unhonoured.mu.Unlock()
	return unhonoured.why[site]
}
