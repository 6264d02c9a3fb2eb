package campaign

import (
	"errors"
	"fmt"
	"sync"
)

// nameSet is the measurement names of a run, shared by its workers (each
// asks only about a name new to it), up to max of them.
type nameSet struct {
	mu    sync.Mutex
	max   int
	names map[string]bool
	full  func(error) // called once, when a name beyond the limit comes
	err   error       // why the first name beyond the limit was refused
}

func newNameSet(max int, full func(error)) *nameSet {
	return &nameSet{max: max, names: map[string]bool{}, full: full}
}

// admit adds name, or says why it cannot be recorded.
func (s *nameSet) admit(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.names[name] {
		return nil
	}
	if len(s.names) < s.max {
		s.names[name] = true
		return nil
	}
	err := fmt.Errorf("t.record: a campaign records at most %d measurement names, and %q would be one more; record under a few fixed names, with what varies in the value or the trial's outcome", s.max, name)
	if s.err == nil {
		s.err = err
		if s.full != nil {
			s.full(err)
		}
	}
	return err
}

// overflow is the error of the first name beyond the limit, or nil.
func (s *nameSet) overflow() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// workerNames is a worker's view of the run's measurement names: those it
// has admitted, which it records without asking the run again.
type workerNames struct {
	set   *nameSet
	known map[string]bool
}

// admit checks name and adds it to the run's names, or says why it cannot
// be recorded. Outside a run (w nil) it checks the name alone.
func (w *workerNames) admit(name string) error {
	if w != nil && w.known[name] {
		return nil
	}
	if name == "" {
		return errors.New("a measurement needs a name; give one of a few words, such as \"latency\"")
	}
	if err := CheckName("measurement name", name); err != nil {
		return err
	}
	if w == nil {
		return nil
	}
	if err := w.set.admit(name); err != nil {
		return err
	}
	w.known[name] = true
	return nil
}
