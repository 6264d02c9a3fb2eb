package campaign

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// script is a trial script, read once for every worker of a run (so that a
// script read from a pipe is given whole to each) with the digests its
// summary records.
type script struct {
	path   string // as given; "-" for standard input
	chunk  string // the chunk's name: "@path", or "=stdin"
	source []byte // what is compiled: the bytes read, less a first line starting with "#"
	digest string // the SHA-256 of the bytes read, in hex
}

// readScript reads the trial script at path ("-": standard input).
func readScript(path string) (*script, error) {
	s := &script{path: path, chunk: "@" + path}
	var src []byte
	var err error
	if path == "-" {
		s.chunk = "=stdin"
		src, err = io.ReadAll(os.Stdin)
	} else {
		src, err = os.ReadFile(path)
	}
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read the trial script %s: %v", s.name(), err)
	}
	s.digest = digest(src)
	// Skip a first line that starts with '#' (a "#!" line) as lua.c does,
	// keeping its newline so that line numbers stay right.
	if bytes.HasPrefix(src, []byte("#")) {
		if i := bytes.IndexAny(src, "\n\r"); i >= 0 {
			src = src[i:]
		} else {
			src = nil
		}
	}
	s.source = src
	return s, nil
}

// name is the script's name in messages.
func (s *script) name() string {
	if s.path == "-" {
		return "stdin"
	}
	return s.path
}

// digest is the SHA-256 of b, in hex.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// DefaultMaxMeasurements is Config.MaxMeasurements when it is 0: how many
// distinct measurement names a run records. Each costs its histograms'
// memory on every worker (docs/campaigns.md measures it), so a script that
// records a new name per trial would exhaust the machine.
const DefaultMaxMeasurements = 1000

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
