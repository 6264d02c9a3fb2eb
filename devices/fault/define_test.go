package fault

import (
	"strconv"
	"strings"
	"testing"
)

// Sites of the tests' own, defined as a program defines its sites: one
// that allows skip alone, one that allows flip alone.
var (
	testDrain   = mustDefine("test.drain", Skip)
	testCorrupt = mustDefine("test.corrupt", Flip)
)

func mustDefine(name string, actions ...Action) Site {
	s, err := DefineSite(name, actions...)
	if err != nil {
		panic(err)
	}
	return s
}

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
		{"gpu.run", "a site of the runtime"},
		{"Stream.Drop", "lower-case words joined by dots"},
		{"drop", "lower-case words joined by dots"},
		{strings.Repeat("a", 30) + "." + strings.Repeat("b", 20), "at most 40 bytes"},
	} {
		if _, err := DefineSite(bad.name); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("DefineSite(%q) = %v, want an error saying %q", bad.name, err, bad.want)
		}
	}
}

// A site allows the actions it was defined with, Off besides; defining it
// again keeps them.
func TestADefinedSiteAllowsItsActions(t *testing.T) {
	if _, err := Parse(testDrain, "flip"); err == nil || !strings.Contains(err.Error(), "flip is not allowed at test.drain; test.drain allows skip, off") {
		t.Errorf("Parse(test.drain, flip) = %v, want flip refused", err)
	}
	if again, err := DefineSite("test.drain"); err != nil || again != testDrain || len(again.Actions()) != 1 {
		t.Errorf("defining test.drain again gave %v (actions %v), %v", again, again.Actions(), err)
	}
	if _, err := DefineSite("test.none", None); err == nil {
		t.Error("a site defined to allow None was accepted")
	}
}

// There is no limit on how many sites programs define, and a plane arms
// and hits any of them.
func TestSitesHaveNoLimit(t *testing.T) {
	var last Site
	for i := range 300 {
		s, err := DefineSite("test.many_" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		last = s
	}
	if last < 300 {
		t.Fatalf("the 300th site defined is %d", last)
	}
	p := NewPlane(1)
	if err := p.Set(last, "1*crash(x)"); err != nil {
		t.Fatal(err)
	}
	if f := p.Hit(last); f.Action != Crash {
		t.Errorf("the site fired %v, want crash", f.Action)
	}
	if f := p.Hit(last - 1); f.Action != None {
		t.Errorf("an unarmed site fired %v", f.Action)
	}
	if got := p.Settings(); len(got) != 1 || got[0].Site != last {
		t.Errorf("Settings() = %v", got)
	}
	p.Clear()
	if f := p.Hit(last); f.Action != None {
		t.Errorf("a cleared site fired %v", f.Action)
	}
}
