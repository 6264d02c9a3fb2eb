// Package input reads a command's inputs (scripts, programs, kernels,
// summaries) with a limit on their size, so that an endless input such as
// /dev/zero, or a file far larger than any of its kind, ends in an error
// that says the limit rather than in running out of memory.
package input

import (
	"fmt"
	"io"
	"os"
)

// Kind is a kind of input and the most bytes one may hold.
type Kind struct {
	What  string // what the input is, for a message: "a Lua source"
	Limit int64  // the most bytes
	Hint  string // what to do about a larger one
}

// The kinds of input and their limits.
var (
	// LuaSource is a script, a program or a chunk read from standard input.
	LuaSource = Kind{"a Lua source", 4 << 20, "keep large data out of the source: read it from a file with io.open"}
	// PTX is a kernel's PTX module.
	PTX = Kind{"a PTX module", 16 << 20, "split the kernels into several modules"}
	// Summary is a campaign's JSON summary.
	Summary = Kind{"a campaign summary", 64 << 20, "give the summaries a campaign wrote; they are far smaller"}
)

// TooLargeError is an input longer than its kind's limit.
type TooLargeError struct {
	Kind Kind
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("it is larger than %s, the limit on %s (%s)", size(e.Kind.Limit), e.Kind.What, e.Kind.Hint)
}

// size says n bytes in MiB where it is a whole number of them.
func size(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadAll reads r to its end, or returns a *TooLargeError once it has read
// more than k.Limit bytes.
func ReadAll(r io.Reader, k Kind) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, k.Limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > k.Limit {
		return nil, &TooLargeError{Kind: k}
	}
	return b, nil
}

// ReadFile reads the file at path as os.ReadFile does (an error opening it
// is an *os.PathError), or returns a *TooLargeError once it has read more
// than k.Limit bytes.
func ReadFile(path string, k Kind) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadAll(f, k)
	if err != nil {
		if _, ok := err.(*TooLargeError); !ok {
			err = &os.PathError{Op: "read", Path: path, Err: err}
		}
	}
	return b, err
}
