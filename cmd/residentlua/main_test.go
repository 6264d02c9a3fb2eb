package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// binary is the residentlua built once for every test that runs the command.
var binary string

// repoRoot is the module's root, where examples/ and scripts/ live.
var repoRoot string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "residentlua-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "residentlua")
	args := []string{"build", "-o", binary}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building residentlua:", err)
		return 1
	}
	wd, _ := os.Getwd()
	repoRoot = filepath.Clean(filepath.Join(wd, "..", ".."))
	return m.Run()
}

// result is what one run of the command did.
type result struct {
	stdout, stderr string
	code           int
}

// runCmd runs the built command with args and stdin in dir (the repository
// root when dir is empty), with HOME pointed at a temporary directory so
// that no history file of the person running the tests is touched.
func runCmd(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	return runCmdEnv(t, dir, stdin, nil, args...)
}

// runCmdEnv is runCmd with extra environment variables.
func runCmdEnv(t *testing.T, dir, stdin string, env []string, args ...string) result {
	t.Helper()
	if dir == "" {
		dir = repoRoot
	}
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir(), "RESIDENTLUA_HISTORY=", noExitSleep), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v: %v", args, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// wantCode fails the test unless the run exited with code.
func (r result) wantCode(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

// contains fails the test unless s holds every one of wants.
func contains(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// writeFile writes a file under dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// noExitSleep stops a command built with -race from sleeping a second
// before it exits (the race runtime's default).
const noExitSleep = "GORACE=atexit_sleep_ms=0"
