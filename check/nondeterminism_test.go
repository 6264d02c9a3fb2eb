package check

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/program"
)

// quickProgram retires at its first step; its check is check, when set.
type quickProgram struct{ check func() error }

func (quickProgram) Step(program.Env) program.Next { return program.Retire(nil) }

// checkedQuick is a quickProgram with a check of its own.
type checkedQuick struct{ quickProgram }

func (p checkedQuick) Check() error { return p.check() }

// TestNondeterministicProgramReported checks a pair whose GPU program's
// check fails the first time it runs in the process and never again, as a
// program that keeps a count across runs would: the search finds invariant
// 7 broken once, its rerun breaks nothing, and the report says that the
// programs are not deterministic, with the schedule and what differed,
// never a counterexample of "invariant 0".
func TestNondeterministicProgramReported(t *testing.T) {
	calls := 0
	check := func() error {
		if calls++; calls == 1 {
			return errors.New("a count kept from an earlier run")
		}
		return nil
	}
	prepare := func(line *devices.Buffer, gpu, npu *devices.Device, owner uint64) (*devices.Prepared, *devices.Prepared, error) {
		gf, err := gpu.Family(devices.AQL)
		if err != nil {
			return nil, nil, err
		}
		nf, err := npu.Family(devices.XDNA)
		if err != nil {
			return nil, nil, err
		}
		g, err := gpu.Prepare(gf, checkedQuick{quickProgram{check}}, owner, line)
		if err != nil {
			return nil, nil, err
		}
		n, err := npu.Prepare(nf, quickProgram{}, owner, line)
		return g, n, err
	}
	rep := Check(context.Background(), BuiltinOf("flaky", prepare), Options{Bounds: Bounds{Faults: -1, Sessions: 1, Misuse: -1, Preemptions: -1}})
	if !strings.Contains(rep.Nondeterministic, "not deterministic") || !strings.Contains(rep.Nondeterministic, "invariant 7") {
		t.Errorf("not reported as nondeterministic: %q", rep.Nondeterministic)
	}
	for _, cx := range rep.Counterexamples {
		if cx.Violation.Invariant == 0 {
			t.Errorf("a counterexample of no violation:\n%s", cx)
		}
	}
	if rep.Exhausted {
		t.Error("a search of a nondeterministic pair is said exhausted")
	}
}
