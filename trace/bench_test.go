package trace

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"runtime"
	"testing"
)

// sessions is a reader of a trace of n sessions one after another, made
// as it is read: a trace of any length in no memory.
type sessions struct {
	n, next int
	buf     []byte
	onLine  func()
}

func newSessions(n int) *sessions { return &sessions{n: n, buf: []byte(header() + "\n")} }

// eventsPerSession is how many events cleanSession has.
var eventsPerSession = len(cleanSession(1, 0))

func (s *sessions) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.next == s.n {
			return 0, io.EOF
		}
		s.next++
		if s.onLine != nil {
			s.onLine()
		}
		// Ids and times of session k follow those of k-1.
		for _, l := range cleanSessionOn(uint64(s.next), uint64(s.next)*100, "gpu", "npu") {
			s.buf = append(s.buf, l...)
			s.buf = append(s.buf, '\n')
		}
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	if len(s.buf) == 0 {
		s.buf = s.buf[:0:cap(s.buf)]
		s.buf = s.buf[:0]
	}
	return n, nil
}

// BenchmarkValidate validates a trace of a million events, beside merely
// decoding it with the same decoder: validation must run at no less than
// half the speed of decoding.
func BenchmarkValidate(b *testing.B) {
	n := 1000000 / eventsPerSession
	var text bytes.Buffer
	if _, err := io.Copy(&text, newSessions(n)); err != nil {
		b.Fatal(err)
	}
	events := float64(n * eventsPerSession)
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			dec, err := NewDecoder("bench", bytes.NewReader(text.Bytes()))
			if err != nil {
				b.Fatal(err)
			}
			var e Event
			for {
				if err := dec.Next(&e); err != nil {
					if errors.Is(err, io.EOF) {
						break
					}
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(events*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			r, err := Validate(Input{"bench", bytes.NewReader(text.Bytes())})
			if err != nil || !r.OK() {
				b.Fatalf("%v\n%s", err, r)
			}
		}
		b.ReportMetric(events*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}

var boundedEvents = flag.Int("trace.events", 300000, "events of the trace TestMemoryBoundedBySessionsOpen validates (the acceptance bar is 10 million)")

// A long trace of sessions one after another is validated in memory
// bounded by the sessions open at once, not by its length.
func TestMemoryBoundedBySessionsOpen(t *testing.T) {
	n := *boundedEvents / eventsPerSession
	if testing.Short() {
		n = 100000 / eventsPerSession
	}
	src := newSessions(n)
	var peak uint64
	var ms runtime.MemStats
	src.onLine = func() {
		if src.next%20000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	r, err := Validate(Input{"long", src})
	if err != nil || !r.OK() {
		t.Fatalf("%v\n%s", err, r)
	}
	if r.Events != n*eventsPerSession {
		t.Fatalf("validated %d events, want %d", r.Events, n*eventsPerSession)
	}
	const limit = 100 << 20
	if peak > limit {
		t.Errorf("validating %d events held %d MB of heap, more than %d MB", r.Events, peak>>20, limit>>20)
	}
	t.Logf("%d events, %d sessions: peak heap in use %.1f MB", r.Events, r.Sessions, float64(peak)/(1<<20))
}
