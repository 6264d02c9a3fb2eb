package luacampaign

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/residentlua/residentlua/internal/input"
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

// dir is the script's folder, where its programs' files are looked for
// first; "" for standard input.
func (s *script) dir() string {
	if s.path == "-" {
		return ""
	}
	return filepath.Dir(s.path)
}

// readScript reads the trial script at path ("-": standard input).
func readScript(path string) (*script, error) {
	s := &script{path: path, chunk: "@" + path}
	var src []byte
	var err error
	if path == "-" {
		s.chunk = "=stdin"
		src, err = input.ReadAll(os.Stdin, input.LuaSource)
	} else {
		src, err = input.ReadFile(path, input.LuaSource)
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

// errNoTrial is a script without a trial function.
var errNoTrial = errors.New("defines no function trial(t)")
