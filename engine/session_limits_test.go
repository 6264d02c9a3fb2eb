package engine

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/programs/exchange"
)

// Opening sessions until one is refused ends with the budget's error, not a
// crash: each session used to be two mappings of its own, and about 32,700
// of them exhausted the system's vm.max_map_count, after which the Go runtime
// could not map memory and the process died. Here the budget allows 65,536
// sessions, so the old limit would be passed twice over.
// The process stays healthy after the refusal, and closing the sessions
// returns the whole budget.
func TestOpeningSessionsUntilRefusedIsAnError(t *testing.T) {
	const perSession = 64 + 320 // the startup line and the default exchange's payload
	const budget = 24 << 20
	f, o := newFabric(t, devices.Config{Budget: budget})
	gpu, npu := devicePair(t, f)
	var open []*Session
	var err error
	for {
		var s *Session
		if s, err = newExchangeSession(gpu, npu, exchange.Default()); err != nil {
			break
		}
		open = append(open, s)
	}
	if len(open) != budget/perSession {
		t.Errorf("%d sessions opened before the refusal, want %d (the budget's worth)", len(open), budget/perSession)
	}
	if !errors.Is(err, failure.Budget) || !strings.Contains(err.Error(), "raise the budget") {
		t.Fatalf("the refusal is %v, want the budget's error saying what to do", err)
	}
	healthy := make([]byte, 64<<20) // the runtime can still map memory
	healthy[len(healthy)-1] = 1
	runtime.GC()
	for _, s := range open {
		if out := s.Close(); out != Retired {
			t.Fatalf("Close of an undecided session = %v, want retired", out)
		}
	}
	wantSettled(t, f, o)
	closeAs(t, "Close of a session opened after the others closed", newSession(t, f, exchange.Default()), Retired)
}
