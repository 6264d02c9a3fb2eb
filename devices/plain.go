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
// Every plain store of a simulated exchange's data goes through it, so it
// is kept as pages of words per buffer (plainBuffer), reached from the
// buffer, and each writer's list of the words it wrote (plainWriter): a
// store, a read and a publication cost a few loads, where a map of words
// cost a standard trial three times its time.
//
// Only programs' steps reach it (their views' loads and stores, the
// executor's look at a waiter's word, the checker's state hash at a step's
// choice), and the simulated executor runs every step holding its lock, so
// that lock guards it too.
type plainWords struct {
	n       int           // unpublished words: the fast path of every load
	writers []plainWriter // each device that made plain stores, and what it wrote since it published
}

// plainWriter is a device's plain stores since it last published: each
// word it wrote, which another device may have written over since (the
// word's writer says who wrote it last), and a word it wrote again is
// listed again.
type plainWriter struct {
	dev   *Device
	words []plainRef
}

// plainRef is word w of a buffer's plainBuffer.
type plainRef struct {
	pb *plainBuffer
	w  int
}

// plainBuffer is a buffer's unpublished words: who wrote each last (nil:
// none unpublished), by pages made as words are written.
type plainBuffer struct {
	buf   *Buffer
	pages []*plainPage
}

// plainPageWords is how many words a page of a plainBuffer holds.
const plainPageWords = 512

// plainPage is a page of a buffer's words: plainPageWords, or fewer in a
// smaller buffer.
type plainPage struct {
	writer   []*Device
	reported []bool // a read of it was reported: one report a word
}

// of is b's plainBuffer, made when create says so; nil when it has none.
// It lives as long as b.
func (p *plainWords) of(b *Buffer, create bool) *plainBuffer {
	if b.plain == nil && create {
		b.plain = &plainBuffer{buf: b, pages: make([]*plainPage, b.region.Len()/4/plainPageWords+1)}
	}
	return b.plain
}

// word is the page and index of word w, the page made when create says
// so; nil when it has none.
func (pb *plainBuffer) word(w int, create bool) (*plainPage, int) {
	pg := pb.pages[w/plainPageWords]
	if pg == nil && create {
		n := min(plainPageWords, pb.buf.region.Len()/4)
		pg = &plainPage{writer: make([]*Device, n), reported: make([]bool, n)}
		pb.pages[w/plainPageWords] = pg
	}
	return pg, w % plainPageWords
}

// writer is dev's plainWriter, added when create says so; nil when it has
// none.
func (p *plainWords) writer(dev *Device, create bool) *plainWriter {
	for i := range p.writers {
		if p.writers[i].dev == dev {
			return &p.writers[i]
		}
	}
	if !create {
		return nil
	}
	p.writers = append(p.writers, plainWriter{dev: dev})
	return &p.writers[len(p.writers)-1]
}

// wrote notes a plain store of writer to the word at off of b.
func (p *plainWords) wrote(b *Buffer, off int, writer *Device) {
	pb := p.of(b, true)
	pg, i := pb.word(off/4, true)
	switch pg.writer[i] {
	case writer:
		return // listed since its last store
	case nil:
		p.n++
	}
	pg.writer[i] = writer
	wl := p.writer(writer, true)
	wl.words = append(wl.words, plainRef{pb, off / 4})
}

// publish publishes every plain store of writer: a release store of its
// program, or its retirement.
func (p *plainWords) publish(writer *Device) {
	if p.n == 0 {
		return
	}
	if wl := p.writer(writer, false); wl != nil {
		p.forget(wl)
	}
}

// forget publishes the words wl lists that its device wrote last.
func (p *plainWords) forget(wl *plainWriter) {
	for _, r := range wl.words {
		pg, i := r.pb.word(r.w, false)
		if pg.writer[i] == wl.dev {
			pg.writer[i], pg.reported[i] = nil, false
			p.n--
		}
	}
	clear(wl.words)
	wl.words = wl.words[:0]
}

// unpublished is the writer of the word at off of b when a plain store
// wrote it that is not yet published, with its page and index.
func (p *plainWords) unpublished(b *Buffer, off int) (*Device, *plainPage, int) {
	pb := p.of(b, false)
	if pb == nil {
		return nil, nil, 0
	}
	pg, i := pb.word(off/4, false)
	if pg == nil {
		return nil, nil, 0
	}
	return pg.writer[i], pg, i
}

// hidden reports whether another device than reader wrote the word at off
// of b with a plain store that is not yet published: a waiter of reader's
// is not woken by it.
func (p *plainWords) hidden(b *Buffer, off int, reader *Device) bool {
	if p.n == 0 {
		return false
	}
	w, _, _ := p.unpublished(b, off)
	return w != nil && w != reader
}

// read reports a read by reader of the word at off of b when another
// device's plain store to it is unpublished (rule 8), once a word.
func (p *plainWords) read(b *Buffer, off int, reader *Device) {
	if p.n == 0 {
		return
	}
	w, pg, i := p.unpublished(b, off)
	if w == nil || w == reader || pg.reported[i] {
		return
	}
	pg.reported[i] = true
	detail := reader.name + " read byte " + strconv.Itoa(off) + " of " + b.describe() +
		", which " + w.name + " wrote with a plain store that no later release store of " + w.name + " published"
	b.profile.fabric.events.Emit(reader.actor, b.owner, event.EvPlainRead, b.id, uint64(off), detail)
}

// hash adds the unpublished words, for the model checker's state hash:
// their count, then each word's buffer, offset, writer and whether a read
// of it was reported, by buffer and offset.
func (p *plainWords) hash(h *program.StateHash) {
	if p.n == 0 {
		h.Add(0)
		return
	}
	var words []plainRef
	for _, wl := range p.writers {
		for _, r := range wl.words {
			if pg, i := r.pb.word(r.w, false); pg.writer[i] == wl.dev {
				words = append(words, r)
			}
		}
	}
	slices.SortFunc(words, func(a, b plainRef) int {
		return cmp.Or(cmp.Compare(a.pb.buf.id, b.pb.buf.id), cmp.Compare(a.w, b.w))
	})
	words = slices.CompactFunc(words, func(a, b plainRef) bool { return a.pb == b.pb && a.w == b.w })
	h.Add(uint64(len(words)))
	for _, r := range words {
		pg, i := r.pb.word(r.w, false)
		h.Add(r.pb.buf.id)
		h.Add(uint64(4 * r.w))
		h.Add(uint64(pg.writer[i].actor))
		h.Add(boolWord(pg.reported[i]))
	}
}

// reset forgets every word: a fabric begun anew.
func (p *plainWords) reset() {
	for i := range p.writers {
		p.forget(&p.writers[i])
	}
	clear(p.writers)
	p.writers = p.writers[:0]
	p.n = 0
}
