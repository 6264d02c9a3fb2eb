package devices

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

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
type plainWords struct {
	mu    sync.Mutex
	n     atomic.Int32 // len(words), read without mu: the fast path of every load
	words map[plainKey]*plainWord
}

// plainKey is a word of a buffer.
type plainKey struct {
	buf *Buffer
	off int
}

// plainWord is an unpublished word: who wrote it last.
type plainWord struct {
	writer   *Device
	reported bool // a read of it was reported: one report a word
}

// wrote notes a plain store of writer to the word at off of b.
func (p *plainWords) wrote(b *Buffer, off int, writer *Device) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.words == nil {
		p.words = map[plainKey]*plainWord{}
	}
	k := plainKey{b, off}
	if w, ok := p.words[k]; ok {
		w.writer = writer
		return
	}
	p.words[k] = &plainWord{writer: writer}
	p.n.Store(int32(len(p.words)))
}

// publish publishes every plain store of writer: a release store of its
// program, or its retirement.
func (p *plainWords) publish(writer *Device) {
	if p.n.Load() == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, w := range p.words {
		if w.writer == writer {
			delete(p.words, k)
		}
	}
	p.n.Store(int32(len(p.words)))
}

// hidden reports whether another device than reader wrote the word at off
// of b with a plain store that is not yet published: a waiter of reader's
// is not woken by it.
func (p *plainWords) hidden(b *Buffer, off int, reader *Device) bool {
	if p.n.Load() == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.words[plainKey{b, off}]
	return ok && w.writer != reader
}

// read reports a read by reader of the word at off of b when another
// device's plain store to it is unpublished (rule 8), once a word.
func (p *plainWords) read(b *Buffer, off int, reader *Device) {
	if p.n.Load() == 0 {
		return
	}
	p.mu.Lock()
	w, ok := p.words[plainKey{b, off}]
	report := ok && w.writer != reader && !w.reported
	if report {
		w.reported = true
	}
	p.mu.Unlock()
	if !report {
		return
	}
	detail := reader.name + " read byte " + strconv.Itoa(off) + " of " + b.describe() +
		", which " + w.writer.name + " wrote with a plain store that no later release store of " + w.writer.name + " published"
	b.profile.fabric.events.Emit(reader.actor, b.owner, event.EvPlainRead, b.id, uint64(off), detail)
}

// hash adds the unpublished words, for the model checker's state hash.
func (p *plainWords) hash(h *program.StateHash) {
	if p.n.Load() == 0 {
		h.Add(0)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	keys := make([]plainKey, 0, len(p.words))
	for k := range p.words {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b plainKey) int {
		if a.buf.id != b.buf.id {
			return int(a.buf.id) - int(b.buf.id)
		}
		return a.off - b.off
	})
	h.Add(uint64(len(keys)))
	for _, k := range keys {
		w := p.words[k]
		h.Add(k.buf.id)
		h.Add(uint64(k.off))
		h.Add(uint64(w.writer.actor))
		h.Add(boolWord(w.reported))
	}
}

// reset forgets every word: a fabric begun anew.
func (p *plainWords) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.words)
	p.n.Store(0)
}
