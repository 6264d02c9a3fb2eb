package luaprogram

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
)

// checkMemo remembers the checks that passed, by everything a check reads,
// so that a check given the same again passes without running: a model
// checker's schedules end in the same results again and again, and running
// the check is most of what checking one costs once its programs ran.
//
// A check is taken to be a function of what it reads: its arguments, c's
// fields and the words of the buffers c reaches. The memo holds only
// checks run as a sealed function (the chunk's check, unchanged since it
// was made, whose every upvalue is a function or an immutable value) in an
// environment as made, which neither printed nor drew a random number; a
// check whose answer depends on anything else (the collector's count, a
// table's address) is not one a schedule can be judged by.
type checkMemo struct {
	of     *sealed              // the check the entries are of
	passed map[memoKey][][]byte // the inputs of checks that passed, by their hash
	bytes  int                  // the bytes of the inputs passed holds
	seed   maphash.Seed
	buf    []byte // the inputs being looked up
}

// memoKey is the hash of a check's inputs and its arguments, which are
// frozen (Args): the same arguments are the same root.
type memoKey struct {
	args value
	hash uint64
}

// Bounds of the memo: a check that reaches more memory than maxMemoBytes
// runs every time (gathering its inputs would cost about what it does),
// and once it holds maxMemoTotal bytes (its inputs, and memoEntryBytes an
// entry for the map's and the slice's own) the memo starts again.
const (
	maxMemoBytes   = 64 << 10
	maxMemoTotal   = 4 << 20
	memoEntryBytes = 64
)

// inputs gathers what in's check reads, run as s: the session, and each
// buffer's name, size and words (the startup line first). ok is false when
// the check cannot be remembered: s is not sealed, or the buffers are too
// big.
func (c *checkMemo) inputs(in *Instance, s *sealed) (key memoKey, ok bool) {
	if s == nil {
		return memoKey{}, false
	}
	if c.of != s {
		c.of, c.passed, c.bytes = s, nil, 0
	}
	total := in.cfg.Startup.Size()
	for _, b := range in.cfg.Buffers {
		total += b.View.Size()
	}
	if total > maxMemoBytes {
		return memoKey{}, false
	}
	buf := binary.LittleEndian.AppendUint64(c.buf[:0], in.cfg.Owner)
	buf = appendWords(buf, "", in.cfg.Startup.Buffer().HostLoad, in.cfg.Startup.Size())
	for _, b := range in.cfg.Buffers {
		buf = appendWords(buf, b.Name, b.View.Buffer().HostLoad, b.View.Size())
	}
	c.buf = buf
	if c.seed == (maphash.Seed{}) {
		c.seed = maphash.MakeSeed()
	}
	return memoKey{args: in.cfg.Args.root, hash: maphash.Bytes(c.seed, buf)}, true
}

// appendWords appends a buffer's name, its size and its words, as load
// reads them, to buf.
func appendWords(buf []byte, name string, load func(off int) uint32, size int) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(name)))
	buf = append(buf, name...)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(size))
	for off := 0; off+4 <= size; off += 4 {
		buf = binary.LittleEndian.AppendUint32(buf, load(off))
	}
	return buf
}

// passes reports whether the check passed with the inputs key and c.buf
// are of.
func (c *checkMemo) passes(key memoKey) bool {
	for _, in := range c.passed[key] {
		if bytes.Equal(in, c.buf) {
			return true
		}
	}
	return false
}

// remember records that the check passed with the inputs of key.
func (c *checkMemo) remember(key memoKey) {
	if c.passed == nil || c.bytes+len(c.buf)+memoEntryBytes > maxMemoTotal {
		c.passed, c.bytes = map[memoKey][][]byte{}, 0
	}
	c.passed[key] = append(c.passed[key], bytes.Clone(c.buf))
	c.bytes += len(c.buf) + memoEntryBytes
}
