package devices

import (
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/event"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
)

// Two sites of programs' own, as two programs would define them.
var (
	testMine   = mustSite("test.mine")
	testTheirs = mustSite("test.theirs")
)

func mustSite(name string) fault.Site {
	s, err := fault.DefineSite(name)
	if err != nil {
		panic(err)
	}
	return s
}

// declaring is a test program that declares sites of its own and, at its
// one step, hits each of hit, keeping what fired.
type declaring struct {
	own   []fault.Site
	hit   []fault.Site
	fired []fault.Action
}

func (p *declaring) Sites() []fault.Site { return p.own }

func (p *declaring) Step(env program.Env) program.Next {
	for _, s := range p.hit {
		p.fired = append(p.fired, env.Fault(s).Action)
	}
	return program.Retire(nil)
}

// A program hits the generic sites and those it declares; a site another
// program declared fires nothing for it, armed or not, and records no
// event.
func TestAProgramHitsOnlyItsOwnSites(t *testing.T) {
	f := mmFabric(t, Config{Mode: Simulated})
	for s, term := range map[fault.Site]string{testMine: "skip", testTheirs: "skip", fault.GPURun: "delay(1us)"} {
		if err := f.Faults().Set(s, term); err != nil {
			t.Fatal(err)
		}
	}
	p := &declaring{own: []fault.Site{testMine}, hit: []fault.Site{testMine, testTheirs, fault.GPURun}}
	c := mmDispatch(t, mmPrepare(t, f.First(GPU), AQL, p, 1))
	if ok, err := c.waitFor(time.Second); !ok || err != nil {
		t.Fatalf("Wait = %v, %v", ok, err)
	}
	if want := []fault.Action{fault.Skip, fault.None, fault.Delay}; len(p.fired) != 3 || p.fired[0] != want[0] || p.fired[1] != want[1] || p.fired[2] != want[2] {
		t.Errorf("fired %v at its own site, another program's and gpu.run; want %v", p.fired, want)
	}
	for _, e := range mmEvents(f, event.EvFault, uint64(testTheirs)) {
		t.Errorf("a fault event at the site another program declared: %+v", e)
	}
	undeclared := &declaring{hit: []fault.Site{testMine}}
	c = mmDispatch(t, mmPrepare(t, f.First(GPU), AQL, undeclared, 2))
	if ok, err := c.waitFor(time.Second); !ok || err != nil {
		t.Fatalf("Wait = %v, %v", ok, err)
	}
	if undeclared.fired[0] != fault.None {
		t.Errorf("a program that declares no site fired %v at test.mine", undeclared.fired[0])
	}
}
