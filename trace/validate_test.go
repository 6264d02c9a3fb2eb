package trace

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// header is a trace's header declaring every kind, with an exact clock.
func header() string {
	return fmt.Sprintf(`{"trace":"residentlua","version":1,"clock":"exact","kinds":["%s"]}`, strings.Join(Kinds(), `","`))
}

// cleanSession is the lines of one session that keeps every rule, from
// time t0, with ids offset by id (session id, line id+10, payload id+11,
// invocations id*10+1 and id*10+2).
func cleanSession(id, t0 uint64) []string {
	gpu, npu := "gpu", "npu"
	if id > 1 { // sessions at once run on devices of their own
		gpu, npu = fmt.Sprint("gpu", id), fmt.Sprint("npu", id)
	}
	return cleanSessionOn(id, t0, gpu, npu)
}

// cleanSessionOn is cleanSession on the devices gpu and npu.
func cleanSessionOn(id, t0 uint64, gpu, npu string) []string {
	s, line, pay, g, n := id, id*100+10, id*100+11, id*10+1, id*10+2
	ev := func(t uint64, actor, kind, fields string) string {
		if actor == "gpu" {
			actor = gpu
		} else if actor == "npu" {
			actor = npu
		}
		if fields != "" {
			fields = "," + fields
		}
		return fmt.Sprintf(`{"time":%d,"actor":%q,"session":%d,"kind":%q%s}`, t0+t, actor, s, kind, fields)
	}
	return []string{
		ev(0, "host", "alloc", fmt.Sprintf(`"buffer":%d,"bytes":64`, line)),
		ev(1, "host", "open", fmt.Sprintf(`"line":%d`, line)),
		ev(2, "host", "alloc", fmt.Sprintf(`"buffer":%d,"bytes":4096`, pay)),
		ev(3, "host", "session", fmt.Sprintf(`"gpu":%q,"npu":%q`, gpu, npu)),
		ev(4, "gpu", "dispatch", fmt.Sprintf(`"invocation":%d,"reach":[%d,%d]`, g, line, pay)),
		ev(5, "host", "submit", `"participant":"gpu","result":"accepted"`),
		ev(6, "host", "submit.return", `"participant":"gpu","result":"ok"`),
		ev(7, "npu", "dispatch", fmt.Sprintf(`"invocation":%d,"reach":[%d,%d]`, n, line, pay)),
		ev(8, "host", "submit", `"participant":"npu","result":"accepted"`),
		ev(9, "host", "submit.return", `"participant":"npu","result":"ok"`),
		ev(10, "host", "decide", `"decision":"RUN"`),
		ev(11, "host", "store", fmt.Sprintf(`"buffer":%d,"value":"RUN"`, line)),
		ev(12, "host", "publish", `"decision":"RUN","result":"ok"`),
		ev(13, "gpu", "observe", fmt.Sprintf(`"invocation":%d,"decision":"RUN"`, g)),
		ev(14, "gpu", "touch", fmt.Sprintf(`"invocation":%d,"buffer":%d`, g, pay)),
		ev(15, "npu", "observe", fmt.Sprintf(`"invocation":%d,"decision":"RUN"`, n)),
		ev(16, "npu", "touch", fmt.Sprintf(`"invocation":%d,"buffer":%d`, n, pay)),
		ev(17, "gpu", "retire", fmt.Sprintf(`"invocation":%d,"result":"ok"`, g)),
		ev(18, "npu", "retire", fmt.Sprintf(`"invocation":%d,"result":"ok"`, n)),
		ev(19, "host", "wait", `"timeout":1000`),
		ev(20, "host", "join", `"participant":"gpu","result":"retired"`),
		ev(21, "host", "join", `"participant":"npu","result":"retired"`),
		ev(22, "host", "wait.end", `"retired":true`),
		ev(23, "host", "close.begin", `"timeout":1000`),
		ev(24, "host", "release", fmt.Sprintf(`"buffer":%d,"bytes":4096`, pay)),
		ev(25, "host", "release", fmt.Sprintf(`"buffer":%d,"bytes":64`, line)),
		ev(26, "host", "close", `"result":"retired"`),
	}
}

func validateText(t *testing.T, text string) (*Report, error) {
	t.Helper()
	return Validate(Input{Name: "t.jsonl", R: strings.NewReader(text)})
}

func joinLines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func TestCleanSessionValidates(t *testing.T) {
	lines := append([]string{header()}, cleanSession(1, 0)...)
	lines = append(lines, cleanSession(2, 100)...)
	r, err := validateText(t, joinLines(lines...))
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || ExitCode(r, err) != 0 {
		t.Fatalf("a clean trace broke invariants:\n%s", r)
	}
	if r.Sessions != 2 || r.Events != len(lines)-1 {
		t.Errorf("checked %d sessions, %d events; want 2, %d", r.Sessions, r.Events, len(lines)-1)
	}
	if len(r.Checked) != 14 || len(r.Unchecked) != 1 || r.Unchecked[0].Invariant != 15 {
		t.Errorf("checked %v, not checked %v: want all but 15 checked", r.Checked, r.Unchecked)
	}
}

// mutate replaces the line of cleanSession(1, 0) whose text contains old
// (found once) by new lines, or drops it when there are none.
func mutate(t *testing.T, old string, new ...string) string {
	t.Helper()
	lines := cleanSession(1, 0)
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, old) })
	if i < 0 {
		t.Fatalf("no line has %q", old)
	}
	lines = slices.Replace(lines, i, i+1, new...)
	return joinLines(append([]string{header()}, lines...)...)
}

func TestBrokenSessionsNameTheInvariant(t *testing.T) {
	cases := []struct {
		name string
		text string
		want int
	}{
		{"second decision", mutate(t, `"kind":"decide"`, `{"time":10,"actor":"host","session":1,"kind":"decide","decision":"RUN"}`, `{"time":10,"actor":"host","session":1,"kind":"decide","decision":"ABORT"}`), 1},
		{"RUN with one accepted", mutate(t, `"participant":"npu","result":"accepted"`, `{"time":8,"actor":"host","session":1,"kind":"submit","participant":"npu","result":"rejected"}`), 2},
		{"payload after ABORT", mutate(t, `"kind":"observe","invocation":11`, `{"time":13,"actor":"gpu","session":1,"kind":"observe","invocation":11,"decision":"ABORT"}`), 4},
		{"release while running", mutate(t, `"kind":"retire","invocation":12`), 5},
		{"one join", mutate(t, `"participant":"npu","result":"retired"`), 6},
		{"overdue join", mutate(t, `"kind":"wait","timeout"`, `{"time":19,"actor":"host","session":1,"kind":"wait","timeout":1}`), 11},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := validateText(t, c.text)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(r.Violations, func(v Violation) bool { return v.Invariant == c.want })
			if i < 0 {
				t.Fatalf("want invariant %d broken, got:\n%s", c.want, r)
			}
			v := r.Violations[i]
			if v.Line == 0 || v.Event == "" || len(v.Events) == 0 || v.Text == "" || ExitCode(r, err) != 1 {
				t.Errorf("the violation lacks its line, event, session's events or text: %+v", v)
			}
			if !strings.Contains(r.String(), fmt.Sprintf("VIOLATED invariant %d", c.want)) {
				t.Errorf("the report does not say it:\n%s", r)
			}
		})
	}
}

func TestMalformedTracesNameTheLineAndField(t *testing.T) {
	h := header()
	ok := `{"time":1,"actor":"host","session":1,"kind":"open","line":10}`
	cases := []struct {
		name, text string
		line       int
		field      string
	}{
		{"empty", "", 1, ""},
		{"not json", "hello\n", 1, ""},
		{"no header", joinLines(ok), 1, "trace"},
		{"version", joinLines(`{"trace":"residentlua","version":2,"kinds":["open"]}`), 1, "version"},
		{"unknown kind in header", joinLines(`{"trace":"residentlua","version":1,"kinds":["opn"]}`), 1, "kinds"},
		{"time as text", joinLines(h, `{"time":"1","actor":"host","session":1,"kind":"open","line":10}`), 2, "time"},
		{"no time", joinLines(h, `{"actor":"host","session":1,"kind":"open","line":10}`), 2, "time"},
		{"unknown field", joinLines(h, `{"time":1,"actor":"host","session":1,"kind":"open","line":10,"colour":1}`), 2, "colour"},
		{"missing field", joinLines(h, `{"time":1,"actor":"host","session":1,"kind":"open"}`), 2, "line"},
		{"bad word", joinLines(h, ok, `{"time":2,"actor":"host","session":1,"kind":"decide","decision":"GO"}`), 3, "decision"},
		{"bad result", joinLines(h, ok, `{"time":2,"actor":"host","session":1,"kind":"close","result":"fine"}`), 3, "result"},
		{"forged actor", joinLines(h, ok, `{"time":2,"actor":"gpu","session":1,"kind":"decide","decision":"RUN"}`), 3, "actor"},
		{"not open", joinLines(h, `{"time":2,"actor":"host","session":7,"kind":"decide","decision":"RUN"}`), 2, "session"},
		{"duplicated open", joinLines(h, ok, ok), 3, "session"},
		{"time goes back", joinLines(h, ok, `{"time":0,"actor":"host","session":1,"kind":"decide","decision":"RUN"}`), 3, "time"},
		{"undeclared kind", joinLines(`{"trace":"residentlua","version":1,"kinds":["open"]}`, ok, `{"time":2,"actor":"host","session":1,"kind":"decide","decision":"RUN"}`), 3, "kind"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := validateText(t, c.text)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("want a FormatError, got %v", err)
			}
			if fe.Line != c.line || fe.Field != c.field || fe.Expected == "" {
				t.Errorf("got line %d field %q (%v); want line %d field %q", fe.Line, fe.Field, fe, c.line, c.field)
			}
			if ExitCode(r, err) != 2 {
				t.Errorf("exit code %d, want 2", ExitCode(r, err))
			}
		})
	}
}

func TestTruncatedLastLineIsReportedAfterCheckingTheRest(t *testing.T) {
	lines := append([]string{header()}, cleanSession(1, 0)...)
	text := joinLines(lines...) + `{"time":500,"actor":"host","sess`
	r, err := validateText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	if r.Truncated == nil || r.Truncated.Line != len(lines)+1 || r.Events != len(lines)-1 {
		t.Fatalf("truncated %v after %d events; want line %d after %d", r.Truncated, r.Events, len(lines)+1, len(lines)-1)
	}
	if ExitCode(r, err) != 2 || !strings.Contains(r.String(), "TRUNCATED") {
		t.Errorf("exit %d, report:\n%s", ExitCode(r, err), r)
	}
	// A violation before the truncation is still found.
	broken := strings.Replace(text, `"participant":"npu","result":"retired"`, `"participant":"gpu","result":"retired"`, 1)
	if r, _ := validateText(t, broken); len(r.Violations) == 0 || r.Violations[0].Invariant != 6 || ExitCode(r, nil) != 1 {
		t.Errorf("the violation before a truncated line was not reported:\n%s", r)
	}
}

func TestHostOnlyTraceListsDeviceInvariantsAsNotChecked(t *testing.T) {
	var host []string
	for _, k := range Kinds() {
		if kinds[k].by != byDevice {
			host = append(host, k)
		}
	}
	h := fmt.Sprintf(`{"trace":"residentlua","version":1,"clock":"real","kinds":["%s"]}`, strings.Join(host, `","`))
	var lines []string
	for _, l := range cleanSession(1, 0) {
		if strings.Contains(l, `"actor":"host"`) {
			lines = append(lines, l)
		}
	}
	r, err := validateText(t, joinLines(append([]string{h}, lines...)...))
	if err != nil || !r.OK() {
		t.Fatalf("%v\n%s", err, r)
	}
	for _, n := range []int{4, 5, 11, 13, 14, 15} {
		if slices.Contains(r.Checked, n) || !slices.ContainsFunc(r.Unchecked, func(u Unchecked) bool { return u.Invariant == n }) {
			t.Errorf("invariant %d: want not checked, got checked %v", n, r.Checked)
		}
	}
	if !strings.Contains(r.String(), "not checked  4") {
		t.Errorf("the report does not list 4 as not checked:\n%s", r)
	}
}

func TestFilesMergeByTime(t *testing.T) {
	// The host's file and the devices' file of the same run, as two
	// processes would record them: only merged by time do they make sense.
	var host, dev []string
	for _, l := range cleanSession(1, 0) {
		if strings.Contains(l, `"actor":"host"`) {
			host = append(host, l)
		} else {
			dev = append(dev, l)
		}
	}
	r, err := Validate(Input{"host.jsonl", strings.NewReader(joinLines(append([]string{header()}, host...)...))},
		Input{"dev.jsonl", strings.NewReader(joinLines(append([]string{header()}, dev...)...))})
	if err != nil || !r.OK() {
		t.Fatalf("%v\n%s", err, r)
	}
	if r.Events != len(host)+len(dev) {
		t.Errorf("checked %d events, want %d", r.Events, len(host)+len(dev))
	}
	// Interleaved sessions in one file.
	a, b := cleanSession(1, 0), cleanSession(2, 0)
	var mixed []string
	for i := range a {
		mixed = append(mixed, a[i], b[i])
	}
	r, err = validateText(t, joinLines(append([]string{header()}, mixed...)...))
	if err != nil || !r.OK() || r.Sessions != 2 {
		t.Fatalf("interleaved: %v\n%s", err, r)
	}
}

// A trace may name any number of devices, as long as at most 255 are in
// use at once: an idle device's number goes to the next.
func TestManyDevicesOneAfterAnother(t *testing.T) {
	lines := []string{header()}
	for id := uint64(1); id <= 300; id++ {
		lines = append(lines, cleanSessionOn(id, id*100, fmt.Sprint("gpu", id), fmt.Sprint("npu", id))...)
	}
	r, err := validateText(t, joinLines(lines...))
	if err != nil || !r.OK() || r.Sessions != 300 {
		t.Fatalf("%v\n%s", err, r)
	}
	// 128 sessions at once hold 256 devices: one too many.
	lines = []string{header()}
	for id := uint64(1); id <= 128; id++ {
		lines = append(lines, cleanSessionOn(id, id*10, fmt.Sprint("gpu", id), fmt.Sprint("npu", id))[:4]...)
	}
	_, err = validateText(t, joinLines(lines...))
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(fe.Expected, "at most 255 devices in use at once") {
		t.Fatalf("256 devices in use at once: %v", err)
	}
}

// A trace of a header and no session checked nothing: it is not OK, the
// command exits 2, and the report says so instead of listing invariants as
// held.
func TestTraceOfNoSessionChecksNothing(t *testing.T) {
	header := `{"trace":"residentlua","version":1,"clock":"real","kinds":["open","session","decide","close"],"recorder":"test"}` + "\n"
	r, err := Validate(Input{Name: "empty.jsonl", R: strings.NewReader(header)})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || ExitCode(r, err) != 2 || !strings.Contains(r.String(), "nothing checked") || strings.Contains(r.String(), "held") {
		t.Errorf("a trace of no session: OK=%v exit=%d report:\n%s", r.OK(), ExitCode(r, err), r)
	}
}
