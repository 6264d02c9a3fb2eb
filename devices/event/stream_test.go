package event

import (
	"os"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A real-time fabric's stream is readied whole (Init's whole): its ring
// at full capacity, its memory written before any event comes, as each
// device log's batches are (Written). Memory fresh from the system is not
// there until its first write to each page faults, and each such fault
// would stall a device in its rounds. A simulated fabric's stream grows
// its ring as events come.
func TestAWholeRingIsWrittenBeforeEventsCome(t *testing.T) {
	clock := func() time.Duration { return 0 }
	var s Stream
	s.Init(1<<16, nil, true, clock)
	if got, want := cap(s.ring), 1<<16; got != want {
		t.Fatalf("a whole ring holds %d events before any came, want its capacity, %d", got, want)
	}
	check := func(what string, events []Event) {
		if in, of := residentPages(t, events); in != of {
			t.Errorf("%d of the %d pages of %s are in memory before any event came, want all", in, of, what)
		}
	}
	check("the ring", s.ring[:cap(s.ring)])
	b := Written(4096)
	check("a written batch", b[:cap(b)])
	var grown Stream
	grown.Init(1<<16, nil, false, clock)
	if grown.ring != nil {
		t.Errorf("a ring not made whole holds %d events before any came, want it made as they come", cap(grown.ring))
	}
}

// residentPages counts the pages that hold events and are in memory.
func residentPages(t *testing.T, events []Event) (in, of int) {
	t.Helper()
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(events))) &^ (page - 1)
	end := uintptr(unsafe.Pointer(unsafe.SliceData(events))) + uintptr(len(events))*unsafe.Sizeof(Event{})
	vec := make([]byte, (end-start+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, start, end-start, uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); errno != 0 {
		t.Fatal(errno)
	}
	for _, v := range vec {
		in += int(v & 1)
	}
	return in, len(vec)
}
