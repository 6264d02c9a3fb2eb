//go:build mutant

package engine

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/engine/oracle"
)

// This file is built only into a mutant's test binary (go test -tags
// mutant, which TestMutantsAreCaught of package engine_test runs): its unit
// tests must catch the mutant the binary was built as, so each passes only
// on the mutant it is listed under.

var mutantName = flag.String("mutant", "", "the mutant this test binary was built as: a file of testdata/mutants, without .txt")

// MutantName is the mutant this test binary was built as (-mutant), for
// package engine_test.
func MutantName() string { return *mutantName }

// mutantUnitTest is a unit test that the mutant it is listed under fails.
type mutantUnitTest struct {
	name string
	test func(*testing.T)
}

// mutantUnitTests are the unit tests each mutant must fail, by its name.
var mutantUnitTests = map[string][]mutantUnitTest{
	"abort-after-run":         {{"oracleInvariant1AbortAfterRun", oracleInvariant1AbortAfterRun}},
	"run-with-one-accepted":   {{"oracleInvariant2EngineStartsEarly", oracleInvariant2EngineStartsEarly}},
	"skip-reject-abort":       {{"oracleInvariant3EngineSkipsAbort", oracleInvariant3EngineSkipsAbort}},
	"release-unretired":       {{"oracleInvariant5EngineReleasesAtClose", oracleInvariant5EngineReleasesAtClose}},
	"skip-publish-poison":     {{"oracleInvariant9EngineSkipsPublicationPoison", oracleInvariant9EngineSkipsPublicationPoison}},
	"skip-participant-poison": {{"oracleInvariant9EngineSkipsParticipantPoison", oracleInvariant9EngineSkipsParticipantPoison}},
	"skip-close-abort":        {{"oracleInvariant10CloseWithoutAbort", oracleInvariant10CloseWithoutAbort}},
	"skip-close-join": {
		{"oracleInvariant10QuarantineWithoutJoin", oracleInvariant10QuarantineWithoutJoin},
		{"oracleInvariant10PoisonedMayQuarantineAtOnce", oracleInvariant10PoisonedMayQuarantineAtOnce},
	},
	"full-second-join":       {{"oracleInvariant11SecondJoinGetsWholeTimeout", oracleInvariant11SecondJoinGetsWholeTimeout}},
	"late-decision":          {{"oracleInvariant12LateDecision", oracleInvariant12LateDecision}},
	"quarantine-without-npu": {{"oracleInvariant13QuarantineWithoutNPU", oracleInvariant13QuarantineWithoutNPU}},
	"second-invocation":      {{"oracleInvariant14SecondInvocation", oracleInvariant14SecondInvocation}},
	"skip-npu-release": {
		{"oracleInvariant15NoNPURelease", oracleInvariant15NoNPURelease},
		{"oracleInvariant15PremisesWithoutAFault", oracleInvariant15PremisesWithoutAFault},
	},
}

// TestMutantUnit runs the unit tests listed for the mutant this binary was
// built as; every mutant must have one, and every list must name a mutant.
func TestMutantUnit(t *testing.T) {
	for name := range mutantUnitTests {
		if _, err := os.Stat(filepath.Join("testdata", "mutants", name+".txt")); err != nil {
			t.Errorf("mutantUnitTests lists %q, which is not a mutant: %v", name, err)
		}
	}
	tests := mutantUnitTests[*mutantName]
	if len(tests) == 0 {
		t.Fatalf("no unit test is listed for the mutant %q (-mutant) in mutantUnitTests", *mutantName)
	}
	for _, u := range tests {
		t.Run(u.name, func(t *testing.T) {
			t.Parallel()
			u.test(t)
		})
	}
}

// The engine built to publish RUN with the NPU not accepted.
func oracleInvariant2EngineStartsEarly(t *testing.T) {
	f, o := newOracleFabric(t)
	s := newSession(t, f, roundsConfig(1))
	noErr(t, "SubmitGPU", s.SubmitGPU())
	if err := s.Start(); err != nil {
		t.Fatalf("Start with the NPU not submitted, on the mutant: %v, want it to go through", err)
	}
	v := wantViolation(t, o, 2, s.ID(), oracle.EvDecide)
	if !strings.Contains(v.Message, "NPU accepted=false") {
		t.Errorf("message %q should say the NPU was not accepted", v.Message)
	}
}

// The engine built to return a rejected dispatch's error without ABORT:
// the accepted peer polls for a decision that never comes.
func oracleInvariant3EngineSkipsAbort(t *testing.T) {
	f, o := newOracleFabric(t)
	setFault(t, f, fault.NPUDispatch, "error(test)")
	s := newSession(t, f, roundsConfig(1))
	noErr(t, "SubmitGPU", s.SubmitGPU())
	if err := s.SubmitNPU(); !errors.Is(err, failure.Device) {
		t.Fatalf("rejected dispatch returned %v, want a Device error", err)
	}
	v := wantViolation(t, o, 3, s.ID(), oracle.EvSubmitReturn)
	if !strings.Contains(v.Message, "NPU") || !strings.Contains(v.Message, "GPU") {
		t.Errorf("message %q should name both participants", v.Message)
	}
}

// The engine built to release, at close, the buffers of a session whose
// GPU has not retired.
func oracleInvariant5EngineReleasesAtClose(t *testing.T) {
	f, o := newOracleFabric(t)
	setFault(t, f, fault.GPURun, "hang")
	s := newSession(t, f, roundsConfig(1))
	start(t, s)
	if out := s.CloseWithin(t.Context(), time.Millisecond); out != Retired {
		t.Fatalf("outcome %s, want the mutant's retired", out)
	}
	wantViolation(t, o, 5, s.ID(), event.EvReleaseRefused, 8)
}

// What invariant 15 does not claim, on a session that does not retire
// with no fault: a Wait shorter than long enough, and an oracle not asked
// to check it.
func oracleInvariant15PremisesWithoutAFault(t *testing.T) {
	t.Run("a short wait", func(t *testing.T) {
		f, o := newOracleFabric(t)
		wantNoLivenessClaim(t, f, o, time.Second, time.Millisecond)
	})
	t.Run("not asked", func(t *testing.T) {
		f, o := newOracleFabric(t)
		wantNoLivenessClaim(t, f, o, 0, time.Second)
	})
}

// The engine built to let Abort overwrite RUN: a second decision.
func oracleInvariant1AbortAfterRun(t *testing.T) {
	f, o := newOracleFabric(t)
	s := newSession(t, f, roundsConfig(1))
	start(t, s)
	if err := s.Abort(); err != nil {
		t.Fatalf("Abort after RUN, with the rule broken: %v, want it to go through", err)
	}
	v := wantViolation(t, o, 1, s.ID(), oracle.EvDecide)
	if !strings.Contains(v.Message, "decision 2 was made after an earlier one") {
		t.Errorf("message %q should name the second decision", v.Message)
	}
}

// The engine built to skip that poison is caught on its own events.
func oracleInvariant9EngineSkipsPublicationPoison(t *testing.T) {
	f, o := newOracleFabric(t)
	setFault(t, f, fault.HostPublish, "error(test)")
	s := newSession(t, f, roundsConfig(1))
	if err := s.Abort(); !errors.Is(err, failure.Publish) {
		t.Fatalf("Abort with the publication failing: %v, want a Publish error", err)
	}
	wantViolation(t, o, 9, s.ID(), oracle.EvPublished)
}

// The engine built to skip the participant's poison.
func oracleInvariant9EngineSkipsParticipantPoison(t *testing.T) {
	f, o := newOracleFabric(t)
	setFault(t, f, fault.NPUComplete, "error(test)")
	s := newSession(t, f, roundsConfig(1))
	start(t, s)
	if _, err := s.Wait(time.Second); !errors.Is(err, failure.Device) {
		t.Fatalf("Wait with the NPU failing: %v, want a Device error", err)
	}
	wantViolation(t, o, 9, s.ID(), oracle.EvWaitEnd)
}

// The engine built to close an undecided session without ABORT.
func oracleInvariant10CloseWithoutAbort(t *testing.T) {
	f, o := newOracleFabric(t)
	s := newSession(t, f, roundsConfig(1))
	noErr(t, "SubmitGPU", s.SubmitGPU())
	s.CloseWithin(t.Context(), time.Millisecond)
	v := wantViolation(t, o, 10, s.ID(), event.EvQuarantine)
	if !strings.Contains(v.Message, "undecided") || !hasEvent(v.Events, oracle.EvCloseBegin) {
		t.Errorf("message %q and events should show an undecided session's close", v.Message)
	}
	if n := len(o.Violations()); n != 1 {
		t.Errorf("%d violations of one close, want it reported once", n)
	}
}

// The engine built to quarantine at close without joining.
func oracleInvariant10QuarantineWithoutJoin(t *testing.T) {
	f, o := newOracleFabric(t)
	s := newSession(t, f, roundsConfig(1))
	start(t, s)
	if out := s.Close(); out != Quarantined {
		t.Fatalf("outcome %s, want quarantined", out)
	}
	v := wantViolation(t, o, 10, s.ID(), event.EvQuarantine, 12) // invariant 12 says it of decided sessions too
	if hasEvent(v.Events, oracle.EvWait) {
		t.Errorf("the events show a join, but none was attempted")
	}
}

// Invariant 10 lets a poisoned session be quarantined at once; once it is
// decided (a failed publication records its decision first), invariant 12
// requires the close to attempt the join all the same, as the seed's drop
// does.
func oracleInvariant10PoisonedMayQuarantineAtOnce(t *testing.T) {
	f, o := newOracleFabric(t)
	setFault(t, f, fault.HostPublish, "error(test)")
	s := newSession(t, f, roundsConfig(1))
	if err := s.Abort(); !errors.Is(err, failure.Publish) {
		t.Fatalf("Abort: %v, want a Publish error", err)
	}
	if out := s.Close(); out != Quarantined {
		t.Fatalf("outcome %s, want quarantined", out)
	}
	v := wantViolation(t, o, 12, s.ID(), event.EvQuarantine)
	if !strings.Contains(v.Message, "decided abort") {
		t.Errorf("message %q should say the session was decided", v.Message)
	}
}

// The engine built to give the second join the whole timeout again: with
// both participants hung, the Wait ends a whole timeout late.
func oracleInvariant11SecondJoinGetsWholeTimeout(t *testing.T) {
	f, o := newOracleFabric(t)
	setFault(t, f, fault.GPURun, "hang")
	s := newSession(t, f, roundsConfig(1))
	start(t, s)
	if ok, err := s.Wait(time.Millisecond); ok || err != nil {
		t.Fatalf("wait on a hung GPU: %v, %v; want a timeout", ok, err)
	}
	v := wantViolation(t, o, 11, s.ID(), oracle.EvJoin)
	if !strings.Contains(v.Message, "NPU join") || !strings.Contains(v.Message, "1ms past") {
		t.Errorf("message %q should say the NPU join ended 1ms past the deadline", v.Message)
	}
	if n := len(o.Violations()); n != 1 {
		t.Errorf("%d violations of one Wait, want it reported once", n)
	}
}

// The engine built to record the decision only once it is published: after
// a failed publication, Wait answers "undecided" and Close quarantines
// without joining.
func oracleInvariant12LateDecision(t *testing.T) {
	f, o := newOracleFabric(t)
	setFault(t, f, fault.HostPublish, "1*error(test)")
	s := newSession(t, f, roundsConfig(1))
	submitBoth(t, s, false)
	if err := s.Start(); !errors.Is(err, failure.Publish) {
		t.Fatalf("Start: %v, want a Publish error", err)
	}
	if _, err := s.Wait(time.Second); err == nil || !strings.Contains(err.Error(), "undecided") {
		t.Fatalf("Wait: %v, want the undecided error the broken rule gives", err)
	}
	v := wantViolation(t, o, 12, s.ID(), oracle.EvUndecided)
	if !strings.Contains(v.Message, "after 1 decisions were made") {
		t.Errorf("message %q should say a decision was made", v.Message)
	}
	if out := s.Close(); out != Quarantined {
		t.Fatalf("outcome %s, want quarantined", out)
	}
	var closes int
	for _, v := range o.Violations() {
		if v.Invariant == 12 && strings.Contains(v.Message, "the close quarantined a session decided run without attempting to join") {
			closes++
		}
	}
	if closes != 1 {
		t.Errorf("the close that quarantined without joining was reported %d times, want once: %v", closes, o.Violations())
	}
}

// The engine built to quarantine with the GPU held alone.
func oracleInvariant13QuarantineWithoutNPU(t *testing.T) {
	f, o := newOracleFabric(t)
	s := quarantinedHungSession(t, f)
	v := wantViolation(t, o, 13, s.ID(), event.EvQuarantine)
	if v.Message != "the quarantine does not hold the NPU (device 2)" {
		t.Errorf("message %q, want it to name the NPU", v.Message)
	}
}

// Devices built to admit a second invocation: two sessions' GPU programs
// run at once on one GPU.
func oracleInvariant14SecondInvocation(t *testing.T) {
	f, o := newOracleFabric(t)
	s1 := newSession(t, f, roundsConfig(1))
	s2 := newSession(t, f, roundsConfig(1))
	noErr(t, "SubmitGPU", s1.SubmitGPU())
	noErr(t, "a second GPU dispatch with the rule broken, which should admit it", s2.SubmitGPU())
	v := wantViolation(t, o, 14, s2.ID(), event.EvDispatch)
	if !strings.Contains(v.Message, fmt.Sprintf("of session %d had not retired there", s1.ID())) {
		t.Errorf("message %q should name the first session", v.Message)
	}
}

// The engine built without the NPU's host release: the NPU never sees the
// decision, and a Wait of a second sees it hang.
func oracleInvariant15NoNPURelease(t *testing.T) {
	f, o := newOracleFabric(t)
	o.Liveness(time.Second)
	s := newSession(t, f, roundsConfig(1))
	start(t, s)
	if ok, err := s.Wait(time.Second); ok || err != nil {
		t.Fatalf("Wait: %v, %v; want a timeout", ok, err)
	}
	v := wantViolation(t, o, 15, s.ID(), oracle.EvWaitEnd)
	if !strings.Contains(v.Message, "a Wait given 1s of a session decided run") || !strings.Contains(v.Message, "the NPU's timed out") {
		t.Errorf("message %q should give the wait and the NPU's join", v.Message)
	}
}
