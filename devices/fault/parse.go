package fault

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Term is one parsed term of a chain.
type Term struct {
	Percent float64       // probability in percent, (0,100]; 100 when not written
	Count   int           // how many times it may fire; 0 = unlimited
	Action  Action        // what it does when it fires
	Message string        // for Error and Crash (default filled in by Parse)
	Delay   time.Duration // for Delay
}

// Chain is a parsed term list; at each hit its terms are tried in order.
type Chain []Term

// Parse parses a chain of terms `[p%][N*]action[(arg)]` joined by `->` and
// checks that every action is allowed at site.
func Parse(site Site, text string) (Chain, error) {
	if !site.Defined() {
		_, err := ParseSite(site.String())
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("empty fault chain at %v: want terms [p%%][N*]action[(arg)] joined by ->; %v allows %s",
			site, site, site.allowed())
	}
	chain := make(Chain, 0, countTerms(text)) // a trial arms chains: one allocation each
	for i, rest, more := 0, text, true; more; i++ {
		var raw string
		raw, rest, more = cutTerm(rest)
		term := strings.TrimSpace(raw)
		if term == "" {
			return nil, fmt.Errorf("fault chain %q at %v: term %d is empty; want terms [p%%][N*]action[(arg)] joined by ->",
				text, site, i+1)
		}
		t, err := parseTerm(site, term)
		if err != nil {
			return nil, err
		}
		chain = append(chain, t)
	}
	return chain, nil
}

// cutTerm cuts text at its first "->" that is not inside an argument, so a
// message may contain "->": it returns the term before it and the text
// after it, or the whole text and more false when there is none.
func cutTerm(text string) (term, rest string, more bool) {
	inArg := false
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '(' && !inArg:
			inArg = true
		case text[i] == ')' && inArg:
			inArg = false
		case !inArg && strings.HasPrefix(text[i:], "->"):
			return text[:i], text[i+2:], true
		}
	}
	return text, "", false
}

// countTerms is how many terms cutTerm cuts text into.
func countTerms(text string) int {
	n := 1
	for _, rest, more := cutTerm(text); more; _, rest, more = cutTerm(rest) {
		n++
	}
	return n
}

func parseTerm(site Site, term string) (Term, error) {
	fail := func(format string, args ...any) (Term, error) {
		return Term{}, fmt.Errorf("fault term %q: "+format, append([]any{term}, args...)...)
	}
	failAt := func(format string, args ...any) (Term, error) {
		return Term{}, fmt.Errorf("fault term %q at %v: "+format, append([]any{term, site}, args...)...)
	}

	t := Term{Percent: 100}
	head, arg, hasArg := term, "", false
	if i := strings.IndexByte(term, '('); i >= 0 {
		if !strings.HasSuffix(term, ")") {
			return fail(`want ")" at the end of the argument, like error(busy)`)
		}
		head, arg, hasArg = term[:i], term[i+1:len(term)-1], true
		if strings.Contains(arg, ")") {
			return fail(`argument %q contains ")"; an argument may contain anything but ")"`, arg)
		}
	}
	if i := strings.LastIndexByte(head, '%'); i >= 0 {
		p, err := strconv.ParseFloat(strings.TrimSpace(head[:i]), 64)
		if err != nil {
			return fail("bad probability %q: want a number of percent from 0 to 100 like 25%%", head[:i+1])
		}
		if !(p > 0 && p <= 100) {
			return fail("probability %q out of range: must be greater than 0 and at most 100", head[:i+1])
		}
		t.Percent, head = p, head[i+1:]
	}
	if i := strings.LastIndexByte(head, '*'); i >= 0 {
		n, err := strconv.Atoi(strings.TrimSpace(head[:i]))
		if err != nil {
			return fail("bad count %q: want a whole number of hits like 3*", head[:i+1])
		}
		if n < 1 {
			return fail("count %q must be at least 1", head[:i+1])
		}
		t.Count, head = n, head[i+1:]
	}

	name := strings.TrimSpace(head)
	t.Action = actionByName(name)
	switch {
	case name == "":
		return failAt("missing action; %v allows %s", site, site.allowed())
	case t.Action == None:
		return failAt("unknown action %q; %v allows %s", name, site, site.allowed())
	case !site.allows(t.Action):
		return failAt("%v is not allowed at %v; %v allows %s", t.Action, site, site, site.allowed())
	}

	switch t.Action {
	case Error, Crash:
		t.Message = arg
		if arg == "" {
			t.Message = defaultMessage(t.Action, site)
		}
	case Delay:
		if !hasArg {
			return failAt("delay needs a duration argument like delay(10us)")
		}
		d, err := time.ParseDuration(strings.TrimSpace(arg))
		if err != nil {
			return fail("bad duration %q: want a Go duration like 10us or 2ms", arg)
		}
		if d <= 0 {
			return fail("duration %q must be positive; want a Go duration like 10us or 2ms", arg)
		}
		t.Delay = d
	default:
		if hasArg {
			return failAt("%v takes no argument", t.Action)
		}
	}
	return t, nil
}

// String returns the chain's canonical text, which Parse accepts and turns
// back into an equal chain. Messages are always written out.
func (c Chain) String() string { return c.format(noSite) }

// format writes the chain's canonical text; where site is valid, messages that
// are the default at site are left out.
func (c Chain) format(site Site) string {
	var b strings.Builder
	for i, t := range c {
		if i > 0 {
			b.WriteString("->")
		}
		if t.Percent != 100 {
			b.WriteString(strconv.FormatFloat(t.Percent, 'g', -1, 64) + "%")
		}
		if t.Count != 0 {
			b.WriteString(strconv.Itoa(t.Count) + "*")
		}
		b.WriteString(t.Action.String())
		switch t.Action {
		case Error, Crash:
			if site == noSite || t.Message != defaultMessage(t.Action, site) {
				b.WriteString("(" + t.Message + ")")
			}
		case Delay:
			b.WriteString("(" + t.Delay.String() + ")")
		}
	}
	return b.String()
}
