package fault

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Fired is what a hit produced. Action None means nothing fired; Off means an
// `off` term fired, which callers may log but otherwise treat like None.
type Fired struct {
	Action  Action
	Message string        // for Error and Crash
	Delay   time.Duration // for Delay
}

// Setting is one configured site with its canonical chain text.
type Setting struct {
	Site Site
	Term string
}

// pcgStream is the fixed second word of every plane's PCG state.
const pcgStream = 0x9e3779b97f4a7c15

// Plane holds the configured chain of every site and decides, at each hit,
// what fires. Probabilities draw from a PCG generator seeded by NewPlane, so a
// given seed and sequence of hits always gives the same results. A Plane is
// safe for concurrent use.
type Plane struct {
	active atomic.Uint64 // bit s is set while site s (below 64) has a chain
	high   atomic.Int32  // how many sites of 64 or more have a chain

	mu     sync.Mutex
	pcg    rand.PCG
	rng    rand.Rand // draws from pcg
	armed  []*armed  // by site; nil, or missing, for a site with no chain
	decide Decider   // nil: the generator draws
}

// Decider decides, in place of a plane's generator, whether a term of site
// with a probability below 100% fires at a hit: a model checker answers
// both ways in turn. It is called with the plane's lock held, so it must
// not use the plane.
type Decider func(site Site, percent float64) bool

// SetDecider makes d decide every probability from now on; nil gives the
// decisions back to the plane's generator. Reseed clears it.
func (p *Plane) SetDecider(d Decider) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decide = d
}

// fires decides whether a term with probability percent (below 100) fires
// at a hit of site (p.mu held).
func (p *Plane) fires(site Site, percent float64) bool {
	if p.decide != nil {
		return p.decide(site, percent)
	}
	return p.rng.Float64()*100 < percent
}

// armed is a site's chain and what is left of its terms' counts. A plane
// holds a pointer per site, so that a fabric's plane, made per trial of a
// campaign, is small while most sites have no chain.
type armed struct {
	chain Chain
	left  []int // remaining fires per term, for terms with Count > 0
}

// NewPlane returns a plane with no site configured, drawing probabilities
// from a generator seeded with seed.
func NewPlane(seed uint64) *Plane {
	p := &Plane{}
	p.Reseed(seed)
	return p
}

// Reseed removes the chains of all sites and restarts the generator from
// seed: the plane is then as NewPlane(seed) made it, for a caller that
// reuses planes (a fabric renewed for the next trial of a campaign).
func (p *Plane) Reseed(seed uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.decide = nil
	p.pcg.Seed(seed, pcgStream)
	p.rng = *rand.New(&p.pcg)
}

// Set parses text and installs it as the site's chain with fresh counts.
// The text "off" alone removes the site's chain. On a parse error the old
// chain stays in place.
func (p *Plane) Set(site Site, text string) error {
	c, err := Parse(site, text)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(c) == 1 && c[0] == (Term{Percent: 100, Action: Off}) {
		p.disarm(site)
		return nil
	}
	left := make([]int, len(c))
	for i, t := range c {
		left[i] = t.Count
	}
	if int(site) >= len(p.armed) {
		p.armed = append(p.armed, make([]*armed, int(site)+1-len(p.armed))...)
	}
	switch {
	case p.armed[site] != nil:
	case site < 64:
		p.active.Or(uint64(1) << site)
	default:
		p.high.Add(1)
	}
	p.armed[site] = &armed{chain: c, left: left}
	return nil
}

// disarm removes site's chain (p.mu held).
func (p *Plane) disarm(site Site) {
	if int(site) >= len(p.armed) || p.armed[site] == nil {
		return
	}
	p.armed[site] = nil
	if site < 64 {
		p.active.And(^(uint64(1) << site))
	} else {
		p.high.Add(-1)
	}
}

// clear removes every chain (p.mu held).
func (p *Plane) clear() {
	clear(p.armed)
	p.armed = p.armed[:0]
	p.active.Store(0)
	p.high.Store(0)
}

// Clear removes the chains of all sites.
func (p *Plane) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// Settings returns the configured sites in Site order, each with its
// canonical chain text (messages that are the site's default left out).
func (p *Plane) Settings() []Setting {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Setting
	for i, a := range p.armed {
		if a != nil {
			out = append(out, Setting{Site: Site(i), Term: a.chain.format(Site(i))})
		}
	}
	return out
}

// Hit reports what fires at site now. Terms are tried in order: a term whose
// count is used up is skipped; a term with a probability below 100% draws
// from the generator and is skipped when the draw fails; otherwise the term
// fires, using up one of its count. Hit does not allocate, and when the site
// has no chain it does not lock either.
func (p *Plane) Hit(site Site) Fired {
	if site < 64 && p.active.Load()&(uint64(1)<<site) == 0 || site >= 64 && p.high.Load() == 0 {
		return Fired{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if int(site) >= len(p.armed) || p.armed[site] == nil { // cleared since the check above, or never armed
		return Fired{}
	}
	a := p.armed[site]
	left := a.left
	for i := range a.chain {
		t := &a.chain[i]
		if t.Count > 0 && left[i] == 0 {
			continue
		}
		if t.Percent < 100 && !p.fires(site, t.Percent) {
			continue
		}
		if t.Count > 0 {
			left[i]--
		}
		return Fired{Action: t.Action, Message: t.Message, Delay: t.Delay}
	}
	return Fired{}
}

// HashState passes add what decides the plane's future hits besides its
// generator: each armed site, its chain's length and the fires left of
// its terms, for a model checker's state hash.
func (p *Plane) HashState(add func(uint64)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for site, a := range p.armed {
		if a == nil {
			continue
		}
		add(uint64(site)<<32 | uint64(len(a.chain)))
		for _, n := range a.left {
			add(uint64(n))
		}
	}
}
