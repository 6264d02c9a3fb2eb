package luaprogram

import (
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine"
)

// RunSession is runSession for the package's external tests.
var RunSession = runSession

// runSession runs a session of pair on f to its retirement, which must
// come within a second, and returns it, open.
func runSession(t *testing.T, f *devices.Fabric, pair Pair) *engine.Session {
	t.Helper()
	s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), pair.Programs)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []func() error{s.SubmitGPU, s.SubmitNPU, s.Start} {
		if err := op(); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.Wait(time.Second); !ok || err != nil {
		t.Fatalf("Wait = %v, %v", ok, err)
	}
	return s
}
