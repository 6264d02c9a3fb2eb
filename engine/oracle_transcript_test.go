package engine

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/program"
)

// rewriting reports whether the test runs with -rewrite (the flag the
// datadriven package defines, which TestSessionTranscripts uses too): then
// transcripts are written with what the code says now.
func rewriting() bool { return flag.Lookup("rewrite").Value.(flag.Getter).Get().(bool) }

// TestOracleTranscripts feeds the oracle the events of each transcript in
// testdata/oracle and compares its verdicts with the transcript's. A
// transcript is events in, one a line, then a line "----", then the
// verdicts out, one violation a line ("ok" when there is none). With
// -rewrite the test writes the verdicts instead of comparing them.
//
// An event line is "<time> <actor> <session> <kind> [<A> [<B> [<detail>]]]":
// a duration, "host" or "d<n>" (the device actor n), "s<n>" or "-" (no
// session), an event kind's name, and numbers. Other lines set the scene:
// "real" (real time: invariants 11 and 15 are not checked), "liveness
// <duration>" (Oracle.Liveness), "budget <charged> <quarantined>" (the
// budget's reading from then on, which invariant 8 compares the events'
// accounts with; there is none until this line) and "settle"
// (Oracle.CheckSettled). A "#" begins a comment.
func TestOracleTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "oracle", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in, want, ok := strings.Cut(string(data), "\n----\n")
			if !ok {
				t.Fatalf("%s has no line ---- between its events and its verdicts", file)
			}
			got, err := replay(in)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if rewriting() {
				if err := os.WriteFile(file, []byte(in+"\n----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s: the oracle says\n%s\nthe transcript says\n%s\n(go test ./engine -run TestOracleTranscripts -rewrite rewrites it)", file, got, want)
			}
		})
	}
}

// replay feeds a transcript's events to an oracle of no fabric and says its
// verdicts.
func replay(transcript string) (string, error) {
	o := newOracle(true)
	var reading *devices.BudgetState
	seq := uint64(0)
	for n, line := range strings.Split(transcript, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("line %d, %q: %s", n+1, line, fmt.Sprintf(format, args...))
		}
		switch f[0] {
		case "real":
			o.lifecycle.simulated = false
			continue
		case "liveness":
			d, err := time.ParseDuration(strings.Join(f[1:], ""))
			if err != nil {
				return "", bad("want liveness <duration>: %v", err)
			}
			o.Liveness(d)
			continue
		case "budget":
			var st devices.BudgetState
			if len(f) != 3 {
				return "", bad("want budget <charged> <quarantined>")
			}
			var err1, err2 error
			st.Charged, err1 = strconv.ParseInt(f[1], 10, 64)
			st.Quarantined, err2 = strconv.ParseInt(f[2], 10, 64)
			if err1 != nil || err2 != nil {
				return "", bad("want budget <charged> <quarantined>, whole numbers of bytes")
			}
			if reading == nil {
				o.budget.reading = func() devices.BudgetState { return *reading }
			}
			reading = &st
			continue
		case "settle":
			_ = o.CheckSettled()
			continue
		}
		e, err := parseEvent(f)
		if err != nil {
			return "", bad("%v", err)
		}
		seq++
		e.Seq = seq
		o.observe(&e)
	}
	var out strings.Builder
	for _, v := range o.Violations() {
		fmt.Fprintf(&out, "violation %d s%d at %d: %s\n", v.Invariant, v.Session, v.at, v.Message)
	}
	if out.Len() == 0 {
		return "ok\n", nil
	}
	return out.String(), nil
}

// parseEvent reads an event line's fields: time, actor, session, kind, then
// A, B and the detail, each optional.
func parseEvent(f []string) (devices.Event, error) {
	var e devices.Event
	if len(f) < 4 {
		return e, fmt.Errorf("want <time> <actor> <session> <kind> [<A> [<B> [<detail>]]]")
	}
	var err error
	if e.Time, err = time.ParseDuration(f[0]); err != nil {
		return e, fmt.Errorf("time: %v", err)
	}
	switch actor := f[1]; {
	case actor == "host":
	case strings.HasPrefix(actor, "d"):
		n, err := strconv.ParseUint(actor[1:], 10, 8)
		if err != nil || n == 0 {
			return e, fmt.Errorf("actor %q: want host or d1, d2, ...", actor)
		}
		e.Actor = devices.Actor(n)
	default:
		return e, fmt.Errorf("actor %q: want host or d1, d2, ...", actor)
	}
	if f[2] != "-" {
		if e.Session, err = strconv.ParseUint(strings.TrimPrefix(f[2], "s"), 10, 64); err != nil || !strings.HasPrefix(f[2], "s") {
			return e, fmt.Errorf("session %q: want s1, s2, ... or -", f[2])
		}
	}
	kind, ok := program.LookupEvent(f[3])
	if !ok {
		return e, fmt.Errorf("no event kind is named %q", f[3])
	}
	e.Kind = kind
	for i, p := range []*uint64{&e.A, &e.B} {
		if len(f) > 4+i {
			if *p, err = strconv.ParseUint(f[4+i], 10, 64); err != nil {
				return e, fmt.Errorf("%c: %v", "AB"[i], err)
			}
		}
	}
	if len(f) > 6 {
		e.Detail = strings.Join(f[6:], " ")
	}
	return e, nil
}

// formatEvent writes e as a transcript's event line: what
// TestOracleTranscripts reads.
func formatEvent(e devices.Event) string {
	actor, session := "host", "-"
	if e.Actor != devices.HostActor {
		actor = "d" + strconv.Itoa(int(e.Actor))
	}
	if e.Session != 0 {
		session = "s" + strconv.FormatUint(e.Session, 10)
	}
	line := fmt.Sprintf("%v %s %s %s %d %d %s", e.Time, actor, session, e.Kind, e.A, e.B, e.Detail)
	return strings.TrimRight(line, " ")
}

// A transcript of a real session reads back as the events it was made
// from, and the oracle's verdicts on it are the live oracle's: no
// violation for a clean session.
func TestTranscriptOfARealSession(t *testing.T) {
	f, o := newOracleFabric(t)
	s := newSession(t, f, roundsConfig(2))
	run(t, s)
	if out := s.Close(); out != Retired {
		t.Fatalf("Close = %s, want retired", out)
	}
	var lines []string
	for _, e := range f.Events().Events(nil) {
		line := formatEvent(e)
		back, err := parseEvent(strings.Fields(line))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if back.Time != e.Time || back.Actor != e.Actor || back.Session != e.Session || back.Kind != e.Kind || back.A != e.A || back.B != e.B || back.Detail != strings.Join(strings.Fields(e.Detail), " ") {
			t.Fatalf("%q reads back as %+v, want %+v", line, back, e)
		}
		lines = append(lines, line)
	}
	wantNoViolations(t, o)
	got, err := replay(strings.Join(lines, "\n") + "\nsettle\n")
	if err != nil {
		t.Fatal(err)
	}
	if got != "ok\n" {
		t.Errorf("the transcript of a clean session gets the verdicts\n%s", got)
	}
}
