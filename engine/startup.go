package engine

import (
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/engine/oracle"
)

// startupLine is the resident startup line: a dedicated 64-byte allocation that
// both devices can reach, written only by the host (WAIT=0, RUN=1, ABORT=2),
// with one prepared host-release publication for every PM4, AQL and XDNA
// queue family of either device.
type startupLine struct {
	id           uint64
	fabric       *devices.Fabric
	gpu, npu     *devices.Device
	line         *devices.Buffer
	publications []*devices.Publication
	used         bool // a session owns it
}

// newStartup allocates the startup line for gpu and npu, charged to budget
// (the fabric's when nil). It refuses unless gpu is a GPU and npu an NPU, and
// unless the first host-accessible allocation profile the fabric offers for
// both gives the GPU coherent backing.
func newStartup(gpu, npu *devices.Device, budget *memory.Budget) (*startupLine, error) {
	if gpu == nil || npu == nil {
		return nil, failure.Errorf(failure.Invalid, "startup", "both a GPU and an NPU device are needed; got nil")
	}
	if gpu.Kind() != devices.GPU || npu.Kind() != devices.NPU {
		return nil, failure.Errorf(failure.Unsupported, "startup", "resident startup requires a GPU and an NPU")
	}
	f := gpu.Fabric()
	if npu.Fabric() != f {
		return nil, failure.Errorf(failure.Invalid, "startup", "%s and %s belong to different fabrics", gpu.Name(), npu.Name())
	}
	profiles, err := f.AllocationProfiles([]*devices.Device{gpu, npu}, true)
	if err != nil {
		return nil, err
	}
	if len(profiles) == 0 || !coherentForGPU(profiles[0], gpu) {
		return nil, failure.Errorf(failure.Unsupported, "startup", "resident startup requires coherent GPU backing")
	}
	id := f.NewOwnerID()
	line, err := profiles[0].Allocate(memory.LineBytes, budget, id)
	if err != nil {
		return nil, err
	}
	made := &startupWithPublications{}
	s := &made.startup
	s.id, s.fabric, s.gpu, s.npu, s.line = id, f, gpu, npu, line
	_ = s.line.Zero() // made just now: not stale
	s.publications = made.publications[:0]
	for _, d := range []*devices.Device{gpu, npu} {
		for fam := range d.Families() {
			if fam.Command != devices.PM4 && fam.Command != devices.AQL && fam.Command != devices.XDNA {
				continue
			}
			p, err := s.line.PrepareHostRelease(d, fam, 0, memory.LineBytes)
			if err != nil {
				_ = s.line.Release()
				return nil, err
			}
			s.publications = append(s.publications, p)
		}
	}
	f.Events().Emit(event.HostActor, s.id, oracle.EvStartup, uint64(len(s.publications)), s.line.ID(), "")
	return s, nil
}

// startupWithPublications is a startupLine and the array its publications
// are appended to, made in one allocation.
type startupWithPublications struct {
	startup      startupLine
	publications [3]*devices.Publication // PM4, AQL, XDNA of the default devices
}

func coherentForGPU(p *devices.Profile, gpu *devices.Device) bool {
	for fam := range gpu.Families() {
		if !p.Coherent(gpu, fam) {
			return false
		}
	}
	return true
}

// stale is nil while the startup's fabric has not been renewed since the
// line was made (devices.Fabric.Renew), otherwise op's failure.Stale error.
func (s *startupLine) stale(op string) error {
	if !s.line.Renewed() {
		return nil
	}
	return failure.Errorf(failure.Stale, op, "session %d was opened before its fabric was renewed; open a new one", s.id)
}

// publish records decided, stores the decision (release) and executes
// every publication in order, as one host step (devices.Buffer.Publish);
// the first failure is returned and the rest are not executed. at is when
// decided was recorded.
func (s *startupLine) publish(decided event.Event, decision uint32) (at event.Stamp, err error) {
	return s.line.Publish(decided, 0, decision, s.publications)
}
