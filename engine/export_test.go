package engine

import "github.com/residentlua/residentlua/internal/brokenrule"

// This file hands the test-only hook broken to the campaign tests, which
// are in package engine_test because they use package engine/trial (which
// imports engine). Files named *_test.go are compiled only into the
// engine's test binary, so no program and nothing reachable from Lua can
// break a rule.

// BrokenRule is a rule of the seed the engine can be built to break.
type BrokenRule = brokenRule

// The rules the campaign and checker tests break, one at a time (see brokenrule.go).
const (
	SkipPublishPoison     = skipPublishPoison
	SkipParticipantPoison = skipParticipantPoison
	SkipCloseAbort        = skipCloseAbort
	SkipCloseJoin         = skipCloseJoin
	FullSecondJoin        = fullSecondJoin
	SkipRejectAbort       = skipRejectAbort
	RunWithOneAccepted    = runWithOneAccepted
	ReleaseUnretired      = releaseUnretired
	AbortAfterRun         = abortAfterRun
	SecondInvocation      = secondInvocation
	SkipNPURelease        = skipNPURelease
	LateDecision          = lateDecision
	QuarantineWithoutNPU  = quarantineWithoutNPU
)

// BreakRule makes the engine break rule until restore is called, which
// makes it keep every rule again.
func BreakRule(rule BrokenRule) (restore func()) {
	broken = rule
	brokenrule.SecondInvocation = rule == secondInvocation
	return func() { broken, brokenrule.SecondInvocation = keepRules, false }
}
