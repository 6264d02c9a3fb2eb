package check_test

import (
	"context"
	"testing"

	"github.com/residentlua/residentlua/check"
)

func TestBuiltinSmall(t *testing.T) {
	rep := check.Check(context.Background(), check.Builtin, check.Options{Bounds: check.Bounds{Rounds: 1, Credits: 1, Faults: -1, Preemptions: 1}})
	t.Log(rep.String())
}
