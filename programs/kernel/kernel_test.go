package kernel_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/programs/kernel"
)

// fakeModule launches fakeKernels: a kernel that observes after a few
// status reads and ends after a few more, as its script says.
type fakeModule struct {
	err     error
	block   kernel.Block
	script  fakeKernel
	program *kernel.Program // the program run made of it
}

func (m *fakeModule) Launch(b kernel.Block) (kernel.Running, error) {
	m.block = b
	if m.err != nil {
		return nil, m.err
	}
	k := m.script
	return &k, nil
}

type fakeKernel struct {
	reads       int
	observeAt   int // the status read at which it observed RUN
	endAt       int // the status read at which it wrote done (0: never)
	done        kernel.Done
	returnsAt   int // the Check after which its stream is idle (0: never)
	checks      int
	checkFailed error
}

func (k *fakeKernel) Status() kernel.Status {
	k.reads++
	var st kernel.Status
	if k.reads >= k.observeAt {
		st.Observed, st.ObservedAt = 1, time.Duration(k.observeAt)
	}
	if k.endAt > 0 && k.reads >= k.endAt {
		st.Done, st.RetiredAt = k.done, time.Duration(k.endAt)
	}
	return st
}

func (k *fakeKernel) Check() (bool, error) {
	k.checks++
	return k.returnsAt > 0 && k.checks >= k.returnsAt, k.checkFailed
}

// run dispatches the kernel program of m on a simulated fabric, with site
// armed as term when not empty, and waits for it.
func run(t *testing.T, m *fakeModule, term string) (error, []event.Event) {
	t.Helper()
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if term != "" {
		if err := f.Faults().Set(fault.GPURun, term); err != nil {
			t.Fatal(err)
		}
	}
	gpu := f.First(devices.GPU)
	fam, _ := gpu.Family(devices.AQL)
	p, err := kernel.NewProgram(m, "k", kernel.Block{Owner: 7, Values: []int64{3}})
	if err != nil {
		t.Fatal(err)
	}
	m.program = p
	prep, err := gpu.Prepare(fam, p, 7)
	if err != nil {
		t.Fatal(err)
	}
	c, err := prep.Dispatch()
	if err != nil {
		return err, nil
	}
	ok, err := c.WaitContext(t.Context(), time.Second)
	if !ok && err == nil {
		t.Fatalf("the kernel program did not retire within a simulated second")
	}
	return err, f.Events().Events(func(e *event.Event) bool { return e.Session == 7 })
}

func kinds(events []event.Event) string {
	var ks []string
	for _, e := range events {
		ks = append(ks, string(e.Kind))
	}
	return strings.Join(ks, " ")
}

func TestKernelProgram(t *testing.T) {
	t.Run("clean", func(t *testing.T) {
		m := &fakeModule{script: fakeKernel{observeAt: 3, endAt: 6, done: kernel.DoneOK}}
		err, events := run(t, m, "")
		if err != nil {
			t.Fatalf("retired with %v", err)
		}
		if got := kinds(events); !strings.Contains(got, "observe kernel.observe") || !strings.Contains(got, "kernel.retire retire") {
			t.Errorf("events %s; want the observation, the kernel's clock readings, then the retirement", got)
		}
		if m.block.Owner != 7 || len(m.block.Values) != 1 || m.block.Mode != kernel.ModeRun {
			t.Errorf("launched with %+v", m.block)
		}
		observed, retired := m.program.KernelTimes()
		if want := (event.Stamp{At: 3, Set: true}); observed != want {
			t.Errorf("the kernel's observation %+v, want its clock's %+v", observed, want)
		}
		if want := (event.Stamp{At: 6, Set: true}); retired != want {
			t.Errorf("the kernel's retirement %+v, want its clock's %+v", retired, want)
		}
	})
	t.Run("crash", func(t *testing.T) {
		m := &fakeModule{script: fakeKernel{observeAt: 1, endAt: 2, done: kernel.DoneCrashed}}
		err, _ := run(t, m, "crash(boom)")
		if err == nil || !strings.Contains(err.Error(), "gpu0 crashed: boom") || !errors.Is(err, failure.Device) {
			t.Errorf("retired with %v, want the device error gpu0 crashed: boom", err)
		}
		if m.block.Mode != kernel.ModeCrash {
			t.Errorf("the kernel was launched in mode %d, want ModeCrash", m.block.Mode)
		}
	})
	t.Run("hang and ignore_abort are the kernel's to honour", func(t *testing.T) {
		for term, mode := range map[string]kernel.Mode{"hang": kernel.ModeHang, "ignore_abort": kernel.ModeIgnoreAbort, "delay(2us)": kernel.ModeRun} {
			m := &fakeModule{script: fakeKernel{observeAt: 1, endAt: 2, done: kernel.DoneOK}}
			if err, _ := run(t, m, term); err != nil {
				t.Fatal(err)
			}
			if m.block.Mode != mode || (term == "delay(2us)") != (m.block.Delay == 2*time.Microsecond) {
				t.Errorf("%s: launched in mode %d with delay %v", term, m.block.Mode, m.block.Delay)
			}
		}
	})
	t.Run("a launch that fails rejects the dispatch", func(t *testing.T) {
		err, _ := run(t, &fakeModule{err: errors.New("out of resources")}, "")
		if err == nil || !strings.Contains(err.Error(), "gpu0 could not launch kernel k: out of resources") {
			t.Errorf("dispatch error %v", err)
		}
	})
	t.Run("returned without an ending", func(t *testing.T) {
		m := &fakeModule{script: fakeKernel{observeAt: 1, returnsAt: 1}}
		if err, _ := run(t, m, ""); err != nil {
			t.Errorf("a kernel that returned without writing done retired with %v, want cleanly", err)
		}
	})
	t.Run("a failed kernel", func(t *testing.T) {
		m := &fakeModule{script: fakeKernel{observeAt: 1, checkFailed: errors.New("illegal address")}}
		err, _ := run(t, m, "")
		if err == nil || !strings.Contains(err.Error(), "gpu0: kernel k failed: illegal address") {
			t.Errorf("retired with %v", err)
		}
	})
	t.Run("a bad decision", func(t *testing.T) {
		m := &fakeModule{script: fakeKernel{observeAt: 1, endAt: 1, done: kernel.DoneBadDecision}}
		if err, _ := run(t, m, ""); err == nil || !strings.Contains(err.Error(), "only RUN (1) or ABORT (2) may follow WAIT") {
			t.Errorf("retired with %v", err)
		}
	})
	if _, err := kernel.NewProgram(&fakeModule{}, "k", kernel.Block{Values: make([]int64, kernel.MaxValues+1)}); err == nil {
		t.Errorf("a block of %d values was accepted", kernel.MaxValues+1)
	}
}
