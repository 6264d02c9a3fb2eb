package luaapi

import (
	"strconv"
	"testing"

	"github.com/residentlua/residentlua/internal/seeds"
)

func TestEndFabricClosesSessionsAndLetsTheFabricGo(t *testing.T) {
	h := newHarness(t, Options{Globals: true})
	h.run(`s = startup{}; s:submit_gpu(); s:submit_npu(); s:start(); first = resident.seed()`)
	h.m.EndFabric()
	if ids := h.m.OpenSessionIDs(); len(ids) != 0 {
		t.Errorf("sessions still open after EndFabric: %v", ids)
	}
	if got := h.str(`s.state`); got != "closed" {
		t.Errorf("session state %q after EndFabric, want closed", got)
	}
	if got, first := h.str(`resident.seed()`), h.str(`first`); got == first {
		t.Errorf("no new fabric after EndFabric: seed %s both times", got)
	}
}

func TestRestartStartsTheSeedsOver(t *testing.T) {
	h := newHarness(t, Options{Globals: true})
	h.run(`resident.fabric{seed = 9}; resident.fabric{}; derived = resident.seed()`)
	for range 2 {
		if err := h.m.Restart(7); err != nil {
			t.Fatal(err)
		}
		if got := h.str(`resident.seed()`); got != "7" {
			t.Errorf("first fabric after Restart(7) has seed %s", got)
		}
		h.run(`resident.fabric{}`)
		if got, want := h.str(`resident.seed()`), seeds.Derive(7, 2); got != strconv.FormatUint(want, 10) {
			t.Errorf("second fabric after Restart(7) has seed %s, want %d", got, want)
		}
	}
	if err := h.m.Restart(0); err == nil {
		t.Error("Restart(0) accepted")
	}
}
