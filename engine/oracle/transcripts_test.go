package oracle

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/memory"
)

// rewrite has TestOracleTranscripts write the transcripts' verdicts with
// what the oracle says now.
var rewrite = flag.Bool("rewrite", false, "write the transcripts' verdicts with what the oracle says now")

// TestOracleTranscripts feeds the oracle the events of each transcript in
// testdata and compares its verdicts with the transcript's. A
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
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
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
			if *rewrite {
				if err := os.WriteFile(file, []byte(in+"\n----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s: the oracle says\n%s\nthe transcript says\n%s\n(go test ./engine/oracle -run TestOracleTranscripts -rewrite rewrites it)", file, got, want)
			}
		})
	}
}

// replay feeds a transcript's events to an oracle of no fabric and says its
// verdicts.
func replay(transcript string) (string, error) {
	o := newOracle(true)
	var reading *memory.BudgetState
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
			var st memory.BudgetState
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
				o.budget.reading = func() memory.BudgetState { return *reading }
			}
			reading = &st
			continue
		case "settle":
			_ = o.CheckSettled()
			continue
		}
		e, err := ParseEvent(f)
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
