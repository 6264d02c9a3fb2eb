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
// cost a standard trial three times its time. The pages and the lists
// hold indices, not pointers (a writer's index in writers, a buffer's in
// buffers), so that the collector neither scans them nor makes each store
// pay a write barrier.
//
// Only programs' steps reach it (their views' loads and stores, the
// executor's look at a waiter's word, the checker's state hash at a step's
// choice), and the simulated executor runs every step holding its lock, so
// that lock guards it too.
type plainWords struct {
	n       int            // unpublished words: the fast path of every load
	writers []plainWriter  // each device that made plain stores, and what it wrote since it published
	buffers []*plainBuffer // the buffers written since the fabric began, each once
}

// plainWriter is a device's plain stores since it last published: each
// word it wrote, which another device may have written over since (the
// word's writer says who wrote it last), and a word it wrote again is
// listed again.
type plainWriter struct {
	dev   *Device
	words []plainRef
}

// plainRef is word w of the buffer of index b in plainWords.buffers.
type plainRef struct {
	b, w int32
}

// plainBuffer is a buffer's unpublished words: who wrote each last, by
// pages made as words are written.
type plainBuffer struct {
	buf   *Buffer
	index int32 // in plainWords.buffers
	pages []*plainPage
}

// plainPageWords is how many words a page of a plainBuffer holds.
const plainPageWords = 512

// plainPage is a page of a buffer's words: plainPageWords, or fewer in a
// smaller buffer.
type plainPage struct {
	writer   []int32 // 1 + the index in plainWords.writers of the word's last writer; 0: none unpublished
	reported []bool  // a read of it was reported: one report a word
}

// of is b's plainBuffer, made when create says so; nil when it has none.
// It lives until the fabric begins anew (reset).
func (p *plainWords) of(b *Buffer, create bool) *plainBuffer {
	if b.plain == nil && create {
		b.plain = &plainBuffer{buf: b, index: int32(len(p.buffers)), pages: make([]*plainPage, b.region.Len()/4/plainPageWords+1)}
		p.buffers = append(p.buffers, b.plain)
	}
	return b.plain
}

// word is the page and index of word w, the page made when create says
// so; nil when it has none.
func (pb *plainBuffer) word(w int, create bool) (*plainPage, int) {
	pg := pb.pages[w/plainPageWords]
	if pg == nil && create {
		n := min(plainPageWords, pb.buf.region.Len()/4)
		pg = &plainPage{writer: make([]int32, n), reported: make([]bool, n)}
		pb.pages[w/plainPageWords] = pg
	}
	return pg, w % plainPageWords
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
	p.writers = append(p.writers, plainWriter{dev: dev})
	return len(p.writers) - 1
}

// wrote notes a plain store of writer to the word at off of b.
func (p *plainWords) wrote(b *Buffer, off int, writer *Device) {
	pb := p.of(b, true)
	pg, i := pb.word(off/4, true)
	if last := pg.writer[i]; last != 0 && p.writers[last-1].dev == writer {
		return // listed since its last store
	} else if last == 0 {
		p.n++
	}
	wi := p.writer(writer, true)
	pg.writer[i] = int32(wi + 1)
	wl := &p.writers[wi]
	wl.words = append(wl.words, plainRef{pb.index, int32(off / 4)})
}

// publish publishes every plain store of writer: a release store of its
// program, or its retirement.
func (p *plainWords) publish(writer *Device) {
	if p.n == 0 {
		return
	}
	if wi := p.writer(writer, false); wi >= 0 {
		p.forget(wi)
	}
}

// forget publishes the words the writer of index wi lists that it wrote
// last.
func (p *plainWords) forget(wi int) {
	wl := &p.writers[wi]
	for _, r := range wl.words {
		pg, i := p.buffers[r.b].word(int(r.w), false)
		if pg.writer[i] == int32(wi+1) {
			pg.writer[i], pg.reported[i] = 0, false
			p.n--
		}
	}
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
	if pg == nil || pg.writer[i] == 0 {
		return nil, nil, 0
	}
	return p.writers[pg.writer[i]-1].dev, pg, i
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
	for wi, wl := range p.writers {
		for _, r := range wl.words {
			if pg, i := p.buffers[r.b].word(int(r.w), false); pg.writer[i] == int32(wi+1) {
				words = append(words, r)
			}
		}
	}
	id := func(r plainRef) uint64 { return p.buffers[r.b].buf.id }
	slices.SortFunc(words, func(a, b plainRef) int {
		return cmp.Or(cmp.Compare(id(a), id(b)), cmp.Compare(a.w, b.w))
	})
	words = slices.CompactFunc(words, func(a, b plainRef) bool { return a == b })
	h.Add(uint64(len(words)))
	for _, r := range words {
		pg, i := p.buffers[r.b].word(int(r.w), false)
		h.Add(id(r))
		h.Add(uint64(4 * r.w))
		h.Add(uint64(p.writers[pg.writer[i]-1].dev.actor))
		h.Add(boolWord(pg.reported[i]))
	}
}

// reset forgets every word and buffer: a fabric begun anew, with the same
// devices, whose lists are kept empty. A buffer kept from before (a handle
// the renewal made stale) gets a new plainBuffer if it is ever written
// again.
func (p *plainWords) reset() {
	for _, pb := range p.buffers {
		pb.buf.plain = nil
	}
	clear(p.buffers)
	p.buffers = p.buffers[:0]
	for i := range p.writers {
		p.writers[i].words = p.writers[i].words[:0]
	}
	p.n = 0
}
