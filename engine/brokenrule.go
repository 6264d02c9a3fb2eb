package engine

// brokenRule is one rule of the seed that the engine can be built to
// break, so that a test can show that a campaign's oracle and the model
// checker catch code that breaks it (invariants 1 to 3, 5 and 9 to 15 of
// docs/protocol.md). Only the package's _test.go files set broken
// (export_test.go hands it, as BreakRule, to the campaign and
// model-checking tests of package engine_test); nothing exported and
// nothing reachable from Lua does. One rule is the devices' own, a switch of
// package internal/brokenrule, which BreakRule sets too.
type brokenRule uint8

// The rules a test can break, one at a time; keepRules breaks none.
const (
	keepRules             brokenRule = iota
	skipPublishPoison                // a failed publication does not poison the session
	skipParticipantPoison            // a participant's device error does not poison the session
	skipCloseAbort                   // closing an undecided session does not publish ABORT
	skipCloseJoin                    // Close quarantines without attempting the join
	fullSecondJoin                   // a Wait's second join gets the whole timeout again
	skipRejectAbort                  // a rejected dispatch does not publish ABORT for the peer
	runWithOneAccepted               // Start publishes RUN with only one participant accepted
	releaseUnretired                 // Close releases the buffers of a session whose participants did not retire
	abortAfterRun                    // Abort after RUN overwrites the decision
	secondInvocation                 // a device admits a second invocation while one is outstanding (internal/brokenrule)
	skipNPURelease                   // the startup prepares no host release for the NPU's XDNA family
	lateDecision                     // the decision is recorded only once its publication succeeded
	quarantineWithoutNPU             // a quarantine holds the GPU alone
)

// broken is the rule the engine breaks: keepRules except while a test of
// the oracle runs. The session code checks it in one-line conditions.
var broken brokenRule
