package main

import (
	"strings"
	"testing"
)

// TestConflictingOptionsRefusedAtStart checks options that cannot make the
// default fabric together are refused before anything runs, in one line
// with no traceback: not when a script first needs the fabric.
func TestConflictingOptionsRefusedAtStart(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpu", "cuda", "--mode", "sim", "-e", "print('ran')"},
			"residentlua: --gpu cuda is a real GPU, which runs in real time: use --mode realtime (the default) with it, or leave --gpu out to simulate the GPU\n"},
		{[]string{"--wait", "spin", "-e", "print('ran')"},
			"residentlua: --wait spin: the spin wait policy needs a core for each of its 3 spinning participants (2 devices and the waiting host), and 2 are usable (GOMAXPROCS, of "},
	} {
		// Two usable cores, whatever the machine: spin needs three.
		r := runCmdEnv(t, "", "", []string{"GOMAXPROCS=2"}, tc.args...)
		r.wantCode(t, 1)
		if !strings.HasPrefix(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("%v: stdout %q, stderr %q; want one line starting %q, and nothing run", tc.args, r.stdout, r.stderr, tc.want)
		}
	}
	// Spin in simulated time waits on nothing: it runs.
	r := runCmdEnv(t, "", "", []string{"GOMAXPROCS=2"}, "--wait", "spin", "--mode", "sim", "-e", "print('ran')")
	r.wantCode(t, 0)
	if r.stdout != "ran\n" {
		t.Errorf("--wait spin --mode sim: stdout %q", r.stdout)
	}
}

// TestTheLargestSizeIsASize checks the size the budget's error names as the
// most can be given as it is written there.
func TestTheLargestSizeIsASize(t *testing.T) {
	r := runCmd(t, "", "", "--mode", "sim", "-e", `print(pcall(resident.fabric, {budget = "9PiB"}))`, "-e", `resident.fabric{budget = "8PiB"}; print(string.format("%d", resident.budget().limit))`)
	r.wantCode(t, 0)
	if want := "false\tinvalid: fabric: budget: size \"9PiB\" is too large; the most is 8PiB (9007199254740992 bytes)\n9007199254740992\n"; r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
}
