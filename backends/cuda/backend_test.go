package cuda

import (
	"errors"
	"slices"
	"testing"

	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/programs/exchange"
)

// Importing the package registers "cuda": a fabric made by name has the
// real GPU, or, where there is none, fails as Open does, with no nil GPU
// inside a non-nil accelerator.
func TestImportingRegistersTheCUDABackend(t *testing.T) {
	if !slices.Contains(backend.Names(), BackendName) {
		t.Fatalf("backend.Names() = %q, want %q among them", backend.Names(), BackendName)
	}
	a, err := opener{}.Open()
	if err != nil {
		if a != nil || !errors.Is(err, failure.Unsupported) {
			t.Fatalf("Open = %v, %v; want no accelerator and an Unsupported error", a, err)
		}
		return
	}
	defer a.Close()
	if _, ok := a.(*GPU); !ok {
		t.Errorf("Open gave a %T, want a *GPU", a)
	}
}

// The kernel writes the payload slots, so payload.corrupt is refused; every
// other site can fire.
func TestTheGPURefusesOnlyPayloadCorruption(t *testing.T) {
	var g GPU
	for _, site := range fault.Sites() {
		if why := g.UnsupportedFault(site); (why != "") != (site == exchange.PayloadCorrupt) {
			t.Errorf("UnsupportedFault(%s) = %q", site, why)
		}
	}
}
