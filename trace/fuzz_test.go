package trace

import (
	"errors"
	"strings"
	"testing"
)

// FuzzValidate feeds the validator any text: it returns a report or an
// error naming a line, and never panics.
func FuzzValidate(f *testing.F) {
	h := header()
	clean := cleanSession(1, 0)
	f.Add(joinLines(append([]string{h}, clean...)...))
	f.Add(joinLines(append([]string{h}, cleanSession(2, 5)...)...))
	f.Add(joinLines(append([]string{h}, clean[:10]...)...) + clean[10][:20])
	for _, l := range clean {
		f.Add(h + "\n" + l + "\n")
	}
	f.Add(`{"trace":"residentlua","version":1,"kinds":["open","decide","close"]}` + "\n" + `{"time":1,"actor":"host","session":1,"kind":"open","line":1}` + "\n" + `{"time":1,"actor":"host","session":1,"kind":"decide","decision":7}`)
	f.Add(h + "\n" + `{"time":1,"actor":"host","session":1,"kind":"quarantine","bytes":1,"devices":["gpu","npu9"],"buffers":[1,2]}` + "\n")
	f.Add(h + "\n" + `{"time":1,"actor":"gpu","kind":"reset","result":"ok"}` + "\n" + `{"time":0,"actor":"gpu","kind":"reset","result":"ok"}` + "\n")
	f.Add("")
	f.Add("{}\n")
	f.Add(h + "\n[1,2]\n")
	f.Fuzz(func(t *testing.T, text string) {
		r, err := Validate(Input{"fuzz", strings.NewReader(text)})
		var fe *FormatError
		switch {
		case err != nil && !errors.As(err, &fe):
			t.Fatalf("an error that names no line: %v", err)
		case err != nil && (fe.Line < 1 || fe.Expected == ""):
			t.Fatalf("an error without its line or what was expected: %+v", fe)
		case err == nil && r == nil:
			t.Fatal("no report and no error")
		case err == nil:
			_ = r.String()
			for _, v := range r.Violations {
				if v.Invariant < 1 || v.Invariant > Invariants || v.Text == "" {
					t.Fatalf("a violation of no invariant: %+v", v)
				}
			}
		}
		if code := ExitCode(r, err); code < 0 || code > 2 {
			t.Fatalf("exit code %d", code)
		}
	})
}
