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
type linerReader struct {
	state       *liner.State
	origMode    liner.ModeApplier // the terminal as the command found it
	linerMode   liner.ModeApplier // the terminal as liner set it
	historyFile string
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
		if f, err := os.Open(r.historyFile); err == nil {
			r.state.ReadHistory(f)
			f.Close()
		}
	}
	return r
}

// prompt reads a line with liner.
func (r *linerReader) prompt(p string) (string, error) { return r.state.Prompt(p) }

// remember adds line to the history and saves the history file at once, so
// that it survives however the run ends.
func (r *linerReader) remember(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	r.state.AppendHistory(line)
	r.save()
}

// save writes the history file; a file that cannot be written is skipped
// quietly (the REPL works without history).
func (r *linerReader) save() {
	if r.historyFile == "" {
		return
	}
	f, err := os.Create(r.historyFile)
	if err != nil {
		return
	}
	r.state.WriteHistory(f)
	f.Close()
}

// running puts the terminal back as the command found it while a chunk
// runs, and returns what switches it to liner's mode again.
func (r *linerReader) running() func() {
	if r.origMode != nil {
		r.origMode.ApplyMode()
	}
	return func() {
		if r.linerMode != nil {
			r.linerMode.ApplyMode()
		}
	}
}

// close saves the history and restores the terminal.
func (r *linerReader) close() {
	r.save()
	r.state.Close()
}

// plainReader reads lines from standard input without editing, for -i
// when standard input is not a terminal. It reads a byte at a time so that
// nothing past the line is taken from a chunk's io.read.
type plainReader struct{ in io.Reader }

// prompt prints p on standard output and reads up to a newline.
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

func (r *plainReader) remember(string) {}
func (r *plainReader) running() func() { return func() {} }
func (r *plainReader) close()          {}
