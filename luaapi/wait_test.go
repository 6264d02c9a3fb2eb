package luaapi

import (
	"runtime"
	"strings"
	"testing"
)

// resident.fabric{wait = ...} sets the real-time wait policy, the
// description shows it, and a session runs under each; any other value is
// a bad argument.
func TestFabricWaitOption(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(3, runtime.GOMAXPROCS(0)))) // spin: two devices and the host
	h := sim(t)
	if got := h.str("resident.fabric().wait"); got != "hybrid" {
		t.Errorf("the default fabric's wait is %q, want hybrid", got)
	}
	for _, w := range []string{"spin", "hybrid", "block"} {
		h.run(`f = resident.fabric{mode = "realtime", wait = "` + w + `"}
			s = resident.startup{rounds = 10}; s:submit_gpu(); s:submit_npu(); s:start()
			assert(s:wait(30)); assert(s:close() == "retired")`)
		if got := h.str("f.wait"); got != w {
			t.Errorf("fabric{wait = %q} describes wait %q", w, got)
		}
	}
	for code, want := range map[string]string{
		`resident.fabric{wait = "busy"}`: `bad argument #1 to 'fabric' (field 'wait': "spin", "hybrid" or "block" expected, got "busy")`,
		`resident.fabric{wait = 1}`:      `bad argument #1 to 'fabric' (field 'wait': string expected, got number)`,
	} {
		if got := h.fails(code); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
}

// The line that reports a fabric names its wait policy when a real-time
// fabric does not wait the default way.
func TestFabricReportNamesTheWaitPolicy(t *testing.T) {
	h := newHarness(t, Options{Globals: true, ReportEveryFabric: true})
	h.run(`resident.fabric{mode = "realtime", seed = 5, wait = "block"}
		resident.fabric{mode = "realtime", seed = 6}
		resident.fabric{mode = "sim", seed = 7, wait = "block"}`)
	want := "resident: fabric mode=realtime seed=5 timing=ideal wait=block\n" +
		"resident: fabric mode=realtime seed=6 timing=ideal\n" +
		"resident: fabric mode=sim seed=7 timing=ideal\n"
	if got := h.stderr.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
}

// Spinning needs a core per device and one for the host: with GOMAXPROCS
// 2, a spinning fabric of two devices is an invalid error saying so.
func TestFabricWaitSpinNeedsCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	h := sim(t)
	got := h.fails(`resident.fabric{mode = "realtime", wait = "spin"}`)
	if !strings.Contains(got, "invalid") || !strings.Contains(got, "3 spinning participants") || !strings.Contains(got, "hybrid") {
		t.Errorf("spin on 2 cores: %q; want an invalid error naming the participants and the hybrid policy", got)
	}
}
