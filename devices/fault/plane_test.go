package fault

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hits sets text at site on a plane with seed and returns the first n hits.
func hits(t *testing.T, seed uint64, site Site, text string, n int) []Fired {
	t.Helper()
	p := NewPlane(seed)
	if err := p.Set(site, text); err != nil {
		t.Fatal(err)
	}
	out := make([]Fired, n)
	for i := range out {
		out[i] = p.Hit(site)
	}
	return out
}

func actions(fs []Fired) []Action {
	out := make([]Action, len(fs))
	for i, f := range fs {
		out[i] = f.Action
	}
	return out
}

func TestHitSequences(t *testing.T) {
	tests := []struct {
		site Site
		text string
		want []Action
	}{
		{GPURun, "1*off->1*hang", []Action{Off, Hang, None, None, None}},
		{GPUDispatch, "2*error(a)->delay(1ms)", []Action{Error, Error, Delay, Delay, Delay}},
		{GPURun, "3*crash(boom)->hang", []Action{Crash, Crash, Crash, Hang, Hang}},
		{testDrain, "2*skip", []Action{Skip, Skip, None, None, None}},
		{HostPublish, "1*skip->1*error->1*skip", []Action{Skip, Error, Skip, None, None}},
		{testCorrupt, "flip", []Action{Flip, Flip, Flip, Flip, Flip}},
		{GPURun, "ignore_abort->hang", []Action{IgnoreAbort, IgnoreAbort, IgnoreAbort, IgnoreAbort, IgnoreAbort}},
	}
	for _, tt := range tests {
		got := actions(hits(t, 1, tt.site, tt.text, len(tt.want)))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%v %q: hits = %v, want %v", tt.site, tt.text, got, tt.want)
		}
	}

	fs := hits(t, 1, GPUDispatch, "1*error(busy)->error->delay(5us)", 2)
	if fs[0] != (Fired{Action: Error, Message: "busy"}) || fs[1] != (Fired{Action: Error, Message: "injected error at gpu.dispatch"}) {
		t.Errorf("error hits = %+v", fs)
	}
	if f := hits(t, 1, NPURun, "delay(5us)", 1)[0]; f != (Fired{Action: Delay, Delay: 5 * time.Microsecond}) {
		t.Errorf("delay hit = %+v", f)
	}
}

func TestHitProbabilityFallThrough(t *testing.T) {
	// A failed draw falls through to the next term, so every hit fires one of the two.
	got := actions(hits(t, 7, GPUDispatch, "50%error(a)->delay(1ms)", 200))
	n := map[Action]int{}
	for _, a := range got {
		n[a]++
	}
	if n[Error]+n[Delay] != 200 || n[Error] < 60 || n[Delay] < 60 {
		t.Errorf("50%%error->delay over 200 hits: %v", n)
	}
	// A limited term with a probability fires exactly its count.
	got = actions(hits(t, 7, GPURun, "50%3*hang", 200))
	if c := strings.Count(actionsString(got), "hang"); c != 3 {
		t.Errorf("50%%3*hang fired %d times in 200 hits, want 3", c)
	}
	// Draws happen only when a term with a probability is consulted: a leading
	// unconditional term that fires first takes no draw.
	a := actions(hits(t, 9, GPURun, "1*hang->30%crash", 500))
	b := actions(hits(t, 9, GPURun, "30%crash", 499))
	if a[0] != Hang || !reflect.DeepEqual(a[1:], b) {
		t.Errorf("1*hang->30%%crash does not continue the draws of 30%%crash")
	}
	// Hits on unset sites take no draws either.
	p, q := NewPlane(9), NewPlane(9)
	p.Set(GPURun, "30%crash")
	q.Set(GPURun, "30%crash")
	for i := range 500 {
		p.Hit(GPUDispatch)
		if p.Hit(GPURun) != q.Hit(GPURun) {
			t.Fatalf("hit %d differs after hits on an unset site", i)
		}
	}
}

func actionsString(as []Action) string {
	var b strings.Builder
	for _, a := range as {
		b.WriteString(a.String() + " ")
	}
	return b.String()
}

func TestHitDeterminism(t *testing.T) {
	const text = "30%error(x)->20%delay(1ms)"
	a := hits(t, 42, GPUDispatch, text, 1000)
	b := hits(t, 42, GPUDispatch, text, 1000)
	if !reflect.DeepEqual(a, b) {
		t.Error("two planes with the same seed gave different sequences")
	}
	c := hits(t, 43, GPUDispatch, text, 1000)
	if reflect.DeepEqual(a, c) {
		t.Error("two planes with different seeds gave the same sequence")
	}
	n := map[Action]int{}
	for _, f := range a {
		n[f.Action]++
	}
	if n[Error] == 0 || n[Delay] == 0 || n[None] == 0 {
		t.Errorf("30%%error->20%%delay over 1000 hits: %v, want all of error, delay and none", n)
	}
}

func TestHitFraction(t *testing.T) {
	const n = 20000
	fired := 0
	for _, f := range hits(t, 2024, GPURun, "25%hang", n) {
		if f.Action == Hang {
			fired++
		}
	}
	if frac := float64(fired) / n; frac < 0.22 || frac > 0.28 {
		t.Errorf("25%%hang fired %.4f of %d hits, want 0.22..0.28", frac, n)
	}
}

func TestHitConcurrent(t *testing.T) {
	p := NewPlane(1)
	if err := p.Set(HostPublish, "100*skip"); err != nil {
		t.Fatal(err)
	}
	var fired atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				if p.Hit(HostPublish).Action == Skip {
					fired.Add(1)
				}
				p.Hit(GPURun)
			}
		})
	}
	wg.Go(func() {
		for range 100 {
			p.Settings()
			p.Set(GPURun, "50%hang")
		}
	})
	wg.Wait()
	if n := fired.Load(); n != 100 {
		t.Errorf("100*skip fired %d times from 8 goroutines, want 100", n)
	}
}

func TestPlaneSettings(t *testing.T) {
	p := NewPlane(1)
	if got := p.Settings(); len(got) != 0 {
		t.Errorf("new plane settings = %v", got)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(p.Set(testCorrupt, "10%flip"))
	must(p.Set(GPURun, " 1*off -> 1*hang "))
	must(p.Set(GPUDispatch, "error->delay(2000us)"))
	want := []Setting{
		{GPUDispatch, "error->delay(2ms)"},
		{GPURun, "1*off->1*hang"},
		{testCorrupt, "10%flip"},
	}
	if got := p.Settings(); !reflect.DeepEqual(got, want) {
		t.Errorf("Settings() = %v, want %v", got, want)
	}

	// A parse error keeps the old chain and its counts.
	if p.Hit(GPURun).Action != Off {
		t.Fatal("first hit of 1*off->1*hang is not off")
	}
	if err := p.Set(GPURun, "flip"); err == nil {
		t.Error("Set(gpu.run, flip) succeeded")
	}
	if err := p.Set(Site(1<<30), "off"); err == nil {
		t.Error("Set of a site no one defined succeeded")
	}
	if f := p.Hit(GPURun); f.Action != Hang {
		t.Errorf("after a failed Set, second hit = %v, want hang", f.Action)
	}
	// Set installs fresh counts.
	must(p.Set(GPURun, "1*off->1*hang"))
	if f := p.Hit(GPURun); f.Action != Off {
		t.Errorf("after Set again, first hit = %v, want off", f.Action)
	}

	// "off" removes the site; a limited or probable off does not.
	must(p.Set(GPUDispatch, " off "))
	must(p.Set(testCorrupt, "1*off"))
	want = []Setting{{GPURun, "1*off->1*hang"}, {testCorrupt, "1*off"}}
	if got := p.Settings(); !reflect.DeepEqual(got, want) {
		t.Errorf("Settings() after off = %v, want %v", got, want)
	}
	if f := p.Hit(GPUDispatch); f != (Fired{}) {
		t.Errorf("hit on removed site = %+v", f)
	}

	p.Clear()
	if got := p.Settings(); len(got) != 0 {
		t.Errorf("Settings() after Clear = %v", got)
	}
	for _, s := range append(Sites(), testDrain, Site(31), Site(1<<30)) {
		if f := p.Hit(s); f != (Fired{}) {
			t.Errorf("Hit(%v) after Clear = %+v", s, f)
		}
	}
}

// A reseeded plane has no chain and draws as a new plane of that seed.
func TestReseedIsANewPlane(t *testing.T) {
	draws := func(p *Plane) (out []Action) {
		if err := p.Set(GPUDispatch, "50%error"); err != nil {
			t.Fatal(err)
		}
		for range 64 {
			out = append(out, p.Hit(GPUDispatch).Action)
		}
		return out
	}
	want := draws(NewPlane(9))
	p := NewPlane(1)
	if err := p.Set(MemoryAlloc, "error"); err != nil {
		t.Fatal(err)
	}
	p.Hit(GPUDispatch)
	p.Reseed(9)
	if len(p.Settings()) != 0 || p.Hit(MemoryAlloc).Action != None {
		t.Fatalf("after Reseed the plane still has chains: %v", p.Settings())
	}
	if got := draws(p); !slices.Equal(got, want) {
		t.Errorf("a reseeded plane drew %v; a new one %v", got, want)
	}
}
