package fault

import (
	"strings"
	"testing"
)

func TestDefineSite(t *testing.T) {
	s, err := DefineSite("test.define_site")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := DefineSite("test.define_site"); err != nil || again != s {
		t.Errorf("defining it again gave %v, %v; want the same site", again, err)
	}
	if got, err := ParseSite("test.define_site"); err != nil || got != s || s.String() != "test.define_site" || s.Generic() {
		t.Errorf("ParseSite = %v, %v; String %q, Generic %v", got, err, s.String(), s.Generic())
	}
	if _, err := Parse(s, "50%1*crash(x)->delay(1us)->skip->flip"); err != nil {
		t.Errorf("a defined site allows every action: %v", err)
	}
	p := NewPlane(1)
	if err := p.Set(s, "1*skip"); err != nil {
		t.Fatal(err)
	}
	if f := p.Hit(s); f.Action != Skip {
		t.Errorf("the first hit fired %v, want skip", f.Action)
	}
	for _, bad := range []struct{ name, want string }{
		{"gpu.run", "built-in fault site"},
		{"Stream.Drop", "lower-case words joined by dots"},
		{"drop", "lower-case words joined by dots"},
		{strings.Repeat("a", 30) + "." + strings.Repeat("b", 20), "at most 40 bytes"},
	} {
		if _, err := DefineSite(bad.name); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("DefineSite(%q) = %v, want an error saying %q", bad.name, err, bad.want)
		}
	}
}
