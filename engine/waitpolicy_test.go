package engine

import (
	"runtime"
	"testing"

	"github.com/residentlua/residentlua/devices/wait"
)

// TestRealTimeUnderEachWaitPolicy runs the real-time tests again with the
// devices and the host spinning, then blocking at once (the other tests run
// the default, hybrid). Spinning needs GOMAXPROCS of at least three (two
// devices and the host); on a machine with fewer CPUs it is raised for the
// test, and the spinning threads take turns on the CPUs: the tests check
// outcomes and order, not speed.
func TestRealTimeUnderEachWaitPolicy(t *testing.T) {
	tests := []struct {
		name string
		run  func(*testing.T)
		// twoCores tests set GOMAXPROCS to 2, too few for spinning.
		twoCores bool
	}{
		{"LifecycleVerifies", TestRealTimeLifecycleVerifies, false},
		{"NPURejectedAfterGPUAccepted", TestRealTimeNPURejectedAfterGPUAcceptedPublishesAbortBeforeErrorReturns, false},
		{"AbortBeforeStart", TestRealTimeAbortBeforeStartRetiresBothUntouched, false},
		{"HangQuarantines", TestRealTimeHangQuarantinesAndResetReleases, false},
		{"TimedOutWaitThenSucceeds", TestRealTimeTimedOutWaitThenSucceeds, false},
		{"ThreeBusyParticipantsOnTwoCores", TestRealTimeThreeBusyParticipantsOnTwoCores, true},
		{"ConcurrentDecisions", TestRealTimeConcurrentDecisionsPublishOnce, false},
		{"WaitAndCloseEndWithTheirContext", TestSessionWaitAndCloseEndWithTheirContext, false},
		{"WaitBlocksNeitherStateNorClose", TestSessionWaitBlocksNeitherStateNorClose, false},
		{"SecondWaitEndsWithItsContext", TestSessionSecondWaitEndsWithItsContext, false},
		{"ExchangeAcrossShapes", TestExchangeVerifiesAcrossShapes, false},
	}
	for _, w := range []wait.Policy{wait.Spin, wait.Block} {
		t.Run(w.String(), func(t *testing.T) {
			defer func(saved wait.Policy) { realTimeWait = saved }(realTimeWait)
			realTimeWait = w
			if w == wait.Spin {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(3, runtime.GOMAXPROCS(0))))
			}
			for _, tc := range tests {
				if tc.twoCores && w == wait.Spin {
					continue // NewFabric refuses spin there, as TestSpinNeedsACorePerParticipant shows
				}
				t.Run(tc.name, tc.run)
			}
		})
	}
}
