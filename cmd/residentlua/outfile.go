package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// checkOutputs checks the result files named by --trace and --stats before
// anything runs, so that a campaign does not run for an hour and then find
// that it cannot write its results: each must be a file name (not something
// that looks like an option), in a directory that exists and can be
// written, and the two must differ.
func (o *options) checkOutputs() error {
	return checkOutputFiles([]outputFile{{"--trace", o.tracePath}, {"--stats", o.statsPath}})
}

// outputFile is a result file an option names ("" when the option is not given).
type outputFile struct{ option, path string }

// checkOutputFiles checks every named result file's path (checkOutputPath)
// and that no two options name the same file.
func checkOutputFiles(files []outputFile) error {
	named := map[string]string{} // cleaned path -> option
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if err := checkOutputPath(f.option, f.path); err != nil {
			return err
		}
		abs, _ := filepath.Abs(f.path)
		if other, dup := named[abs]; dup {
			return &usageError{fmt.Sprintf("%s and %s both name %s: give each its own file", other, f.option, f.path)}
		}
		named[abs] = f.option
	}
	return nil
}

// checkOutputPath checks one result file's path.
func checkOutputPath(option, path string) error {
	if strings.HasPrefix(path, "-") {
		return &usageError{fmt.Sprintf("%s %q: give a file name (this looks like an option)", option, path)}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s %s: is a directory; give a file name", option, path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("%s %s: the directory %s does not exist; create it first", option, path, dir)
	}
	probe, err := os.CreateTemp(dir, ".residentlua-probe-*")
	if err != nil {
		return fmt.Errorf("%s %s: cannot write in %s (%v)", option, path, dir, unwrapPathError(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// writeFileAtomically writes a result file through a temporary file in the
// same directory, renamed over path only once it is complete: a full disk
// or a crash leaves the previous file as it was, never a truncated one.
func writeFileAtomically(path string, write func(w io.Writer) error) error {
	f, err := createAtomically(path)
	if err != nil {
		return err
	}
	buf := bufio.NewWriterSize(f, 1<<16)
	err = write(buf)
	if err == nil {
		err = buf.Flush()
	}
	if err != nil {
		f.discard()
		return unwrapPathError(err)
	}
	return f.commit(path)
}

// atomicFile is a result file being written: a temporary file beside its
// target, which commit renames over the target once it is complete.
type atomicFile struct{ tmp *os.File }

// createAtomically makes the temporary file for a result file path.
func createAtomically(path string) (*atomicFile, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, unwrapPathError(err)
	}
	return &atomicFile{tmp}, nil
}

// Write writes to the temporary file.
func (f *atomicFile) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// commit syncs and closes the temporary file and renames it to path; when
// that fails, the temporary file is removed and path left as it was.
func (f *atomicFile) commit(path string) error {
	err := f.tmp.Sync()
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.tmp.Name(), path)
	}
	if err != nil {
		os.Remove(f.tmp.Name())
	}
	return unwrapPathError(err)
}

// discard closes and removes the temporary file.
func (f *atomicFile) discard() {
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

// unwrapPathError drops the operation and path of an *os.PathError, which
// the messages above already name, keeping what went wrong ("permission
// denied", "no space left on device").
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
