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
// buffer reaches pages of its words (plainBuffer), each word naming the
// writer that stored it last and that writer's epoch then; a word is
// unpublished while its writer is still in that epoch, and a writer
// publishes every word it wrote at once by starting its next epoch. The
// pages hold indices, not pointers (a writer's index in writers), so that
// the collector neither scans them nor makes a store pay a write barrier.
//
// Only programs' steps reach it (their views' loads and stores, the
// executor's look at a waiter's word, the checker's state hash at a step's
// choice), and the simulated executor runs every step holding its lock, so
// that lock guards it too.
type plainWords struct {
	n       int            // unpublished words: the fast path of every load
	writers []plainWriter  // each device that made plain stores
	buffers []*plainBuffer // the buffers written since the fabric began, each once
}

// plainWriter is a device that made plain stores: its epoch, which its
// next publication ends, and how many words it wrote last in this epoch.
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

// plainPage is a page of a buffer's words: plainPageWords, or fewer in a
// smaller buffer.
type plainPage []plainWord

// plainWord is who last wrote a word with a plain store: 1 + the writer's
// index in plainWords.writers (0: none), in which of its epochs, and
// whether a read of it was reported since (one report a word).
type plainWord struct {
	epoch    uint64
	writer   int32
	reported bool
}

// of is b's plainBuffer, made when create says so; nil when it has none.
// It lives until the fabric begins anew (reset).
func (p *plainWords) of(b *Buffer, create bool) *plainBuffer {
	if b.plain == nil && create {
		b.plain = &plainBuffer{buf: b, pages: make([]*plainPage, b.region.Len()/4/plainPageWords+1)}
		p.buffers = append(p.buffers, b.plain)
	}
	return b.plain
}

// word is word w, its page made when create says so; nil when it has
// none.
func (pb *plainBuffer) word(w int, create bool) *plainWord {
	pg := pb.pages[w/plainPageWords]
	if pg == nil {
		if !create {
			return nil
		}
		page := make(plainPage, min(plainPageWords, pb.buf.region.Len()/4))
		pg = &page
		pb.pages[w/plainPageWords] = pg
	}
	return &(*pg)[w%plainPageWords]
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
	p.writers = append(p.writers, plainWriter{dev: dev, epoch: 1})
	return len(p.writers) - 1
}

// lastWriter is the index of the writer of x when x is unpublished, else
// -1.
func (p *plainWords) lastWriter(x *plainWord) int {
	if x == nil || x.writer == 0 || p.writers[x.writer-1].epoch != x.epoch {
		return -1
	}
	return int(x.writer - 1)
}

// wrote notes a plain store of writer to the word at off of b.
func (p *plainWords) wrote(b *Buffer, off int, writer *Device) {
	p.wroteWords(b, off, 1, writer)
}

// wroteWords notes plain stores of writer to the n words from off on of b.
func (p *plainWords) wroteWords(b *Buffer, off, n int, writer *Device) {
	pb := p.of(b, true)
	wi := p.writer(writer, true)
	w := &p.writers[wi]
	for k := off / 4; k < off/4+n; k++ {
		x := pb.word(k, true)
		switch last := p.lastWriter(x); last {
		case wi:
			continue // unpublished since its last store
		case -1:
			p.n++
		default:
			p.writers[last].words--
		}
		w.words++
		*x = plainWord{epoch: w.epoch, writer: int32(wi + 1)}
	}
}

// publish publishes every plain store of writer: a release store of its
// program, or its retirement.
func (p *plainWords) publish(writer *Device) {
	if p.n == 0 {
		return
	}
	if wi := p.writer(writer, false); wi >= 0 {
		w := &p.writers[wi]
		p.n -= w.words
		w.words = 0
		w.epoch++
	}
}

// unpublished is the writer of the word at off of b when a plain store
// wrote it that is not yet published, with the word.
func (p *plainWords) unpublished(b *Buffer, off int) (*Device, *plainWord) {
	pb := p.of(b, false)
	if pb == nil {
		return nil, nil
	}
	x := pb.word(off/4, false)
	wi := p.lastWriter(x)
	if wi < 0 {
		return nil, nil
	}
	return p.writers[wi].dev, x
}

// hidden reports whether another device than reader wrote the word at off
// of b with a plain store that is not yet published: a waiter of reader's
// is not woken by it.
func (p *plainWords) hidden(b *Buffer, off int, reader *Device) bool {
	if p.n == 0 {
		return false
	}
	w, _ := p.unpublished(b, off)
	return w != nil && w != reader
}

// read reports a read by reader of the word at off of b when another
// device's plain store to it is unpublished (rule 8), once a word.
func (p *plainWords) read(b *Buffer, off int, reader *Device) {
	if p.n == 0 {
		return
	}
	w, x := p.unpublished(b, off)
	if w == nil || w == reader || x.reported {
		return
	}
	x.reported = true
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
	bufs := slices.Clone(p.buffers)
	slices.SortFunc(bufs, func(a, b *plainBuffer) int { return cmp.Compare(a.buf.id, b.buf.id) })
	for _, pb := range bufs {
		for pi, pg := range pb.pages {
			if pg == nil {
				continue
			}
			for i := range *pg {
				x := &(*pg)[i]
				if wi := p.lastWriter(x); wi >= 0 {
					h.Add(pb.buf.id)
					h.Add(uint64(4 * (pi*plainPageWords + i)))
					h.Add(uint64(p.writers[wi].dev.actor))
					h.Add(boolWord(x.reported))
				}
			}
		}
	}
}

// reset forgets every word, buffer and writer: a fabric begun anew (whose
// devices may be new ones). A buffer kept from before (a handle the
// renewal made stale) gets a new plainBuffer if it is ever written again.
func (p *plainWords) reset() {
	for _, pb := range p.buffers {
		pb.buf.plain = nil
	}
	clear(p.buffers)
	p.buffers = p.buffers[:0]
	clear(p.writers)
	p.writers = p.writers[:0]
	p.n = 0
}
