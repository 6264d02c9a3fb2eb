package engine

// Every fault site (docs/faults.md) with each of its actions, injected into a
// session of the built-in exchange, in both executors: each case asserts
// the protocol-level effect, and that the oracle finds no violation (these
// are all correct engine behaviours under faults).

import (
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// faultRun is one fault case running in one executor.
type faultRun struct {
	*world
	mode  devices.Mode
	short time.Duration // a wait for something that must not happen
}

// eventually steps the fabric (virtual time in the simulator, wall time in
// real time) until cond holds, for at most 10 s.
func (x *faultRun) eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen", what)
		}
		if x.mode == devices.Simulated {
			x.f.Advance(time.Millisecond)
		} else {
			time.Sleep(time.Millisecond)
		}
	}
}

// waitForError calls Wait(short) until it returns an error, for at most
// 10 s, and returns that error.
func (x *faultRun) waitForError(t *testing.T, s *Session) error {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, err := s.Wait(x.short)
		if err != nil {
			if ok {
				t.Errorf("Wait returned true with error %v", err)
			}
			return err
		}
		if ok {
			t.Fatal("Wait succeeded, want a participant's error")
		}
		if time.Now().After(deadline) {
			t.Fatal("Wait never returned the participant's error")
		}
	}
}

// quarantined closes s with a short join, requires that it ends
// quarantined with both devices held and all its memory still charged.
func (x *faultRun) quarantined(t *testing.T, s *Session) {
	t.Helper()
	bytes := int64(s.startup.line.Region().Len() + exchangeOf(s).Payload().Region().Len())
	if out := s.CloseWithin(t.Context(), x.short); out != Quarantined {
		logEvents(t, x.f, events(x.f, s.ID()))
		t.Fatalf("Close = %v, want quarantined", out)
	}
	wantState(t, s, StateQuarantined)
	qs := x.f.Quarantines()
	if len(qs) != 1 || qs[0].Owner != s.ID() || qs[0].Bytes != bytes {
		t.Errorf("Quarantines() = %+v, want one of session %d keeping %d bytes", qs, s.ID(), bytes)
	}
	if st := x.f.Budget().State(); st.Charged != bytes || st.Quarantined != bytes {
		t.Errorf("budget %+v, want %d bytes charged and quarantined", st, bytes)
	}
	if !x.gpu.Occupied() || !x.npu.Occupied() {
		t.Errorf("Occupied: gpu %v npu %v; a quarantine holds both devices", x.gpu.Occupied(), x.npu.Occupied())
	}
	if out := s.Close(); out != Quarantined {
		t.Errorf("a second Close = %v, want quarantined again", out)
	}
}

// retired closes s and requires that it ends retired with its memory
// returned.
func (x *faultRun) retired(t *testing.T, s *Session) {
	t.Helper()
	if out := s.CloseWithin(t.Context(), longWait); out != Retired {
		logEvents(t, x.f, events(x.f, s.ID()))
		t.Fatalf("Close = %v, want retired", out)
	}
	wantState(t, s, StateClosed)
	if st := x.f.Budget().State(); st.Charged != 0 {
		t.Errorf("budget %+v after a retired close, want nothing charged", st)
	}
}

// verified requires that the session retired and verified all its rounds.
func (x *faultRun) verified(t *testing.T, s *Session) {
	t.Helper()
	if ok, err := s.Wait(longWait); !ok || err != nil {
		logEvents(t, x.f, events(x.f, s.ID()))
		t.Fatalf("Wait = %v, %v; want both retired", ok, err)
	}
	v, ok := verification(s)
	if !ok || !v.OK || v.Verified != exchangeOf(s).Config().Rounds {
		t.Errorf("verification %+v (%v), want every generation verified", v, ok)
	}
}

// retireAt is when dev's program of s retired.
func (x *faultRun) retireAt(t *testing.T, s *Session, dev *devices.Device) time.Duration {
	t.Helper()
	return oneEvent(t, x.f, s.ID(), event.EvRetire, dev).Time
}

// startDelay is how long dev's program took from dispatch to start.
func (x *faultRun) startDelay(t *testing.T, s *Session, dev *devices.Device) time.Duration {
	t.Helper()
	return oneEvent(t, x.f, s.ID(), event.EvStart, dev).Time - oneEvent(t, x.f, s.ID(), event.EvDispatch, dev).Time
}

// faultsFired counts the fault events of site in the session.
func (x *faultRun) faultsFired(s *Session, site fault.Site, action fault.Action) int {
	n := 0
	for _, e := range actorEvents(x.f, s.ID(), event.EvFault, nil) {
		if fault.Site(e.A) == site && fault.Action(e.B) == action {
			n++
		}
	}
	return n
}

// who returns the device and the other device of a site's participant.
func (x *faultRun) who(gpuSide bool) (dev, peer *devices.Device) {
	if gpuSide {
		return x.gpu, x.npu
	}
	return x.npu, x.gpu
}

type faultCase struct {
	name string
	site fault.Site
	term string
	// run creates the session (after the fault was installed) and checks it.
	run func(t *testing.T, x *faultRun)
}

const faultDelay = 3 * time.Millisecond

func faultCases() []faultCase {
	var cases []faultCase
	add := func(name string, site fault.Site, term string, run func(t *testing.T, x *faultRun)) {
		cases = append(cases, faultCase{name, site, term, run})
	}
	for _, side := range []struct {
		name     string
		gpu      bool
		dispatch fault.Site
		run      fault.Site
		complete fault.Site
	}{
		{"gpu", true, fault.GPUDispatch, fault.GPURun, fault.GPUComplete},
		{"npu", false, fault.NPUDispatch, fault.NPURun, fault.NPUComplete},
	} {
		gpuSide := side.gpu
		submit := func(s *Session, mine bool) error {
			if mine == gpuSide {
				return s.SubmitGPU()
			}
			return s.SubmitNPU()
		}
		participant := oracle.ParticipantNPU
		if gpuSide {
			participant = oracle.ParticipantGPU
		}

		// dispatch error, after the peer was accepted: the submit returns
		// the device's error, and ABORT is published before it returns, so
		// the peer retires without touching the payload.
		add(side.name+".dispatch/error/peer accepted", side.dispatch, "error(queue full)", func(t *testing.T, x *faultRun) {
			s := newSession(t, x.f, exchangeConfig(3, 1, 64, devices.AQL))
			dev, peer := x.who(gpuSide)
			if err := submit(s, false); err != nil {
				t.Fatalf("submitting the peer: %v", err)
			}
			err := submit(s, true)
			wantErrMentions(t, "rejected submit", err, failure.Device, "queue full", dev.Name())
			if s.Decision() != oracle.StartupAbort {
				t.Errorf("oracle.Decision() = %d after a rejected dispatch, want ABORT", s.Decision())
			}
			// ABORT was published before the submit returned.
			pub := oneEvent(t, x.f, s.ID(), oracle.EvPublished, nil)
			ret := actorEvents(x.f, s.ID(), oracle.EvSubmitReturn, nil)
			if pub.A != uint64(program.StartupAbort) || pub.B != 0 || len(ret) != 2 || ret[1].A != uint64(participant) || ret[1].B != 1 || pub.Seq > ret[1].Seq {
				t.Errorf("published %+v, submit returns %+v; want ABORT published before the rejected submit returned", pub, ret)
			}
			wantErrMentions(t, "submit again", submit(s, true), failure.Busy)
			wantErrMentions(t, "Start after the rejection", s.Start(), failure.Busy)
			if ok, err := s.Wait(longWait); !ok || err != nil {
				t.Fatalf("Wait = %v, %v; want the peer retired after ABORT", ok, err)
			}
			if e := oneEvent(t, x.f, s.ID(), program.EvObserve, peer); e.B != uint64(program.StartupAbort) {
				t.Errorf("the peer observed %d, want ABORT", e.B)
			}
			if len(actorEvents(x.f, s.ID(), event.EvDispatch, dev)) != 0 {
				t.Errorf("%s has a dispatch event although it rejected the dispatch", dev.Name())
			}
			if n := x.counts.get(s.ID(), exchange.EvPayloadWrite) + x.counts.get(s.ID(), exchange.EvPayloadRead); n != 0 {
				t.Errorf("%d payload events after ABORT, want none", n)
			}
			wantState(t, s, StateAborted)
			x.retired(t, s)
		})
		// dispatch error, submitted first: the peer is then refused too.
		add(side.name+".dispatch/error/first", side.dispatch, "error", func(t *testing.T, x *faultRun) {
			s := newSession(t, x.f, exchangeConfig(1, 1, 64, devices.PM4))
			err := submit(s, true)
			wantErrMentions(t, "rejected submit", err, failure.Device, "injected error at "+side.dispatch.String())
			if s.Decision() != oracle.StartupAbort {
				t.Errorf("oracle.Decision() = %d, want ABORT", s.Decision())
			}
			wantErrMentions(t, "peer submit after ABORT", submit(s, false), failure.Busy)
			if ok, err := s.Wait(x.short); !ok || err != nil {
				t.Errorf("Wait = %v, %v; want true (nobody to join)", ok, err)
			}
			x.retired(t, s)
		})
		// dispatch delay: the program starts later by the delay.
		add(side.name+".dispatch/delay", side.dispatch, "delay(3ms)", func(t *testing.T, x *faultRun) {
			s := newSession(t, x.f, exchangeConfig(2, 1, 64, devices.AQL))
			dev, peer := x.who(gpuSide)
			start(t, s)
			x.verified(t, s)
			if d := x.startDelay(t, s, dev); d < faultDelay || (x.mode == devices.Simulated && d != faultDelay) {
				t.Errorf("%s started %v after its dispatch, want %v", dev.Name(), d, faultDelay)
			}
			if d := x.startDelay(t, s, peer); x.mode == devices.Simulated && d != 0 {
				t.Errorf("%s (no fault) started %v after its dispatch, want at once", peer.Name(), d)
			}
			if n := x.faultsFired(s, side.dispatch, fault.Delay); n != 1 {
				t.Errorf("%d dispatch delay faults fired, want 1", n)
			}
			x.retired(t, s)
		})

		// run hang, at the observation of RUN or mid-exchange: Wait times
		// out, the session keeps ownership, and Close quarantines.
		for _, h := range []struct{ name, term string }{{"at RUN", "hang"}, {"mid-exchange", "2*off->hang"}} {
			add(side.name+".run/hang/"+h.name, side.run, h.term, func(t *testing.T, x *faultRun) {
				s := newSession(t, x.f, exchangeConfig(3, 1, 64, devices.AQL))
				dev, _ := x.who(gpuSide)
				start(t, s)
				if ok, err := s.Wait(x.short); ok || err != nil {
					t.Fatalf("Wait = %v, %v; want a timeout", ok, err)
				}
				wantState(t, s, StateRunning)
				if ok, err := s.Wait(x.short); ok || err != nil { // still owned: wait again
					t.Fatalf("second Wait = %v, %v; want a timeout", ok, err)
				}
				if done, err := s.IsComplete(); done || err != nil {
					t.Errorf("IsComplete() = %v, %v; want false", done, err)
				}
				if h.term != "hang" {
					kind := exchange.EvPayloadRead
					if gpuSide {
						kind = exchange.EvPayloadWrite
					}
					x.eventually(t, "the first generation", func() bool { return x.counts.get(s.ID(), kind) == 1 })
				}
				x.quarantined(t, s)
				if n := len(actorEvents(x.f, s.ID(), event.EvRetire, dev)); n != 0 {
					t.Errorf("the hung %s retired", dev.Name())
				}
			})
		}
		// run crash: Wait returns the device error, the session is
		// poisoned, and Close quarantines.
		for _, c := range []struct{ name, term string }{{"at RUN", "crash(melted)"}, {"mid-exchange", "2*off->1*crash(melted)"}} {
			add(side.name+".run/crash/"+c.name, side.run, c.term, func(t *testing.T, x *faultRun) {
				s := newSession(t, x.f, exchangeConfig(3, 1, 64, devices.PM4))
				dev, _ := x.who(gpuSide)
				start(t, s)
				err := x.waitForError(t, s)
				wantErrMentions(t, "Wait after a crash", err, failure.Device, "melted", dev.Name())
				wantState(t, s, StatePoisoned)
				if len(actorEvents(x.f, s.ID(), oracle.EvPoison, nil)) != 1 {
					t.Error("no poison event")
				}
				if e := oneEvent(t, x.f, s.ID(), event.EvRetire, dev); e.B != 1 {
					t.Errorf("%s retired with status %d, want 1 (error)", dev.Name(), e.B)
				}
				if c.term != "crash(melted)" && x.counts.get(s.ID(), exchange.EvPayloadWrite) == 0 {
					t.Error("the crash was meant to come mid-exchange, but no generation was written")
				}
				if done, _ := s.IsComplete(); done {
					t.Error("IsComplete reports a crashed session complete")
				}
				x.quarantined(t, s)
			})
		}
		// run delay: every round takes longer, and the exchange verifies.
		add(side.name+".run/delay", side.run, "delay(3ms)", func(t *testing.T, x *faultRun) {
			const rounds = 3
			s := newSession(t, x.f, exchangeConfig(rounds, 1, 64, devices.AQL))
			dev, _ := x.who(gpuSide)
			start(t, s)
			x.verified(t, s)
			// From the device's own observation of RUN: in real time it
			// can come before the host's EvPublished event is recorded.
			run := oneEvent(t, x.f, s.ID(), program.EvObserve, dev).Time
			if took := x.retireAt(t, s, dev) - run; took < rounds*faultDelay {
				t.Errorf("%s retired %v after observing RUN, want at least %v (%d rounds of %v)", dev.Name(), took, rounds*faultDelay, rounds, faultDelay)
			}
			if n := x.faultsFired(s, side.run, fault.Delay); n < rounds {
				t.Errorf("%d run delays fired, want at least %d", n, rounds)
			}
			x.retired(t, s)
		})
		// run ignore_abort: the program reads ABORT as WAIT and keeps
		// polling, so it never observes a decision and Close must
		// quarantine; it never touches the payload.
		add(side.name+".run/ignore_abort", side.run, "ignore_abort", func(t *testing.T, x *faultRun) {
			s := newSession(t, x.f, exchangeConfig(2, 1, 64, devices.AQL))
			dev, peer := x.who(gpuSide)
			submitBoth(t, s, !gpuSide)
			if err := s.Abort(); err != nil {
				t.Fatalf("Abort: %v", err)
			}
			x.eventually(t, "the peer observing ABORT and retiring", func() bool {
				return len(actorEvents(x.f, s.ID(), program.EvObserve, peer)) == 1 && len(actorEvents(x.f, s.ID(), event.EvRetire, peer)) == 1
			})
			x.eventually(t, "the fault firing", func() bool { return x.faultsFired(s, side.run, fault.IgnoreAbort) == 1 })
			if n := len(actorEvents(x.f, s.ID(), program.EvObserve, dev)); n != 0 {
				t.Errorf("%s observed a decision %d times although it reads ABORT as WAIT", dev.Name(), n)
			}
			if n := x.faultsFired(s, side.run, fault.IgnoreAbort); n != 1 {
				t.Errorf("%d ignore_abort faults fired, want 1", n)
			}
			x.quarantined(t, s)
			if len(actorEvents(x.f, s.ID(), event.EvRetire, dev)) != 0 {
				t.Errorf("%s retired although it ignores ABORT", dev.Name())
			}
			if n := x.counts.get(s.ID(), exchange.EvPayloadWrite) + x.counts.get(s.ID(), exchange.EvPayloadRead); n != 0 {
				t.Errorf("%d payload events after ABORT, want none", n)
			}
		})
		// complete error: the completion reports a device error although
		// the program retired; the session is poisoned and quarantined.
		add(side.name+".complete/error", side.complete, "error(lost signal)", func(t *testing.T, x *faultRun) {
			s := newSession(t, x.f, exchangeConfig(1, 1, 64, devices.AQL))
			dev, _ := x.who(gpuSide)
			start(t, s)
			ok, err := s.Wait(longWait)
			if ok {
				t.Fatal("Wait succeeded despite the completion error")
			}
			wantErrMentions(t, "Wait", err, failure.Device, "lost signal", dev.Name())
			wantState(t, s, StatePoisoned)
			if _, err := s.IsComplete(); err == nil {
				t.Error("IsComplete reports no error after a completion error")
			}
			if e := oneEvent(t, x.f, s.ID(), event.EvRetire, dev); e.B != 1 {
				t.Errorf("%s retirement status %d, want 1", dev.Name(), e.B)
			}
			x.quarantined(t, s)
		})
	}

	// npu.drain skip with more rounds than credits: the credit never
	// reaches the GPU, which waits forever.
	add("npu.drain/skip/rounds>credits", exchange.NPUDrain, "skip", func(t *testing.T, x *faultRun) {
		s := newSession(t, x.f, exchangeConfig(3, 1, 64, devices.AQL))
		start(t, s)
		if ok, err := s.Wait(x.short); ok || err != nil {
			t.Fatalf("Wait = %v, %v; want a timeout", ok, err)
		}
		x.eventually(t, "the NPU consuming generation 1", func() bool { return x.counts.get(s.ID(), exchange.EvPayloadRead) == 1 })
		if n := x.counts.get(s.ID(), exchange.EvPayloadWrite); n != 1 {
			t.Errorf("the GPU wrote %d generations, want 1 (it never gets the credit back)", n)
		}
		if n := x.counts.get(s.ID(), exchange.EvDrain); n != 0 {
			t.Errorf("%d drains, want none", n)
		}
		if len(actorEvents(x.f, s.ID(), event.EvRetire, x.gpu)) != 0 {
			t.Error("the GPU retired without its credit")
		}
		x.quarantined(t, s)
	})
	// npu.drain skip within the credits: both retire, but the results never
	// reached memory, so verification fails; that is the fault's effect,
	// not a protocol violation.
	add("npu.drain/skip/rounds<=credits", exchange.NPUDrain, "skip", func(t *testing.T, x *faultRun) {
		s := newSession(t, x.f, exchangeConfig(3, 4, 64, devices.AQL))
		start(t, s)
		if ok, err := s.Wait(longWait); !ok || err != nil {
			t.Fatalf("Wait = %v, %v; want both retired", ok, err)
		}
		v, ok := verification(s)
		if !ok || v.OK || v.Verified != 0 || !strings.Contains(v.Problem, "generation 1 was consumed 0 times") {
			t.Errorf("verification %+v (%v), want a failure at generation 1 (consumed 0 times)", v, ok)
		}
		if e := oneEvent(t, x.f, s.ID(), oracle.EvCheck, nil); e.A != uint64(oracle.ParticipantNPU) || e.B != 1 {
			t.Errorf("check event %+v, want the NPU program's check failing (A=1, B=1)", e)
		}
		x.retired(t, s)
	})

	// host.publish error: Start fails with failure.Publish after recording the
	// decision; the session is poisoned and no other decision is published.
	add("host.publish/error/RUN", fault.HostPublish, "error(pcie down)", func(t *testing.T, x *faultRun) {
		s := newSession(t, x.f, exchangeConfig(1, 1, 64, devices.AQL))
		submitBoth(t, s, false)
		wantErrMentions(t, "Start", s.Start(), failure.Publish, "pcie down")
		wantState(t, s, StatePoisoned)
		if s.Decision() != oracle.StartupRun {
			t.Errorf("oracle.Decision() = %d, want RUN (recorded before publishing)", s.Decision())
		}
		wantErrMentions(t, "Abort after a failed publication", s.Abort(), failure.Busy)
		wantErrMentions(t, "Start again", s.Start(), failure.Busy)
		if e := oneEvent(t, x.f, s.ID(), oracle.EvPublished, nil); e.A != uint64(program.StartupRun) || e.B != 1 {
			t.Errorf("published event %+v, want RUN failed", e)
		}
		if x.counts.get(s.ID(), oracle.EvDecide) != 1 {
			t.Error("more than one decision was made")
		}
		x.quarantined(t, s)
		if len(actorEvents(x.f, s.ID(), program.EvObserve, x.npu)) != 0 {
			t.Error("the NPU observed a decision whose publication failed")
		}
	})
	add("host.publish/error/ABORT", fault.HostPublish, "error", func(t *testing.T, x *faultRun) {
		s := newSession(t, x.f, exchangeConfig(1, 1, 64, devices.AQL))
		submitBoth(t, s, true)
		wantErrMentions(t, "Abort", s.Abort(), failure.Publish, "injected error at host.publish")
		wantState(t, s, StatePoisoned)
		x.quarantined(t, s)
		if x.counts.get(s.ID(), oracle.EvDecide) != 1 {
			t.Error("Close published a second decision")
		}
	})
	// Even with no participant to join, a poisoned session is quarantined.
	add("host.publish/error/ABORT before any submit", fault.HostPublish, "error(bus reset)", func(t *testing.T, x *faultRun) {
		s := newSession(t, x.f, exchangeConfig(1, 1, 64, devices.AQL))
		wantErrMentions(t, "Abort", s.Abort(), failure.Publish, "bus reset")
		wantState(t, s, StatePoisoned)
		wantErrMentions(t, "SubmitGPU after a failed publication", s.SubmitGPU(), failure.Busy)
		if ok, err := s.Wait(x.short); !ok || err != nil {
			t.Errorf("Wait = %v, %v; want true (nobody to join)", ok, err)
		}
		wantState(t, s, StatePoisoned)
		x.quarantined(t, s)
		if x.counts.get(s.ID(), oracle.EvDecide) != 1 {
			t.Error("Close published a second decision")
		}
	})
	// host.publish skip: the store happens but no release, so the NPU never
	// observes RUN; the wait times out and Close quarantines.
	add("host.publish/skip", fault.HostPublish, "skip", func(t *testing.T, x *faultRun) {
		s := newSession(t, x.f, exchangeConfig(1, 1, 64, devices.AQL))
		start(t, s)
		pubs := actorEvents(x.f, s.ID(), event.EvPublication, nil)
		if len(pubs) != len(s.startup.publications) || len(pubs) != 3 {
			t.Errorf("%d publication events, want 3 (pm4, aql, xdna)", len(pubs))
		}
		for _, e := range pubs {
			if e.B != 1 {
				t.Errorf("publication %q status %d, want 1 (skipped)", e.Detail, e.B)
			}
		}
		if ok, err := s.Wait(x.short); ok || err != nil {
			t.Fatalf("Wait = %v, %v; want a timeout", ok, err)
		}
		x.eventually(t, "the coherent GPU observing RUN", func() bool { return len(actorEvents(x.f, s.ID(), program.EvObserve, x.gpu)) == 1 })
		x.quarantined(t, s)
		if n := len(actorEvents(x.f, s.ID(), program.EvObserve, x.npu)); n != 0 {
			t.Errorf("the NPU observed a decision %d times without a release", n)
		}
	})

	// memory.alloc error, on the startup line or on the payload: the
	// session is not made, the error says why, and nothing stays charged.
	for _, m := range []struct{ name, term string }{{"startup line", "error(out of pinned memory)"}, {"payload", "1*off->1*error(out of pinned memory)"}} {
		add("memory.alloc/error/"+m.name, fault.MemoryAlloc, m.term, func(t *testing.T, x *faultRun) {
			s, err := newExchangeSession(x.gpu, x.npu, exchangeConfig(4, 2, 256, devices.AQL))
			if s != nil {
				t.Fatal("NewExchangeSession returned a session despite the failed allocation")
			}
			wantErrMentions(t, "NewExchangeSession", err, failure.Device, "alloc", "out of pinned memory")
			if st := x.f.Budget().State(); st.Charged != 0 || st.Quarantined != 0 {
				t.Errorf("budget %+v after a failed session, want nothing charged", st)
			}
			allocs := x.f.Events().Events(func(e *event.Event) bool { return e.Kind == event.EvAlloc })
			releases := x.f.Events().Events(func(e *event.Event) bool { return e.Kind == event.EvRelease })
			if len(allocs) != len(releases) {
				t.Errorf("%d allocations but %d releases", len(allocs), len(releases))
			}
			if x.gpu.Occupied() || x.npu.Occupied() {
				t.Error("a failed session left a device occupied")
			}
			// Once the fault is gone a session works.
			setFault(t, x.f, fault.MemoryAlloc, "off")
			s = newSession(t, x.f, exchangeConfig(4, 2, 256, devices.AQL))
			start(t, s)
			x.verified(t, s)
			x.retired(t, s)
		})
	}

	// payload.corrupt flip: a bit flips in a slot and verification catches
	// it; the oracle knows the corruption was injected.
	add("payload.corrupt/flip", exchange.PayloadCorrupt, "flip", func(t *testing.T, x *faultRun) {
		s := newSession(t, x.f, exchangeConfig(2, 1, 64, devices.AQL))
		start(t, s)
		if ok, err := s.Wait(longWait); !ok || err != nil {
			t.Fatalf("Wait = %v, %v; want both retired", ok, err)
		}
		v, ok := verification(s)
		if !ok || v.OK || v.Verified != 0 || !strings.Contains(v.Problem, "generation 1") || !strings.Contains(v.Problem, "corrupted") {
			t.Errorf("verification %+v, want generation 1 found corrupted", v)
		}
		x.retired(t, s)
	})
	add("payload.corrupt/flip/second generation", exchange.PayloadCorrupt, "1*off->1*flip", func(t *testing.T, x *faultRun) {
		s := newSession(t, x.f, exchangeConfig(3, 2, 8, devices.PM4))
		start(t, s)
		if ok, err := s.Wait(longWait); !ok || err != nil {
			t.Fatalf("Wait = %v, %v; want both retired", ok, err)
		}
		v, _ := verification(s)
		if v.OK || v.Verified != 1 || !strings.Contains(v.Problem, "generation 2") {
			t.Errorf("verification %+v, want generation 1 verified and generation 2 found corrupted", v)
		}
		x.retired(t, s)
	})
	return cases
}

// TestFaultSites runs every case in both executors.
func TestFaultSites(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range faultCases() {
		chain, err := fault.Parse(c.site, c.term)
		if err != nil {
			t.Fatalf("case %s: %v", c.name, err)
		}
		for _, term := range chain {
			covered[c.site.String()+" "+term.Action.String()] = true
		}
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range bothModes {
				t.Run(mode.String(), func(t *testing.T) {
					x := &faultRun{world: newWorld(t, mode, worldSeed), mode: mode, short: shortWait(mode)}
					setFault(t, x.f, c.site, c.term)
					c.run(t, x)
					wantNoViolations(t, x.o)
					x.f.Faults().Clear()
					settle(t, x.f, x.o)
				})
			}
		})
	}
	// Every action of every site has a case.
	for _, site := range fault.Sites() {
		for _, a := range site.Actions() {
			if !covered[site.String()+" "+a.String()] {
				t.Errorf("no case injects %s at %s", a, site)
			}
		}
	}
}

// TestFaultTermsAreCheckedWhenSet: a bad term given to the fabric's fault
// plane is refused with an error that says why, and the chain in force
// stays as it was.
func TestFaultTermsAreCheckedWhenSet(t *testing.T) {
	w := newWorld(t, devices.Simulated, worldSeed)
	plane := w.f.Faults()
	if err := plane.Set(fault.GPUDispatch, "1*error(first)"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		site fault.Site
		term string
		says string
	}{
		{fault.GPUDispatch, "hang", "not allowed"},
		{fault.GPUDispatch, "bogus", "unknown action"},
		{fault.GPUDispatch, "", "empty"},
		{fault.GPUDispatch, "150%error", "out of range"},
		{fault.GPUDispatch, "0%error", "out of range"},
		{fault.GPUDispatch, "x%error", "probability"},
		{fault.GPUDispatch, "0*error", "at least 1"},
		{fault.GPUDispatch, "delay", "duration"},
		{fault.GPUDispatch, "delay(soon)", "duration"},
		{fault.GPUDispatch, "delay(-1ms)", "positive"},
		{fault.GPUDispatch, "error(unclosed", ")"},
		{fault.GPUDispatch, "1*off->", "empty"},
		{exchange.NPUDrain, "flip", "not allowed"},
		{exchange.NPUDrain, "skip(now)", "no argument"},
		{fault.HostPublish, "hang", "not allowed"},
		{fault.MemoryAlloc, "skip", "not allowed"},
		{exchange.PayloadCorrupt, "error", "not allowed"},
		{fault.GPURun, "skip", "not allowed"},
		{fault.NPUComplete, "delay(1ms)", "not allowed"},
	} {
		err := plane.Set(c.site, c.term)
		if err == nil {
			t.Errorf("Set(%v, %q) succeeded", c.site, c.term)
			continue
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("Set(%v, %q): %q does not say %q", c.site, c.term, err, c.says)
		}
	}
	if got := plane.Settings(); len(got) != 1 || got[0].Site != fault.GPUDispatch || got[0].Term != "1*error(first)" {
		t.Errorf("settings after refused terms: %v, want only gpu.dispatch 1*error(first)", got)
	}
	// The chain in force is the first one: it still rejects one dispatch.
	s := newSession(t, w.f, exchangeConfig(1, 1, 8, devices.AQL))
	wantErrMentions(t, "SubmitGPU", s.SubmitGPU(), failure.Device, "first")
	if out := s.Close(); out != Retired {
		t.Errorf("Close = %v, want retired", out)
	}
	settle(t, w.f, w.o)
}

// TestFaultOracleStillChecksSettlementAfterFaults: the oracle's end check of
// invariant 8 must keep working after a fault ended a session in
// quarantine or made a session fail to construct; otherwise every "no
// violation" above would say nothing about leaks that follow. A buffer
// left charged with every session closed and no quarantine left must be
// reported.
func TestFaultOracleStillChecksSettlementAfterFaults(t *testing.T) {
	for _, c := range []struct {
		name    string
		episode func(t *testing.T, w *world)
	}{
		{"no fault", func(t *testing.T, w *world) {
			s := newSession(t, w.f, exchangeConfig(1, 1, 8, devices.AQL))
			start(t, s)
			if out := s.Close(); out != Retired {
				t.Fatalf("Close = %v", out)
			}
		}},
		{"after a quarantine", func(t *testing.T, w *world) {
			setFault(t, w.f, fault.GPURun, "hang")
			s := newSession(t, w.f, exchangeConfig(1, 1, 8, devices.AQL))
			start(t, s)
			if out := s.CloseWithin(t.Context(), time.Millisecond); out != Quarantined {
				t.Fatalf("Close = %v", out)
			}
			w.gpu.Reset()
			w.npu.Reset()
		}},
		{"after a failed construction", func(t *testing.T, w *world) {
			setFault(t, w.f, fault.MemoryAlloc, "1*off->1*error")
			if _, err := newExchangeSession(w.gpu, w.npu, exchangeConfig(1, 1, 8, devices.AQL)); err == nil {
				t.Fatal("NewExchangeSession succeeded")
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, devices.Simulated, worldSeed)
			c.episode(t, w)
			w.f.Faults().Clear()
			if err := w.o.CheckSettled(); err != nil {
				t.Fatalf("CheckSettled after the episode: %v", err)
			}
			ps, err := w.f.AllocationProfiles(w.f.Devices(), true)
			if err != nil {
				t.Fatal(err)
			}
			stray, err := ps[0].Allocate(64, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.o.CheckSettled(); err == nil {
				t.Errorf("CheckSettled() = nil with 64 bytes charged (%+v), every session closed and no quarantine left", w.f.Budget().State())
			}
			_ = stray.Release()
		})
	}
}
