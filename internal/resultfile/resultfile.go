// Package resultfile writes the files a command's options name for its
// results, and checks them before the command runs.
//
// Result files are the files a command writes for its options
// (residentlua's --trace, --stats, --out, --summary, --plot, residentbench's
// -json and profiles). They are checked before anything runs, so that an
// hour's run does not end unable to write, or writing over the script it
// ran:
//
//   - a file name, not something that looks like an option, and not a
//     directory;
//   - never the same file as an input (the script, a summary to merge),
//     another result file, or a file a --plot may draw (c.svg draws c.svg
//     or c_NAME.svg);
//   - an existing file must look like the kind the option writes (JSON for
//     --stats, a picture for --plot, a profile for -cpuprofile, never a
//     .lua file), unless the command is told to force it.
//
// A regular file (or a new one) is written to a temporary file beside it,
// renamed over it once complete, so that it is always the previous file or
// the whole new one. A symlink is written through: its target is replaced,
// and the link stays. A device, a FIFO or an inherited descriptor
// (/dev/stdout, /dev/stderr, /dev/fd/N) is written in place; standard
// input and a descriptor open only for reading are refused.
package resultfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Kind is what a result file holds, for refusing to replace a file
// of another kind.
type Kind int

// The kinds of result file.
const (
	JSONObject Kind = iota + 1 // a JSON object: --summary, --trace
	JSONArray                  // a JSON array: --stats, -json
	JSONLines                  // JSON lines: --out
	Picture                    // SVG or PNG, by the extension: --plot
	Profile                    // a gzipped pprof profile: -cpuprofile, -memprofile
)

// describe names the kind for a message.
func (k Kind) describe() string {
	return map[Kind]string{JSONObject: "JSON", JSONArray: "a JSON array", JSONLines: "JSON lines", Picture: "a picture", Profile: "a pprof profile"}[k]
}

// File is a result file an option names ("" when the option is not
// given) and what it holds.
type File struct {
	Option, Path string
	Kind         Kind
}

// Checks is what a command's result files are checked against.
type Checks struct {
	Outputs []File
	Inputs  []string // the files the command reads
	Force   bool     // replace an existing file of another kind
	// ForceOption is the option that sets Force, which a refusal to
	// replace a file names ("--force").
	ForceOption string
}

// Check checks every result file, as the package's comment says. A file
// the command line must not name is a *Refusal.
func (c Checks) Check() error {
	type named struct {
		what string // "--out" or "the script"
		dest destination
	}
	var all []named
	for _, in := range c.Inputs {
		if in != "" && in != "-" {
			all = append(all, named{"the input " + in, resolve(in)})
		}
	}
	for _, f := range c.Outputs {
		if f.Path == "" {
			continue
		}
		d, err := checkOutputPath(f)
		if err != nil {
			return err
		}
		for _, o := range all {
			if same(o.dest, d) {
				return &Refusal{fmt.Sprintf("%s %s is the same file as %s: give %s a file of its own", f.Option, f.Path, o.what, f.Option)}
			}
		}
		if err := d.checkKind(f, c); err != nil {
			return err
		}
		all = append(all, named{f.Option, d})
	}
	for _, f := range c.Outputs {
		if f.Path == "" || f.Kind != Picture {
			continue
		}
		d := resolve(f.Path)
		for _, o := range all {
			if o.what != f.Option && d.mayDraw(o.dest) {
				return &Refusal{fmt.Sprintf("%s %s may draw %s (a picture per measurement is named %s), which is %s: give them other names", f.Option, f.Path, o.dest.path, d.derived("NAME"), o.what)}
			}
		}
	}
	return nil
}

// Refusal is a result file the command line must not name: its message
// says why and what to give instead.
type Refusal struct{ msg string }

// Error is the refusal's message.
func (r *Refusal) Error() string { return r.msg }

// destination is where a result file's bytes go.
type destination struct {
	path   string      // as given
	target string      // path with every symlink followed; path itself for a descriptor
	info   os.FileInfo // the target's, nil when it does not exist
	fd     int         // for /dev/stdout, /dev/stderr, /dev/fd/N: the descriptor; -1 otherwise
}

// inPlace reports whether the destination is written in place rather
// than through a temporary file: a descriptor, a device, a FIFO or a socket.
func (d destination) inPlace() bool {
	return d.fd >= 0 || d.info != nil && !d.info.Mode().IsRegular() && !d.info.IsDir()
}

// maxLinks bounds the symlinks followed, as the kernel's ELOOP does.
const maxLinks = 40

// resolve finds where path's bytes go: an inherited descriptor, or the
// file its symlinks lead to (which may not exist yet).
func resolve(path string) destination {
	d := destination{path: path, target: path, fd: -1}
	if fd, ok := descriptor(path); ok {
		d.fd = fd
		return d
	}
	for range maxLinks {
		fi, err := os.Lstat(d.target)
		if err != nil {
			return d
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			d.info = fi
			return d
		}
		link, err := os.Readlink(d.target)
		if err != nil {
			return d
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(d.target), link)
		}
		if fd, ok := descriptor(link); ok {
			d.fd = fd
			return d
		}
		d.target = link
	}
	return d
}

// descriptor reports whether path names an open descriptor of this
// process, and which: /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N,
// /proc/self/fd/N.
// Such a path is the descriptor itself, not the file it was opened on
// (opened again, a redirection's file would be written from its start).
func descriptor(path string) (int, bool) {
	switch path {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, err := strconv.Atoi(strings.TrimPrefix(path, dir)); strings.HasPrefix(path, dir) && err == nil && n >= 0 {
			return n, true
		}
	}
	return 0, false
}

// same reports whether a and b are the same file: the same descriptor, the
// same existing file (hard links too), or the same new file.
func same(a, b destination) bool {
	switch {
	case a.fd >= 0 || b.fd >= 0:
		return a.fd == b.fd
	case a.info != nil && b.info != nil:
		return os.SameFile(a.info, b.info) && a.info.Mode().IsRegular()
	case a.info == nil && b.info == nil:
		x, _ := filepath.Abs(a.target)
		y, _ := filepath.Abs(b.target)
		return x == y
	}
	return false
}

// derived is the picture of a measurement called name that a --plot of d
// draws when there are several.
func (d destination) derived(name string) string {
	ext := filepath.Ext(d.path)
	return strings.TrimSuffix(d.path, ext) + "_" + name + ext
}

// mayDraw reports whether a --plot of d may draw o: d itself, or a
// picture named after it, in the directory of d's target.
func (d destination) mayDraw(o destination) bool {
	if same(d, o) {
		return true
	}
	if o.fd >= 0 {
		return false
	}
	dir, _ := filepath.Abs(filepath.Dir(d.target))
	odir, _ := filepath.Abs(filepath.Dir(o.target))
	ext := filepath.Ext(d.target)
	base := strings.TrimSuffix(filepath.Base(d.target), ext) + "_"
	name := filepath.Base(o.target)
	return dir == odir && strings.HasPrefix(name, base) && strings.HasSuffix(name, ext) && len(name) > len(base)+len(ext)
}

// checkOutputPath checks one result file's path and returns its
// destination.
func checkOutputPath(f File) (destination, error) {
	if strings.HasPrefix(f.Path, "-") {
		return destination{}, &Refusal{fmt.Sprintf("%s %q: give a file name (this looks like an option)", f.Option, f.Path)}
	}
	d := resolve(f.Path)
	switch {
	case d.fd >= 0:
		flags, err := unix.FcntlInt(uintptr(d.fd), unix.F_GETFL, 0)
		switch {
		case d.fd == 0:
			return d, &Refusal{fmt.Sprintf("%s %s: that is standard input, which the command reads; give a file, or /dev/stdout", f.Option, f.Path)}
		case err != nil:
			return d, fmt.Errorf("%s %s: descriptor %d is not open", f.Option, f.Path, d.fd)
		case flags&unix.O_ACCMODE == unix.O_RDONLY:
			return d, &Refusal{fmt.Sprintf("%s %s: descriptor %d is open only for reading; give a file, or a descriptor open for writing", f.Option, f.Path, d.fd)}
		}
		return d, nil
	case d.info != nil && d.info.IsDir():
		return d, fmt.Errorf("%s %s: is a directory; give a file name", f.Option, f.Path)
	case d.inPlace():
		if err := unix.Access(d.target, unix.W_OK); err != nil {
			return d, fmt.Errorf("%s %s: cannot write %s (%v)", f.Option, f.Path, d.target, err)
		}
		return d, nil
	}
	dir := filepath.Dir(d.target)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return d, fmt.Errorf("%s %s: the directory %s does not exist; create it first", f.Option, f.Path, dir)
	}
	probe, err := os.CreateTemp(dir, ".residentlua-probe-*")
	if err != nil {
		return d, fmt.Errorf("%s %s: cannot write in %s (%v)", f.Option, f.Path, dir, Cause(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return d, nil
}

// checkKind refuses, unless c forces it, to replace an existing regular file
// that does not look like what f's option writes: a Lua script, or a file
// whose first bytes are not of that kind. An empty file may be replaced.
func (d destination) checkKind(f File, c Checks) error {
	if c.Force || d.info == nil || !d.info.Mode().IsRegular() || d.info.Size() == 0 {
		return nil
	}
	head := make([]byte, 512)
	file, err := os.Open(d.target)
	if err != nil {
		return fmt.Errorf("%s %s: cannot read the file it would replace (%v)", f.Option, f.Path, Cause(err))
	}
	n, _ := io.ReadFull(file, head)
	file.Close()
	head = head[:n]
	var why string
	if strings.EqualFold(filepath.Ext(d.target), ".lua") {
		why = "is a Lua script, not"
	} else if !looksLike(f.Kind, d.target, head) {
		why = "does not look like"
	}
	if why == "" {
		return nil
	}
	return &Refusal{fmt.Sprintf("%s %s: the file exists and %s what %s writes (%s); give another name, or %s to replace it", f.Option, f.Path, why, f.Option, f.Kind.describe(), c.ForceOption)}
}

// looksLike reports whether head, the first bytes of the file at path,
// could be of kind.
func looksLike(kind Kind, path string, head []byte) bool {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch kind {
	case Profile:
		return bytes.HasPrefix(head, []byte("\x1f\x8b"))
	case JSONObject, JSONLines:
		return bytes.HasPrefix(head, []byte("{"))
	case JSONArray:
		return bytes.HasPrefix(head, []byte("["))
	}
	if strings.EqualFold(filepath.Ext(path), ".png") {
		return bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n"))
	}
	return bytes.HasPrefix(head, []byte("<?xml")) || bytes.HasPrefix(head, []byte("<svg"))
}

// Output is a result file being written: to a temporary file beside its
// target, renamed over the target by commit, or in place.
type Output struct {
	dest destination
	file *os.File
	tmp  bool // file is a temporary file (registered in pending)
}

// Create opens the result file path for writing.
func Create(path string) (*Output, error) {
	d := resolve(path)
	switch {
	case d.fd >= 0:
		return &Output{dest: d, file: os.NewFile(uintptr(d.fd), path)}, nil
	case d.inPlace():
		f, err := os.OpenFile(d.target, os.O_WRONLY, 0)
		if err != nil {
			return nil, Cause(err)
		}
		return &Output{dest: d, file: f}, nil
	}
	f, err := pending.create(filepath.Dir(d.target), "."+filepath.Base(d.target)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &Output{dest: d, file: f, tmp: true}, nil
}

// Write writes to the file.
func (o *Output) Write(p []byte) (int, error) { return o.file.Write(p) }

// Commit completes the file: a temporary file is synced, closed and
// renamed over the target (and removed when that fails, the target left as
// it was); a file written in place is closed.
func (o *Output) Commit() error {
	if !o.tmp {
		if o.dest.fd >= 0 {
			return nil // an inherited descriptor stays open
		}
		return Cause(o.file.Close())
	}
	err := o.file.Sync()
	if cerr := o.file.Close(); err == nil {
		err = cerr
	}
	return o.dest.replaceWith(o.file.Name(), err)
}

// replaceWith renames the complete temporary file tmp over the target,
// with the mode of the file it replaces (0644 for a new one); when err (of
// writing tmp) or the rename fails, tmp is removed and the target left as
// it was.
func (d destination) replaceWith(tmp string, err error) error {
	mode := os.FileMode(0o644)
	if d.info != nil {
		mode = d.info.Mode().Perm()
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, d.target)
	}
	if err != nil {
		os.Remove(tmp)
	}
	pending.forget(tmp)
	return Cause(err)
}

// Discard gives up the file: a temporary file is removed, the target left
// as it was.
func (o *Output) Discard() {
	if o.tmp {
		o.file.Close()
		os.Remove(o.file.Name())
		pending.forget(o.file.Name())
	} else if o.dest.fd < 0 {
		o.file.Close()
	}
}

// Write writes a result file with write, as Create and Commit do.
func Write(path string, write func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	buf := bufio.NewWriterSize(f, 1<<16)
	err = write(buf)
	if err == nil {
		err = buf.Flush()
	}
	if err != nil {
		f.Discard()
		return Cause(err)
	}
	return f.Commit()
}

// WritePicture draws a picture for a result file path: draw writes it to
// the file it is given (whose extension is path's), a temporary file that
// then takes path's place as a result file's temporary file does, or whose
// bytes are copied to a descriptor, device or FIFO.
func WritePicture(path string, draw func(file string) error) error {
	d := resolve(path)
	dir := filepath.Dir(d.target)
	if d.inPlace() {
		dir = os.TempDir()
	}
	tmp, err := pending.create(dir, "."+filepath.Base(d.target)+".tmp-*"+filepath.Ext(path))
	if err != nil {
		return err
	}
	tmp.Close()
	defer func() {
		os.Remove(tmp.Name())
		pending.forget(tmp.Name())
	}()
	if err := draw(tmp.Name()); err != nil {
		return err
	}
	if !d.inPlace() {
		return d.replaceWith(tmp.Name(), nil)
	}
	b, err := os.ReadFile(tmp.Name())
	if err != nil {
		return Cause(err)
	}
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// Cause is err without the operation and path of an *os.PathError, which
// a message that names the file already gives: what went wrong
// ("permission denied", "no space left on device").
func Cause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// pending holds the temporary files of the result files being written, so
// that a command that must end at once (a second Ctrl-C) removes them and
// leaves no partial file, and says while result files are written, so that
// such an end waits for them.
var pending = &tempFiles{files: map[string]bool{}}

// tempFiles is the type of pending.
type tempFiles struct {
	writing sync.RWMutex // held for reading while result files are written; abandon takes it
	mu      sync.Mutex
	files   map[string]bool
}

// create makes a temporary file in dir (os.CreateTemp's pattern) and
// remembers it.
func (p *tempFiles) create(dir, pattern string) (*os.File, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, Cause(err)
	}
	p.files[f.Name()] = true
	return f, nil
}

// forget forgets a temporary file that was renamed or removed.
func (p *tempFiles) forget(name string) {
	p.mu.Lock()
	delete(p.files, name)
	p.mu.Unlock()
}

// Hold marks the result files being written until release is called: an
// EndNow waits for it.
func Hold() (release func()) {
	pending.writing.RLock()
	return pending.writing.RUnlock
}

// abandon waits for the result files being written, then removes every
// temporary file: what a command does before it ends at once. It does not
// give the lock back: nothing is written after it.
func (p *tempFiles) abandon() {
	p.writing.Lock()
	p.mu.Lock()
	defer p.mu.Unlock()
	for name := range p.files {
		os.Remove(name)
	}
}

// EndNow ends the process at once by signal s, as though it had not been
// caught, once the result files being written are complete and every
// temporary file removed.
func EndNow(s syscall.Signal) {
	pending.abandon()
	signal.Reset(s)
	syscall.Kill(os.Getpid(), s)
	time.Sleep(time.Second) // the signal ends the process meanwhile
	os.Exit(128 + int(s))
}
