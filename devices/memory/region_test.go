package memory

import (
	"fmt"
	"strings"
	"testing"
)

// A foreign region reads and writes the lender's memory, zeroes it first,
// and gives it back through free on Unmap, never through munmap.
func TestForeignRegionUsesTheLendersMemoryAndFree(t *testing.T) {
	lender, err := Map(2 * LineBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer lender.Unmap()
	lender.Store(4, 0xdead)
	freed := 0
	r, err := Foreign(lender.Addr(0), lender.Len(), func() error { freed++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if v := lender.Load(4); v != 0 {
		t.Errorf("Foreign left %#x in the lent memory, want it zeroed", v)
	}
	r.Store(64, 7)
	r.Store64(8, 1<<40|3)
	if lender.Load(64) != 7 || lender.Load64(8) != 1<<40|3 {
		t.Errorf("stores through the foreign region did not reach the lender's memory")
	}
	r.Write(16, []byte("ptx\x00"))
	if got := string(lender.Read(16, 4)); got != "ptx\x00" {
		t.Errorf("Read after Write = %q", got)
	}
	if r.Addr(64)-r.Addr(0) != 64 || r.Addr(0) != lender.Addr(0) {
		t.Errorf("Addr: %#x, %#x; want the lender's address and offsets added", r.Addr(0), r.Addr(64))
	}
	if err := r.Unmap(); err != nil || freed != 1 {
		t.Fatalf("Unmap = %v with free called %d times, want nil and once", err, freed)
	}
	lender.Store(0, 1) // still mapped: free, not munmap, ran
	if err := r.Unmap(); err == nil {
		t.Error("a second Unmap succeeded")
	}
}

func TestForeignRefusesMisalignedMemory(t *testing.T) {
	for _, tc := range []struct {
		addr uintptr
		size int
	}{{0, 64}, {64 + 4, 64}, {128, 0}, {128, 65}} {
		if _, err := Foreign(tc.addr, tc.size, nil); err == nil || !strings.Contains(err.Error(), "not line-aligned whole lines") {
			t.Errorf("Foreign(%#x, %d) = %v, want the alignment error", tc.addr, tc.size, err)
		}
	}
}

func TestOutOfRangeAccessPanicsWithTheOffset(t *testing.T) {
	r, err := Map(LineBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Unmap()
	for name, f := range map[string]func(){
		"Load64 unaligned":        func() { r.Load64(4) },
		"Store64 past end":        func() { r.Store64(64, 0) },
		"Load before the start":   func() { r.Load(-4) },
		"Load past end":           func() { r.Load(64) },
		"StorePlain unaligned":    func() { r.StorePlain(2, 0) },
		"WritePlain past end":     func() { r.WritePlain(56, []uint32{1, 2, 3}) },
		"WritePlain before start": func() { r.WritePlain(-4, []uint32{1, 2}) },
		"Write past end":          func() { r.Write(60, []byte("12345")) },
		"Read past end":           func() { r.Read(0, 65) },
		"Addr past end":           func() { r.Addr(65) },
	} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "memory:") {
					t.Errorf("%s: panic %v, want a memory: message", name, p)
				}
			}()
			f()
		}()
	}
}

func TestWritePlainStoresEachWord(t *testing.T) {
	r, err := Map(LineBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Unmap()
	r.WritePlain(52, []uint32{7, 8, 9}) // the last three words
	r.WritePlain(0, nil)
	for off := 0; off < LineBytes; off += 4 {
		want := uint32(0)
		if off >= 52 {
			want = uint32(7 + (off-52)/4)
		}
		if got := r.Load(off); got != want {
			t.Errorf("word at %d = %d, want %d", off, got, want)
		}
	}
}
