package devices

import (
	"math/rand/v2"
	"testing"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/memory"
	"github.com/residentlua/residentlua/devices/program"
)

// plainOp is one thing rule 8's bookkeeping is told or asked: a run of
// plain stores, a publication, or a read, by one of two devices.
type plainOp struct {
	kind   int // 0 write, 1 publish, 2 read
	dev    int
	off, n int
}

// plainState is what rule 8's bookkeeping answers after an operation: how
// many words are unpublished, who (by name, "" for none) holds word 0 and
// the operation's word unpublished, and the state's hash.
type plainState struct {
	n               int
	first, operated string
	hash            uint64
}

// plainTrace applies ops to p on b and returns the state after each.
func plainTrace(p *plainWords, b *Buffer, devs [2]*Device, ops []plainOp) (trace []plainState) {
	for _, op := range ops {
		d := devs[op.dev]
		switch op.kind {
		case 0:
			p.wroteWords(b, op.off, op.n, d)
		case 1:
			if p.n != 0 {
				p.publish(d)
			}
		case 2:
			if p.n != 0 {
				p.read(b, op.off, d)
			}
		}
		h := program.NewStateHash()
		p.hash(&h)
		holder := func(off int) string {
			if w, _ := p.unpublished(b, off); w != nil {
				return w.name
			}
			return ""
		}
		trace = append(trace, plainState{p.n, holder(0), holder(op.off), h.Sum()})
	}
	return trace
}

// randomPlainOps draws n operations on a buffer of words words.
func randomPlainOps(rng *rand.Rand, n, words int) []plainOp {
	ops := make([]plainOp, n)
	for i := range ops {
		at := rng.IntN(words)
		ops[i] = plainOp{kind: rng.IntN(3), dev: rng.IntN(2), off: 4 * at, n: 1 + rng.IntN(words-at)}
	}
	return ops
}

// TestPlainWordsKeptPagesReadAsFresh checks that rule 8's bookkeeping,
// whose pages a fabric begun anew keeps for its new buffers, answers every
// question as one that never had a page: the same unpublished words,
// writers and reports after each of a run of random stores, publications
// and reads, across page boundaries.
func TestPlainWordsKeptPagesReadAsFresh(t *testing.T) {
	const size = 1024 // 256 words: four pages
	f, gpu, npu, b := mmShared(t, Config{Mode: Simulated, Seed: 3}, size)
	devs := [2]*Device{gpu, npu}
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 20 {
		var kept plainWords
		plainTrace(&kept, b, devs, randomPlainOps(rng, 200, size/4)) // dirty every page
		pages := b.plain.pages
		kept.reset()
		other := mmAlloc(t, mmProfile(t, f, memory.FineGrained), size)
		ops := randomPlainOps(rng, 200, size/4)
		got := plainTrace(&kept, other, devs, ops)
		if other.plain.pages[0] != pages[0] {
			t.Fatalf("round %d: the new buffer was given new pages, not the kept ones", round)
		}
		kept.reset()
		var fresh plainWords
		want := plainTrace(&fresh, other, devs, ops)
		unpublished := 0
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d, op %d (%+v): kept pages answer %+v, fresh ones %+v", round, i, ops[i], got[i], want[i])
			}
			if want[i].n != 0 {
				unpublished++
			}
		}
		if unpublished == 0 {
			t.Fatalf("round %d: no op left a word unpublished; the comparison checked nothing", round)
		}
		fresh.reset()
	}
}

// TestPlainWordsWriters checks the bookkeeping's answers on a run that
// crosses a page: another device's store over an unpublished word takes
// it over, a publication publishes only its writer's words, and a read is
// reported once a word.
func TestPlainWordsWriters(t *testing.T) {
	f, gpu, npu, b := mmShared(t, Config{Mode: Simulated, Seed: 3}, 1024)
	var p plainWords
	p.wroteWords(b, 4*60, 10, gpu) // words 60 to 69: two pages
	p.wroteWords(b, 4*65, 2, npu)  // 65 and 66, now the NPU's
	if p.n != 10 {
		t.Fatalf("%d unpublished words, want 10", p.n)
	}
	if !p.hidden(b, 4*69, npu) || p.hidden(b, 4*69, gpu) || !p.hidden(b, 4*65, gpu) {
		t.Errorf("a waiter sees a word another device wrote unpublished, or misses its own")
	}
	p.publish(gpu)
	if p.n != 2 {
		t.Fatalf("after the GPU's publication %d unpublished words, want the NPU's 2", p.n)
	}
	if w, _ := p.unpublished(b, 4*65); w != npu {
		t.Errorf("word 65 unpublished by %v, want the NPU", w)
	}
	if w, _ := p.unpublished(b, 4*64); w != nil {
		t.Errorf("word 64 unpublished by %s after the GPU's publication", w.name)
	}
	before := len(mmEvents(f, event.EvPlainRead, b.id))
	p.read(b, 4*65, gpu)
	p.read(b, 4*65, gpu)
	p.read(b, 4*65, npu) // its own
	if got := len(mmEvents(f, event.EvPlainRead, b.id)) - before; got != 1 {
		t.Errorf("%d reports of reads of word 65, want one", got)
	}
	p.publish(npu)
	if p.n != 0 {
		t.Errorf("%d unpublished words after both publications", p.n)
	}
}

// TestPlainWordsAgreeWithAModel runs random stores, publications, reads and
// looks (a waiter's question, then every word's writer) by two devices on
// two buffers, mostly with no look between stores and their publication
// (the runs rule 8 defers), and compares every answer with a model that
// keeps each word's unpublished writer in a map.
func TestPlainWordsAgreeWithAModel(t *testing.T) {
	const size = 1024
	f, gpu, npu, b0 := mmShared(t, Config{Mode: Simulated, Seed: 3}, size)
	b1 := mmAlloc(t, mmProfile(t, f, memory.FineGrained), size)
	devs, bufs := [2]*Device{gpu, npu}, [2]*Buffer{b0, b1}
	type word struct{ buf, w int }
	rng := rand.New(rand.NewPCG(11, 12))
	looks, deferred := 0, 0
	for round := range 40 {
		var p plainWords
		model := map[word]int{} // unpublished word: its writer
		reported := map[word]bool{}
		reports := 0
		events := func() int {
			return len(mmEvents(f, event.EvPlainRead, b0.id)) + len(mmEvents(f, event.EvPlainRead, b1.id))
		}
		before := events()
		for range 300 {
			d, bi := rng.IntN(2), rng.IntN(2)
			at := rng.IntN(size / 4)
			switch op := rng.IntN(10); {
			case op < 5:
				n := 1 + rng.IntN(min(40, size/4-at))
				p.wroteWords(bufs[bi], 4*at, n, devs[d])
				for k := at; k < at+n; k++ {
					model[word{bi, k}] = d
					delete(reported, word{bi, k})
				}
				if p.held > 0 {
					deferred++
				}
			case op < 8:
				if p.n != 0 {
					p.publish(devs[d])
				}
				for k, w := range model {
					if w == d {
						delete(model, k)
					}
				}
			case op < 9:
				if p.n != 0 {
					p.read(bufs[bi], 4*at, devs[d])
				}
				if w, ok := model[word{bi, at}]; ok && w != d && !reported[word{bi, at}] {
					reported[word{bi, at}] = true
					reports++
				}
			default:
				looks++
				w, unpublished := model[word{bi, at}]
				if got := p.n != 0 && p.hidden(bufs[bi], 4*at, devs[d]); got != (unpublished && w != d) {
					t.Fatalf("round %d: hidden(%d, word %d, %s) = %v, the model says unpublished %v by %d", round, bi, at, devs[d].name, got, unpublished, w)
				}
				if p.n != len(model) {
					t.Fatalf("round %d: %d unpublished words, the model has %d", round, p.n, len(model))
				}
				for k := range size / 4 {
					for bj, buf := range bufs {
						got, _ := p.unpublished(buf, 4*k)
						want, ok := model[word{bj, k}]
						if ok != (got != nil) || ok && got != devs[want] {
							t.Fatalf("round %d: buffer %d word %d unpublished by %v, the model says %v (%d)", round, bj, k, got, ok, want)
						}
					}
				}
			}
		}
		if got := events() - before; got != reports {
			t.Fatalf("round %d: %d reads reported, the model reports %d", round, got, reports)
		}
		p.reset()
	}
	if looks == 0 || deferred < 100 {
		t.Fatalf("%d looks, %d stores left deferred: the test checked too little", looks, deferred)
	}
}
