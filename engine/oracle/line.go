package oracle

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/program"
)

// ParseEvent reads the fields of an event line (FormatEvent): time, actor, session, kind, then
// A, B and the detail, each optional.
func ParseEvent(f []string) (event.Event, error) {
	var e event.Event
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
		e.Actor = event.Actor(n)
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

// FormatEvent writes e as an event line: "<time> <actor> <session> <kind>
// <A> <B> <detail>", a duration, "host" or "d<n>" (the device actor n),
// "s<n>" or "-" (no session), the kind's name, two numbers and the detail,
// blanks at the end trimmed. It is how the tests of the oracle and of the
// session write events as text a reader follows without Go; ParseEvent
// reads it back.
func FormatEvent(e event.Event) string {
	actor, session := "host", "-"
	if e.Actor != event.HostActor {
		actor = "d" + strconv.Itoa(int(e.Actor))
	}
	if e.Session != 0 {
		session = "s" + strconv.FormatUint(e.Session, 10)
	}
	line := fmt.Sprintf("%v %s %s %s %d %d %s", e.Time, actor, session, e.Kind, e.A, e.B, e.Detail)
	return strings.TrimRight(line, " ")
}
