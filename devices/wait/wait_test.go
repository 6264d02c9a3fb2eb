package wait

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices/failure"
)

func TestPolicyNamesRoundTrip(t *testing.T) {
	for _, w := range Policies() {
		got, err := Parse(w.String())
		if err != nil || got != w {
			t.Errorf("Parse(%q) = %v, %v; want %v", w.String(), got, err, w)
		}
	}
	if Policy(0) != Hybrid || Policies()[0] != Hybrid {
		t.Errorf("the zero policy is %v and the first listed %v; want hybrid, the default", Policy(0), Policies()[0])
	}
	_, err := Parse("busy")
	var de *failure.Error
	if !errors.As(err, &de) || de.Kind != failure.Invalid || !strings.Contains(err.Error(), `"spin", "hybrid" or "block"`) {
		t.Errorf("Parse(\"busy\") = %v; want an invalid error naming the three policies", err)
	}
}

// Check refuses spin where the participants (the devices and the host)
// outnumber the usable cores, and a value that is no policy; other
// policies need no core of their own, and with no devices only the policy
// is checked.
func TestCheckCountsCores(t *testing.T) {
	saved := runtime.GOMAXPROCS(2)
	t.Cleanup(func() { runtime.GOMAXPROCS(saved) })
	for _, tc := range []struct {
		p       Policy
		n       int
		refused bool
	}{
		{Spin, 0, false}, {Spin, 1, false}, {Spin, 2, true}, {Hybrid, 64, false}, {Block, 64, false}, {Policy(9), 0, true},
	} {
		err := Check(tc.p, tc.n)
		var e *failure.Error
		if refused := errors.As(err, &e) && e.Kind == failure.Invalid; refused != tc.refused || (err != nil && !refused) {
			t.Errorf("Check(%v, %d) on 2 cores = %v; want refused %v", tc.p, tc.n, err, tc.refused)
		}
	}
	if err := Check(Spin, 2); err == nil || !strings.Contains(err.Error(), "3 spinning participants") {
		t.Errorf("Check(spin, 2) on 2 cores = %v; want it to count 3 spinning participants", err)
	}
}
