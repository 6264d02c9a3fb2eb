package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterh/liner"
	"golang.org/x/sys/unix"

	"github.com/residentlua/residentlua/internal/input"
)

// errAborted is a prompt left with Ctrl-C: the line is dropped.
var errAborted = liner.ErrPromptAborted

// lineReader is where the REPL's lines come from.
type lineReader interface {
	// prompt shows p and reads one line: io.EOF at the end of input
	// (Ctrl-D), errAborted when Ctrl-C cleared the line.
	prompt(p string) (string, error)
	// remember adds a line to the history.
	remember(line string)
	// running is called before a chunk runs and its result after it ends:
	// the terminal is in its normal mode while Lua code runs.
	running() (done func())
	// close restores the terminal and saves the history.
	close()
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// historyPath is $RESIDENTLUA_HISTORY, or ~/.residentlua_history, or empty
// when there is no home directory.
func historyPath() string {
	if p := os.Getenv("RESIDENTLUA_HISTORY"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".residentlua_history")
}

// linerReader reads lines with peterh/liner: editing, history, Tab
// completion. It switches the terminal back to its original mode while a
// chunk runs (so io.read echoes and Ctrl-C raises SIGINT) and to liner's
// mode for the next prompt.
//
// The history file is shared: each entry is appended to it as it is
// entered (never the whole file rewritten), so two REPLs at once keep both
// their entries, and the next REPL starts with them merged in the order
// they were entered.
type linerReader struct {
	state       *liner.State
	origMode    liner.ModeApplier // the terminal as the command found it
	linerMode   liner.ModeApplier // the terminal as liner set it
	historyFile string
	warned      bool   // the history could not be saved, and the REPL said so
	warning     string // what to say, once the terminal is back in its mode
}

// newLinerReader takes over the terminal, loads the history and installs
// the completer.
func newLinerReader(complete liner.WordCompleter) *linerReader {
	r := &linerReader{historyFile: historyPath()}
	r.origMode, _ = liner.TerminalMode()
	r.state = liner.NewLiner()
	r.linerMode, _ = liner.TerminalMode()
	r.state.SetCtrlCAborts(true)
	r.state.SetTabCompletionStyle(liner.TabPrints)
	r.state.SetWordCompleter(complete)
	if r.historyFile != "" {
		if err := trimHistory(r.historyFile); err != nil && !os.IsNotExist(err) {
			r.cannotSave(err)
		}
		if f, err := os.Open(r.historyFile); err == nil {
			r.state.ReadHistory(f)
			f.Close()
		}
	}
	return r
}

// prompt reads a line with liner, after saying what is to be said.
func (r *linerReader) prompt(p string) (string, error) {
	r.say()
	return r.state.Prompt(p)
}

// remember adds an entry to the history and appends it to the history
// file at once, so that it survives however the run ends.
func (r *linerReader) remember(entry string) {
	if strings.TrimSpace(entry) == "" {
		return
	}
	r.state.AppendHistory(entry)
	if r.historyFile == "" {
		return
	}
	if err := appendHistory(r.historyFile, entry); err != nil {
		r.cannotSave(err)
	}
}

// cannotSave notes, the first time, that the history cannot be saved.
func (r *linerReader) cannotSave(err error) {
	if r.warned {
		return
	}
	r.warned = true
	r.warning = fmt.Sprintf("%s: cannot save the history in %s (%v); this session's lines are kept until it ends (set RESIDENTLUA_HISTORY to save them elsewhere)", progName, r.historyFile, err)
}

// say writes the pending warning on standard error.
func (r *linerReader) say() {
	if r.warning != "" {
		fmt.Fprintln(os.Stderr, r.warning)
		r.warning = ""
	}
}

// running puts the terminal back as the command found it while a chunk
// runs, and returns what switches it to liner's mode again.
func (r *linerReader) running() func() {
	if r.origMode != nil {
		r.origMode.ApplyMode()
	}
	r.say()
	return func() {
		if r.linerMode != nil {
			r.linerMode.ApplyMode()
		}
	}
}

// close restores the terminal.
func (r *linerReader) close() {
	r.state.Close()
	r.say()
}

// historyKeep is how many entries a trimmed history file keeps: liner's
// own limit, all that a REPL reads of it.
const historyKeep = liner.HistoryLimit

// appendHistory appends one entry, a line, to the history file, under an
// exclusive lock so that it never lands in the middle of a trim.
func appendHistory(path, entry string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return err
	}
	_, err = f.WriteString(entry + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// trimHistory cuts the history file to its last historyKeep entries once
// it holds twice that many, in place and under the lock, so that an entry
// another REPL appends meanwhile is kept.
func trimHistory(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) <= 2*historyKeep {
		return nil
	}
	kept := strings.Join(lines[len(lines)-historyKeep:], "")
	if _, err := f.WriteAt([]byte(kept), 0); err != nil {
		return err
	}
	return f.Truncate(int64(len(kept)))
}

// plainReader reads lines from standard input without editing, for -i
// when standard input is not a terminal. It reads a byte at a time so that
// nothing past the line is taken from a chunk's io.read.
type plainReader struct{ in io.Reader }

// prompt prints p on standard output and reads up to a newline. A line
// longer than a Lua source may be (an endless input such as /dev/zero) is
// an error that says the limit.
func (r *plainReader) prompt(p string) (string, error) {
	fmt.Print(p)
	var line []byte
	b := make([]byte, 1)
	for {
		n, err := r.in.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				return strings.TrimSuffix(string(line), "\r"), nil
			}
			if int64(len(line)) >= input.LuaSource.Limit {
				return "", chunkTooLarge()
			}
			line = append(line, b[0])
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return string(line), nil
			}
			return "", err
		}
	}
}

// chunkTooLarge is the error of a chunk the REPL reads that is larger than
// a Lua source may be.
func chunkTooLarge() error {
	return fmt.Errorf("%s: cannot read a chunk from stdin: %w", progName, &input.TooLargeError{Kind: input.LuaSource})
}

func (r *plainReader) remember(string) {}
func (r *plainReader) running() func() { return func() {} }
func (r *plainReader) close()          {}
