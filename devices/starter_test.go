package devices

// Tests of the hooks a program in another package uses (programs/exchange is
// one): Starter, Prepared.Program and Env.ResetError.

import (
	"errors"
	"fmt"
	"testing"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"

	"github.com/residentlua/residentlua/devices/program"
)

// starterProgram is a Starter that records its Start and, once stepped,
// retires with what retire returns.
type starterProgram struct {
	startErr error
	started  int
	startDev string
	steps    int
	stepped  bool // a step ran before Start
	retire   func(env program.Env) error
}

func (p *starterProgram) Start(env program.Env) error {
	p.started++
	p.startDev = env.DeviceName()
	return p.startErr
}

func (p *starterProgram) Step(env program.Env) program.Next {
	if p.started == 0 {
		p.stepped = true
	}
	p.steps++
	if p.retire != nil {
		return program.Retire(p.retire(env))
	}
	return program.Retire(nil)
}

// Dispatch calls a Starter's Start once, on the dispatching device, before
// the program's first step; Prepared.Program is the program prepared.
func TestStarterStartsOnceBeforeTheFirstStep(t *testing.T) {
	for _, cfg := range mmConfigs() {
		t.Run(mmName(cfg), func(t *testing.T) {
			f := mmFabric(t, cfg)
			gpu := f.First(GPU)
			p := &starterProgram{}
			pp := mmPrepare(t, gpu, AQL, p, 1)
			if pp.Program() != program.Program(p) {
				t.Errorf("Prepared.Program is %v, want the program prepared", pp.Program())
			}
			c := mmDispatch(t, pp)
			if ok, err := c.waitFor(mmSoon); !ok || err != nil {
				t.Fatalf("Wait = %v, %v; want retired", ok, err)
			}
			if p.started != 1 || p.startDev != gpu.Name() || p.stepped || p.steps != 1 {
				t.Errorf("Start called %d times on %q, a step before Start %v, %d steps; want once on %s, no, 1", p.started, p.startDev, p.stepped, p.steps, gpu.Name())
			}
		})
	}
}

// A Start that fails rejects the dispatch: a *failure.Error as it is, any other
// error wrapped in a device error that names the device. The program never
// steps, the device stays free, and a reject event says why.
func TestStarterFailureRejectsTheDispatch(t *testing.T) {
	cause := errors.New("no streams left")
	own := failure.Errorf(failure.Unsupported, "dispatch", "the hardware is asleep")
	for _, tc := range []struct {
		name string
		err  error
		kind failure.Kind
		msg  string
	}{
		{"plain error", cause, failure.Device, "gpu0 could not start the program: no streams left"},
		{"device error", own, failure.Unsupported, "the hardware is asleep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := mmFabric(t, Config{})
			gpu := f.First(GPU)
			p := &starterProgram{startErr: tc.err}
			c, err := mmPrepare(t, gpu, AQL, p, 1).Dispatch()
			if c != nil {
				t.Fatal("a dispatch whose Start failed returned a completion")
			}
			mmKind(t, "Dispatch", err, tc.kind)
			if !errors.Is(err, tc.err) || err.(*failure.Error).Message != tc.msg {
				t.Errorf("Dispatch error %v, want %q wrapping %v", err, tc.msg, tc.err)
			}
			if gpu.Occupied() {
				t.Error("the device is occupied after a rejected dispatch")
			}
			f.Advance(mmNever)
			if p.steps != 0 {
				t.Errorf("the rejected program stepped %d times", p.steps)
			}
			rejects := f.Events().Events(func(e *event.Event) bool { return e.Kind == evReject && e.Detail == tc.msg })
			if len(rejects) != 1 {
				t.Errorf("%d reject events saying %q, want 1", len(rejects), tc.msg)
			}
		})
	}
}

// Env.ResetError is the error a reset gives the invocation, for a program
// that learns of the reset itself.
func TestEnvResetErrorIsTheResetError(t *testing.T) {
	f := mmFabric(t, Config{})
	gpu := f.First(GPU)
	p := &starterProgram{retire: func(env program.Env) error { return env.ResetError() }}
	c := mmDispatch(t, mmPrepare(t, gpu, AQL, p, 1))
	_, err := c.waitFor(mmSoon)
	mmKind(t, "the program's retirement", err, failure.Device)
	if want := fmt.Sprintf("%s was reset while invocation %d was running", gpu.Name(), c.ID()); err.(*failure.Error).Message != want {
		t.Errorf("ResetError says %q, want %q", err.(*failure.Error).Message, want)
	}
}
