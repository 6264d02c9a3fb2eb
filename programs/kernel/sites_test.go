package kernel_test

import (
	"testing"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/programs/kernel"
)

// A site a program registers as unhonoured is refused with its reason;
// every other site, the generic ones included, is not.
func TestUnhonouredSitesAreRefusedWithTheirReason(t *testing.T) {
	site, err := fault.DefineSite("kernel.test_unhonoured", fault.Skip)
	if err != nil {
		t.Fatal(err)
	}
	if why := kernel.Unsupported(site); why != "" {
		t.Fatalf("before registering: Unsupported = %q", why)
	}
	kernel.Unhonoured(site, "the kernel does it itself")
	if why := kernel.Unsupported(site); why != "the kernel does it itself" {
		t.Errorf("Unsupported = %q, want the registered reason", why)
	}
	for _, s := range []fault.Site{fault.GPURun, fault.GPUDispatch, fault.HostPublish} {
		if why := kernel.Unsupported(s); why != "" {
			t.Errorf("Unsupported(%s) = %q, want none", s, why)
		}
	}
}
