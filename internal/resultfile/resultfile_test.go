package resultfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResultFileReplacedWhole(t *testing.T) {
	// A write that fails half-way leaves the previous file as it was, and
	// no temporary file behind.
	dir := t.TempDir()
	path := filepath.Join(dir, "stats.json")
	writeFile(t, path, "[\"previous\"]\n")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "[truncat")
		return errors.New("no space left on device")
	})
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("write error %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "[\"previous\"]\n" {
		t.Errorf("the previous file became %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left in the directory: %v", entries)
	}
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "new\n" {
		t.Errorf("the file after a good write is %q", data)
	}
}

func TestProfilesReplaceOnlyProfiles(t *testing.T) {
	// A profile may replace a profile (gzip, as pprof writes them) or an
	// empty file, and nothing else unless forced; the refusal names the
	// option that forces it.
	dir := t.TempDir()
	profile := filepath.Join(dir, "cpu.prof")
	writeFile(t, profile, "\x1f\x8b\x08\x00rest of a profile")
	empty := filepath.Join(dir, "empty.prof")
	writeFile(t, empty, "")
	notes := filepath.Join(dir, "notes.txt")
	writeFile(t, notes, "my notes\n")
	script := filepath.Join(dir, "run.lua")
	writeFile(t, script, "print(1)\n")
	check := func(path string, force bool) error {
		return Checks{Outputs: []File{{Option: "-cpuprofile", Path: path, Kind: Profile}}, Force: force, ForceOption: "-force"}.Check()
	}
	for _, ok := range []string{profile, empty, filepath.Join(dir, "new.prof")} {
		if err := check(ok, false); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for path, why := range map[string]string{notes: "does not look like", script: "is a Lua script, not"} {
		err := check(path, false)
		var r *Refusal
		if !errors.As(err, &r) {
			t.Fatalf("%s: %v, want a refusal", path, err)
		}
		want := "-cpuprofile " + path + ": the file exists and " + why + " what -cpuprofile writes (a pprof profile); give another name, or -force to replace it"
		if err.Error() != want {
			t.Errorf("refusal\n%s\nwant\n%s", err, want)
		}
		if err := check(path, true); err != nil {
			t.Errorf("%s forced: %v", path, err)
		}
	}
}

func TestChecksRefuseAnOutputThatIsAnInputOrAnotherOutput(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "table.json")
	err := Checks{Outputs: []File{
		{Option: "-json", Path: table, Kind: JSONArray},
		{Option: "-memprofile", Path: table, Kind: Profile},
	}}.Check()
	if err == nil || err.Error() != "-memprofile "+table+" is the same file as -json: give -memprofile a file of its own" {
		t.Errorf("two outputs on one file: %v", err)
	}
	err = Checks{Outputs: []File{{Option: "-json", Path: dir, Kind: JSONArray}}}.Check()
	if err == nil || err.Error() != "-json "+dir+": is a directory; give a file name" {
		t.Errorf("a directory: %v", err)
	}
}

// TestChecksRefuseStandardInputAndReadOnlyDescriptors checks that
// standard input, by any of its names, and a descriptor open only for
// reading are refused before anything runs, rather than failing to be
// written at the end.
func TestChecksRefuseStandardInputAndReadOnlyDescriptors(t *testing.T) {
	for _, path := range []string{"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"} {
		err := Checks{Outputs: []File{{Option: "--summary", Path: path, Kind: JSONObject}}}.Check()
		var r *Refusal
		if !errors.As(err, &r) || err.Error() != "--summary "+path+": that is standard input, which the command reads; give a file, or /dev/stdout" {
			t.Errorf("%s: %v", path, err)
		}
	}
	name := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY} {
		f, err := os.OpenFile(name, flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/dev/fd/%d", f.Fd())
		err = Checks{Outputs: []File{{Option: "--summary", Path: path, Kind: JSONObject}}}.Check()
		f.Close()
		want := ""
		if flag == os.O_RDONLY {
			want = fmt.Sprintf("--summary %s: descriptor %s is open only for reading; give a file, or a descriptor open for writing", path, strings.TrimPrefix(path, "/dev/fd/"))
		}
		if got := fmt.Sprint(err); want == "" && err != nil || want != "" && got != want {
			t.Errorf("%s open with flags %#x: %v, want %q", path, flag, err, want)
		}
	}
}
