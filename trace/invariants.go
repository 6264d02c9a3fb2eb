package trace

// needs is, for each invariant of the oracle, the kinds a recorder must see
// for the invariant to be judged from its trace: a trace without one of
// them could break the invariant where its recorder cannot see. Invariant
// 11 also needs exact times (see timed), and 15 is never judged from a
// trace.
var needs = [...][]string{
	1:  {"open", "decide"},
	2:  {"open", "submit", "decide"},
	3:  {"open", "submit", "submit.return", "decide"},
	4:  {"open", "dispatch", "observe", "touch"},
	5:  {"open", "dispatch", "retire", "reset", "release"},
	6:  {"open", "wait", "join", "wait.end"},
	7:  {"open", "decide", "check", "fault"},
	8:  {"open", "alloc", "release", "quarantine", "quarantine.end", "close"},
	9:  {"open", "publish", "poison", "wait", "join", "wait.end", "close"},
	10: {"open", "decide", "close.begin", "close", "wait", "join", "wait.end", "quarantine", "poison"},
	11: {"open", "wait", "join", "wait.end"},
	12: {"open", "decide", "wait.undecided", "close.begin", "quarantine", "wait", "wait.end"},
	13: {"open", "session", "dispatch", "quarantine", "quarantine.end", "reset", "release"},
	14: {"dispatch", "retire", "reset"},
	15: nil,
}

// Invariants is how many invariants the oracle has, numbered from 1.
const Invariants = len(needs) - 1

// Unchecked is an invariant a trace cannot judge, and why.
type Unchecked struct {
	Invariant int
	Why       string
}

// coverage splits the invariants into those the traces' headers let the
// validator judge and those they do not, saying why for each of these.
// kinds is every kind the headers declare; timed says the times of joins
// are exact or their deadlines are recorded.
func coverage(kinds map[string]bool, timed bool) (checked []int, unchecked []Unchecked) {
	for n := 1; n <= Invariants; n++ {
		var missing []string
		for _, k := range needs[n] {
			if !kinds[k] {
				missing = append(missing, k)
			}
		}
		switch {
		case n == 15:
			unchecked = append(unchecked, Unchecked{n, "it needs how long the programs take at most, which a trace does not say"})
		case len(missing) > 0:
			unchecked = append(unchecked, Unchecked{n, "the recorder does not see " + quoteAll(missing)})
		case n == 11 && !timed:
			unchecked = append(unchecked, Unchecked{n, `the clock is real and the joins carry no deadline (header "deadlines": true)`})
		default:
			checked = append(checked, n)
		}
	}
	return checked, unchecked
}
