package memory

import (
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
		"Load64 unaligned": func() { r.Load64(4) },
		"Store64 past end": func() { r.Store64(64, 0) },
		"Write past end":   func() { r.Write(60, []byte("12345")) },
		"Read past end":    func() { r.Read(0, 65) },
		"Addr past end":    func() { r.Addr(65) },
	} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), "memory:") {
					t.Errorf("%s: panic %v, want a memory: message", name, p)
				}
			}()
			f()
		}()
	}
}
