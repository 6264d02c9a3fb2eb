package fault

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSites(t *testing.T) {
	want := []string{"gpu.dispatch", "npu.dispatch", "gpu.run", "npu.run",
		"gpu.complete", "npu.complete", "host.publish", "memory.alloc"}
	numbers := []Site{0, 1, 2, 3, 5, 6, 7, 8}
	sites := Sites()
	if len(sites) != len(want) {
		t.Fatalf("Sites() has %d sites, want %d", len(sites), len(want))
	}
	for i, s := range sites {
		if s != numbers[i] || s.String() != want[i] || !s.Generic() {
			t.Errorf("Sites()[%d] = %d %q (generic %v), want %d %q", i, s, s, s.Generic(), numbers[i], want[i])
		}
		got, err := ParseSite(want[i])
		if err != nil || got != s {
			t.Errorf("ParseSite(%q) = %v, %v; want %v", want[i], got, err, s)
		}
	}
	_, err := ParseSite("gpu.explode")
	if err == nil || !strings.HasPrefix(err.Error(), `unknown fault site "gpu.explode"; sites are `+strings.Join(want, ", ")) {
		t.Errorf("ParseSite(gpu.explode) error = %v", err)
	}
	if got := GPURun.Actions(); !reflect.DeepEqual(got, []Action{Hang, Crash, Delay, IgnoreAbort}) {
		t.Errorf("GPURun.Actions() = %v", got)
	}
	if got := Site(1 << 30).String(); got != "site(1073741824)" {
		t.Errorf("Site(1 << 30).String() = %q", got)
	}
}

func TestActionString(t *testing.T) {
	want := []string{"none", "off", "error", "delay", "hang", "crash", "ignore_abort", "skip", "flip"}
	for i, w := range want {
		if got := Action(i).String(); got != w {
			t.Errorf("Action(%d).String() = %q, want %q", i, got, w)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		site Site
		text string
		want Chain
	}{
		{GPUDispatch, "off", Chain{{Percent: 100, Action: Off}}},
		{GPUDispatch, "error", Chain{{Percent: 100, Action: Error, Message: "injected error at gpu.dispatch"}}},
		{GPUDispatch, "error()", Chain{{Percent: 100, Action: Error, Message: "injected error at gpu.dispatch"}}},
		{GPUDispatch, "50%error(busy)", Chain{{Percent: 50, Action: Error, Message: "busy"}}},
		{GPUDispatch, "delay(10us)", Chain{{Percent: 100, Action: Delay, Delay: 10 * time.Microsecond}}},
		{GPUDispatch, "12.5%3*delay( 2ms )", Chain{{Percent: 12.5, Count: 3, Action: Delay, Delay: 2 * time.Millisecond}}},
		{GPURun, "1*off->1*hang", Chain{{Percent: 100, Count: 1, Action: Off}, {Percent: 100, Count: 1, Action: Hang}}},
		{GPURun, "3*crash(boom)->ignore_abort", Chain{{Percent: 100, Count: 3, Action: Crash, Message: "boom"}, {Percent: 100, Action: IgnoreAbort}}},
		{NPURun, "crash", Chain{{Percent: 100, Action: Crash, Message: "injected crash at npu.run"}}},
		{HostPublish, "  2*error(a b)  ->  skip ", Chain{{Percent: 100, Count: 2, Action: Error, Message: "a b"}, {Percent: 100, Action: Skip}}},
		{HostPublish, "error(50% of (it)->skip", Chain{{Percent: 100, Action: Error, Message: "50% of (it"}, {Percent: 100, Action: Skip}}},
		{MemoryAlloc, "error(x->y)->off", Chain{{Percent: 100, Action: Error, Message: "x->y"}, {Percent: 100, Action: Off}}},
		{testCorrupt, "100%flip", Chain{{Percent: 100, Action: Flip}}},
		{testDrain, "0.5%skip", Chain{{Percent: 0.5, Action: Skip}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.site, tt.text)
		if err != nil {
			t.Errorf("Parse(%v, %q): %v", tt.site, tt.text, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%v, %q) = %+v, want %+v", tt.site, tt.text, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		site Site
		text string
		want string
	}{
		{GPUDispatch, "50%%error(x)", `fault term "50%%error(x)": bad probability "50%%": want a number of percent from 0 to 100 like 25%`},
		{GPURun, "hang(3)", `fault term "hang(3)" at gpu.run: hang takes no argument`},
		{GPURun, "off()", `fault term "off()" at gpu.run: off takes no argument`},
		{GPURun, "explode", `fault term "explode" at gpu.run: unknown action "explode"; gpu.run allows hang, crash, delay, ignore_abort, off`},
		{GPURun, "none", `fault term "none" at gpu.run: unknown action "none"`},
		{GPURun, "flip", `fault term "flip" at gpu.run: flip is not allowed at gpu.run; gpu.run allows hang, crash, delay, ignore_abort, off`},
		{GPURun, "50%", `fault term "50%" at gpu.run: missing action; gpu.run allows`},
		{GPURun, "delay(fast)", `fault term "delay(fast)": bad duration "fast": want a Go duration like 10us or 2ms`},
		{GPURun, "delay", `fault term "delay" at gpu.run: delay needs a duration argument like delay(10us)`},
		{GPURun, "delay(0s)", `fault term "delay(0s)": duration "0s" must be positive`},
		{GPURun, "delay(-1ms)", `fault term "delay(-1ms)": duration "-1ms" must be positive`},
		{GPURun, "", `empty fault chain at gpu.run`},
		{GPURun, "  ", `empty fault chain at gpu.run`},
		{GPURun, "hang->->off", `fault chain "hang->->off" at gpu.run: term 2 is empty`},
		{GPURun, "hang->", `fault chain "hang->" at gpu.run: term 2 is empty`},
		{GPURun, "0*hang", `fault term "0*hang": count "0*" must be at least 1`},
		{GPURun, "-2*hang", `fault term "-2*hang": count "-2*" must be at least 1`},
		{GPURun, "x*hang", `fault term "x*hang": bad count "x*": want a whole number of hits like 3*`},
		{GPURun, "150%hang", `fault term "150%hang": probability "150%" out of range: must be greater than 0 and at most 100`},
		{GPURun, "0%hang", `fault term "0%hang": probability "0%" out of range: must be greater than 0 and at most 100`},
		{GPURun, "NaN%hang", `fault term "NaN%hang": probability "NaN%" out of range`},
		{GPURun, "3*50%hang", `fault term "3*50%hang": bad probability "3*50%"`},
		{GPURun, "crash(boom", `fault term "crash(boom": want ")" at the end of the argument`},
		{GPURun, "crash(a)b)", `fault term "crash(a)b)": argument "a)b" contains ")"`},
		{HostPublish, "error(a (b) -> *x)", `fault term "*x)": bad count "*": want a whole number of hits like 3*`},
		{Site(1 << 30), "off", `unknown fault site "site(1073741824)"; sites are gpu.dispatch, npu.dispatch,`},
	}
	for _, tt := range tests {
		got, err := Parse(tt.site, tt.text)
		if err == nil {
			t.Errorf("Parse(%v, %q) = %v, want error %q", tt.site, tt.text, got, tt.want)
		} else if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%v, %q) error:\n got %q\nwant %q", tt.site, tt.text, err, tt.want)
		}
	}
}

func TestSiteActions(t *testing.T) {
	args := map[Action]string{Error: "(x)", Crash: "(x)", Delay: "(1ms)"}
	for _, s := range Sites() {
		allowed := map[Action]bool{Off: true}
		for _, a := range s.Actions() {
			allowed[a] = true
		}
		for a := Off; a < numActions; a++ {
			text := a.String() + args[a]
			c, err := Parse(s, text)
			if allowed[a] {
				if err != nil || len(c) != 1 || c[0].Action != a {
					t.Errorf("Parse(%v, %q) = %v, %v; want one %v term", s, text, c, err, a)
				}
				continue
			}
			want := a.String() + " is not allowed at " + s.String() + "; " + s.String() + " allows " + s.allowed()
			if err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("Parse(%v, %q) error = %v, want suffix %q", s, text, err, want)
			}
		}
	}
	if got := GPUDispatch.allowed(); got != "error, delay, off" {
		t.Errorf("GPUDispatch.allowed() = %q", got)
	}
}

func TestChainString(t *testing.T) {
	tests := []struct {
		site      Site
		text      string
		canonical string
		short     string
	}{
		{GPURun, "off", "off", "off"},
		{GPURun, " 1*off -> 1*hang ", "1*off->1*hang", "1*off->1*hang"},
		{GPURun, "100%3*crash", "3*crash(injected crash at gpu.run)", "3*crash"},
		{GPURun, "crash(injected crash at npu.run)", "crash(injected crash at npu.run)", "crash(injected crash at npu.run)"},
		{GPUDispatch, "30%error(x)->20%delay(1000us)", "30%error(x)->20%delay(1ms)", "30%error(x)->20%delay(1ms)"},
		{GPUDispatch, "0.001%2*delay(1.5us)", "0.001%2*delay(1.5µs)", "0.001%2*delay(1.5µs)"},
		{HostPublish, "error(a->b (c)->skip", "error(a->b (c)->skip", "error(a->b (c)->skip"},
		{testCorrupt, "1e-3%flip", "0.001%flip", "0.001%flip"},
	}
	for _, tt := range tests {
		c, err := Parse(tt.site, tt.text)
		if err != nil {
			t.Fatalf("Parse(%v, %q): %v", tt.site, tt.text, err)
		}
		for _, s := range []string{c.String(), c.format(tt.site)} {
			back, err := Parse(tt.site, s)
			if err != nil || !reflect.DeepEqual(back, c) {
				t.Errorf("Parse(%v, %q) = %+v, %v; want %+v", tt.site, s, back, err, c)
			}
		}
		if got := c.String(); got != tt.canonical {
			t.Errorf("Parse(%v, %q).String() = %q, want %q", tt.site, tt.text, got, tt.canonical)
		}
		if got := c.format(tt.site); got != tt.short {
			t.Errorf("Parse(%v, %q).format(site) = %q, want %q", tt.site, tt.text, got, tt.short)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, text := range []string{
		"off", "50%error(busy)", "1*off->1*hang", "delay(10us)", "3*crash(boom)->skip",
		"25%hang", "2*error(a)->delay(1ms)", "30%error(x)->20%delay(1ms)", "100*skip",
		"error(a->b)->flip", "0.5%3*ignore_abort", " hang -> crash ( x ) ", "50%%error(x)", "0*hang",
	} {
		f.Add(uint8(GPURun), text)
		f.Add(uint8(HostPublish), text)
	}
	f.Fuzz(func(t *testing.T, s uint8, text string) {
		site := Site(s)
		c, err := Parse(site, text)
		if err != nil {
			if c != nil {
				t.Fatalf("Parse(%v, %q) returned %v with error %v", site, text, c, err)
			}
			return
		}
		if !site.Defined() || len(c) == 0 {
			t.Fatalf("Parse(%v, %q) = %v, nil", site, text, c)
		}
		for _, out := range []string{c.String(), c.format(site)} {
			back, err := Parse(site, out)
			if err != nil {
				t.Fatalf("Parse(%v, %q) = %+v, but its text %q fails: %v", site, text, c, out, err)
			}
			if !reflect.DeepEqual(back, c) {
				t.Fatalf("Parse(%v, %q) = %+v, but its text %q parses to %+v", site, text, c, out, back)
			}
		}
	})
}
