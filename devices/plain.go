package devices

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/residentlua/residentlua/devices/event"

	"github.com/residentlua/residentlua/devices/program"
)

// plainWords is what simulated time keeps of the memory model's rule 8:
// the words devices' programs wrote with plain stores that no later
// release store of the same program has published. On the hardware such a
// store rings no doorbell and orders nothing: a waiter is not woken by it,
// and a reader may see the old word or the new. So a waiter of a word
// another device wrote so wakes only once the word is published, and a read of such a word by
// another device's program is reported (event.EvPlainRead). A program publishes
// its plain stores with a release store, or by retiring (its completion is
// a release); a non-coherent device's drain is its DMA's completion, and
// what it writes is published.
//
// Every plain store of a simulated exchange's data goes through it (about
// 600 in a standard trial), so a store costs a few loads and stores: each
// buffer reaches pages of its words (plainBuffer), each word holding the
// epoch in which its last writer stored it. Epochs are numbered by one
// clock, so no two writers of the fabric ever had the same epoch: a word
// is unpublished while some writer is still in the epoch it holds, and a
// writer publishes every word it wrote at once by starting its next epoch.
// Words hold numbers, not pointers, so that the collector neither scans
// the pages nor makes a store pay a write barrier; and a fabric begun anew
// (a trial makes its buffers anew) gives the pages, cleared, to its new
// buffers.
//
// Most runs are published before anyone looks at them: a program writes a
// slot's data, then the release store that publishes it, in one step. So
// while the only unpublished words are one writer's runs, a run is only
// listed (deferred), and a publication of that writer drops the list: the
// pages under it hold only published epochs, which is what they must say
// after the publication. Anything else (another writer's store, a read or
// a waiter's look while some word is unpublished, the state hash, a long
// list) stamps the listed runs into the pages first (settle).
//
// Only programs' steps reach it (their views' loads and stores, the
// executor's look at a waiter's word, the checker's state hash at a step's
// choice), and the simulated executor runs every step holding its lock, so
// that lock guards it too.
type plainWords struct {
	n       int            // unpublished words, deferred ones included: the fast path of every load
	clock   uint64         // the last epoch begun
	writers []plainWriter  // each device that made plain stores
	buffers []*plainBuffer // the buffers written since the fabric began, each once
	spare   []*plainBuffer // buffers' pages kept from earlier fabrics, to reuse
	// deferred are runs of the writer at index owner, in its epoch, not
	// yet stamped into pages, of held words: while there are any, they
	// are all the unpublished words (n == held).
	deferred []plainRun
	owner    int
	held     int
}

// plainRun is a run of words [from, to) of a buffer, by word index.
type plainRun struct {
	buf      *Buffer
	from, to int
}

// plainDeferredRuns is the most runs deferred before they are stamped:
// each run deferred is first compared with those before it.
const plainDeferredRuns = 16

// plainWriter is a device that made plain stores: its epoch, which its
// next publication ends, and how many words stamped in pages it wrote
// last in this epoch.
type plainWriter struct {
	dev   *Device
	epoch uint64
	words int
}

// plainBuffer is a buffer's words that plain stores wrote, by pages made
// as words are written.
type plainBuffer struct {
	buf   *Buffer
	pages []*plainPage
}

// plainPageWords is how many words a page of a plainBuffer holds.
const plainPageWords = 64

// plainPage is a page of a buffer's words, each the epoch of its last
// plain store (0: none), with plainReported set once a read of it was
// reported in that epoch (one report a word).
type plainPage [plainPageWords]uint64

// plainReported marks a word whose read was reported.
const plainReported = 1 << 63

// of is b's plainBuffer, made (from a spare one when there is) when create
// says so; nil when it has none. It lives until the fabric begins anew
// (reset).
func (p *plainWords) of(b *Buffer, create bool) *plainBuffer {
	if b.plain == nil && create {
		n := b.region.Len()/4/plainPageWords + 1
		var pb *plainBuffer
		if k := len(p.spare); k > 0 {
			pb, p.spare = p.spare[k-1], p.spare[:k-1]
		} else {
			pb = &plainBuffer{}
		}
		pb.buf = b
		pb.pages = slices.Grow(pb.pages[:0], n)[:n]
		b.plain = pb
		p.buffers = append(p.buffers, pb)
	}
	return b.plain
}

// page is the page of word w, made when create says so; nil when it has
// none.
func (pb *plainBuffer) page(w int, create bool) *plainPage {
	pg := pb.pages[w/plainPageWords]
	if pg == nil && create {
		pg = new(plainPage)
		pb.pages[w/plainPageWords] = pg
	}
	return pg
}

// writer is the index of dev's plainWriter, added when create says so; -1
// when it has none.
func (p *plainWords) writer(dev *Device, create bool) int {
	for i := range p.writers {
		if p.writers[i].dev == dev {
			return i
		}
	}
	if !create {
		return -1
	}
	p.clock++
	p.writers = append(p.writers, plainWriter{dev: dev, epoch: p.clock})
	return len(p.writers) - 1
}

// lastWriter is the index of the writer of a word holding x when the word
// is unpublished, else -1.
func (p *plainWords) lastWriter(x uint64) int {
	if epoch := x &^ plainReported; epoch != 0 {
		for i := range p.writers {
			if p.writers[i].epoch == epoch {
				return i
			}
		}
	}
	return -1
}

// wrote notes a plain store of writer to the word at off of b.
func (p *plainWords) wrote(b *Buffer, off int, writer *Device) {
	p.wroteWords(b, off, 1, writer)
}

// wroteWords notes plain stores of writer to the n words from off on of b,
// which lie in b. The run is deferred while the only unpublished words
// are writer's deferred runs, none of which it overlaps; else it is
// stamped, a page at a time. While no other writer has an unpublished
// word, a word's epoch is writer's current one or over, and a page's
// words are stamped without asking whose they were.
func (p *plainWords) wroteWords(b *Buffer, off, n int, writer *Device) {
	if n <= 0 {
		return
	}
	wi := p.writer(writer, true)
	pb := p.of(b, true)
	from, to := off/4, off/4+n
	if p.n == p.held && (p.held == 0 || p.owner == wi && p.disjoint(b, from, to)) {
		p.deferRun(wi, b, from, to)
		return
	}
	p.settle()
	w := &p.writers[wi]
	for k := from; k < to; {
		pg := pb.page(k, true)
		stop := min(to, (k/plainPageWords+1)*plainPageWords)
		words := pg[k%plainPageWords : k%plainPageWords+stop-k]
		k = stop
		if p.n == w.words {
			added, epoch := 0, w.epoch
			for i, x := range words {
				if x&^plainReported != epoch {
					words[i] = epoch
					added++
				}
			}
			p.n += added
			w.words += added
			continue
		}
		for i, x := range words {
			if x&^plainReported == w.epoch {
				continue // unpublished since its last store
			}
			if last := p.lastWriter(x); last >= 0 {
				p.writers[last].words--
			} else {
				p.n++
			}
			w.words++
			words[i] = w.epoch
		}
	}
}

// disjoint reports whether words [from, to) of b overlap no deferred run,
// and there is room for one more.
func (p *plainWords) disjoint(b *Buffer, from, to int) bool {
	if len(p.deferred) >= plainDeferredRuns {
		return false
	}
	for _, r := range p.deferred {
		if r.buf == b && r.from < to && from < r.to {
			return false
		}
	}
	return true
}

// deferRun lists words [from, to) of b as written by writer wi, joining
// the last run when it goes on from it.
func (p *plainWords) deferRun(wi int, b *Buffer, from, to int) {
	p.owner = wi
	p.n += to - from
	p.held += to - from
	if k := len(p.deferred); k > 0 && p.deferred[k-1].buf == b && p.deferred[k-1].to == from {
		p.deferred[k-1].to = to
		return
	}
	p.deferred = append(p.deferred, plainRun{b, from, to})
}

// settle stamps the deferred runs into pages with their writer's epoch.
// No word under them holds an unpublished epoch (they were deferred only
// while nothing else was unpublished), so each word is stamped as it
// stands, and n, which counts them already, stays.
func (p *plainWords) settle() {
	if p.held == 0 {
		return
	}
	w := &p.writers[p.owner]
	for _, r := range p.deferred {
		pb := r.buf.plain // made when the run was deferred
		for k := r.from; k < r.to; {
			pg := pb.page(k, true)
			stop := min(r.to, (k/plainPageWords+1)*plainPageWords)
			words := pg[k%plainPageWords : k%plainPageWords+stop-k]
			for i := range words {
				words[i] = w.epoch
			}
			k = stop
		}
	}
	w.words += p.held
	p.dropDeferred()
}

// dropDeferred forgets the deferred runs.
func (p *plainWords) dropDeferred() {
	clear(p.deferred)
	p.deferred, p.held = p.deferred[:0], 0
}

// publish publishes every plain store of writer: a release store of its
// program, or its retirement. Its callers look at n first: with no
// unpublished word, there is nothing to publish.
func (p *plainWords) publish(writer *Device) {
	wi := p.writer(writer, false)
	if p.held > 0 && p.owner == wi {
		p.n -= p.held // all there was: the pages under the runs hold published epochs
		p.dropDeferred()
	}
	if wi >= 0 {
		w := &p.writers[wi]
		p.n -= w.words
		w.words = 0
		p.clock++
		w.epoch = p.clock
	}
}

// unpublished is the writer of the word at off of b when a plain store
// wrote it that is not yet published, with the word.
func (p *plainWords) unpublished(b *Buffer, off int) (*Device, *uint64) {
	p.settle()
	pb := p.of(b, false)
	if pb == nil {
		return nil, nil
	}
	pg := pb.page(off/4, false)
	if pg == nil {
		return nil, nil
	}
	x := &pg[off/4%plainPageWords]
	wi := p.lastWriter(*x)
	if wi < 0 {
		return nil, nil
	}
	return p.writers[wi].dev, x
}

// hidden reports whether another device than reader wrote the word at off
// of b with a plain store that is not yet published: a waiter of reader's
// is not woken by it. Its callers look at n first: with no unpublished
// word, none is hidden.
func (p *plainWords) hidden(b *Buffer, off int, reader *Device) bool {
	w, _ := p.unpublished(b, off)
	return w != nil && w != reader
}

// read reports a read by reader of the word at off of b when another
// device's plain store to it is unpublished (rule 8), once a word. Its
// caller looks at n first: with no unpublished word, a read is not
// looked up.
func (p *plainWords) read(b *Buffer, off int, reader *Device) {
	w, x := p.unpublished(b, off)
	if w == nil || w == reader || *x&plainReported != 0 {
		return
	}
	*x |= plainReported
	detail := reader.name + " read byte " + strconv.Itoa(off) + " of " + b.describe() +
		", which " + w.name + " wrote with a plain store that no later release store of " + w.name + " published"
	b.profile.fabric.events.Emit(reader.actor, b.owner, event.EvPlainRead, b.id, uint64(off), detail)
}

// hash adds the unpublished words, for the model checker's state hash:
// their count, then each word's buffer, offset, writer and whether a read
// of it was reported, by buffer and offset.
func (p *plainWords) hash(h *program.StateHash) {
	h.Add(uint64(p.n))
	if p.n == 0 {
		return
	}
	p.settle()
	bufs := slices.Clone(p.buffers)
	slices.SortFunc(bufs, func(a, b *plainBuffer) int { return cmp.Compare(a.buf.id, b.buf.id) })
	for _, pb := range bufs {
		words := pb.buf.region.Len() / 4
		for pi, pg := range pb.pages {
			if pg == nil {
				continue
			}
			for i := range min(plainPageWords, words-pi*plainPageWords) {
				if wi := p.lastWriter(pg[i]); wi >= 0 {
					h.Add(pb.buf.id)
					h.Add(uint64(4 * (pi*plainPageWords + i)))
					h.Add(uint64(p.writers[wi].dev.actor))
					h.Add(boolWord(pg[i]&plainReported != 0))
				}
			}
		}
	}
}

// plainSpares and plainSparePages bound what reset keeps for the next
// fabric: so many buffers' pages, each of at most so many pages (a buffer
// of 256 KiB; a bigger one's pages go to the collector).
const (
	plainSpares     = 64
	plainSparePages = 1024
)

// reset forgets every word, buffer and writer: a fabric begun anew (whose
// devices may be new ones). The buffers' pages are kept, cleared, for the
// next fabric's buffers (up to plainSpares buffers of plainSparePages). A
// buffer kept from before (a handle the renewal made stale) gets a new
// plainBuffer if it is ever written again.
func (p *plainWords) reset() {
	for _, pb := range p.buffers {
		pb.buf.plain, pb.buf = nil, nil
		if len(p.spare) < plainSpares && cap(pb.pages) <= plainSparePages {
			for _, pg := range pb.pages {
				if pg != nil {
					clear(pg[:])
				}
			}
			p.spare = append(p.spare, pb)
		}
	}
	clear(p.buffers)
	p.buffers = p.buffers[:0]
	clear(p.writers)
	p.writers = p.writers[:0]
	p.dropDeferred()
	p.n, p.clock = 0, 0
}
