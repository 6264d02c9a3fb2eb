package oracle

import "slices"

// verdicts are the violations the oracle's checkers found, in order, and
// the sequence number of the event being checked, which each one records.
type verdicts struct {
	list []Violation
	seen uint64
}

func (v *verdicts) violate(inv int, session uint64, msg string) Violation {
	found := Violation{Invariant: inv, Session: session, Message: msg, at: v.seen}
	v.list = append(v.list, found)
	return found
}

// records keeps a checker's record of type T for each open key (a session,
// an invocation, a quarantine), in slices indexed by key: a record
// forgotten leaves its storage, its lists' room included, to the next one.
// Its owner, the checker, resets a record it adds.
type records[T any] struct {
	keys []uint64
	recs []*T
	n    int            // the first n are open
	at   map[uint64]int // where each open key is
	last int            // where the key found last was: checked against keys before use
}

// get is the record of key, or nil.
func (r *records[T]) get(key uint64) *T {
	if r.last < r.n && r.keys[r.last] == key {
		return r.recs[r.last] // a session's events come in runs: most ask for the key asked last
	}
	if i, ok := r.at[key]; ok {
		r.last = i
		return r.recs[i]
	}
	return nil
}

// add opens a record for key, which is not open, and returns it as the
// last record of its storage left it.
func (r *records[T]) add(key uint64) *T {
	if r.n == len(r.recs) {
		r.keys, r.recs = append(r.keys, 0), append(r.recs, new(T))
	}
	if r.at == nil {
		r.at = map[uint64]int{}
	}
	r.keys[r.n], r.at[key] = key, r.n
	r.n++
	return r.recs[r.n-1]
}

// of is the record of key, opened and readied by fresh when key has none.
func (r *records[T]) of(key uint64, fresh func(*T)) *T {
	rec := r.get(key)
	if rec == nil {
		rec = r.add(key)
		fresh(rec)
	}
	return rec
}

// remove closes key's record, if open.
func (r *records[T]) remove(key uint64) {
	i, ok := r.at[key]
	if !ok {
		return
	}
	last := r.n - 1
	r.keys[i], r.keys[last] = r.keys[last], r.keys[i]
	r.recs[i], r.recs[last] = r.recs[last], r.recs[i]
	r.at[r.keys[i]] = i
	delete(r.at, key)
	r.n--
}

// lowest is the lowest open key whose record matches, and its record;
// nil when none does.
func (r *records[T]) lowest(match func(*T) bool) (uint64, *T) {
	var key uint64
	var found *T
	for i := range r.n {
		if (found == nil || r.keys[i] < key) && match(r.recs[i]) {
			key, found = r.keys[i], r.recs[i]
		}
	}
	return key, found
}

// clear closes every record.
func (r *records[T]) clear() {
	r.n = 0
	clear(r.at)
}

// len is how many records are open.
func (r *records[T]) len() int { return r.n }

// sorted lists the open keys in order, so that what is made from them (a
// hash, a message naming the lowest) does not depend on the order they
// were opened in.
func (r *records[T]) sorted() []uint64 {
	keys := slices.Clone(r.keys[:r.n])
	slices.Sort(keys)
	return keys
}
