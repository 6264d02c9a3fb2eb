package oracle

// Tracked is how many sessions and invocations o keeps state for.
func Tracked(o *Oracle) int { return o.tracked() }

// Replay checks a transcript's events and says its verdicts
// (TestOracleTranscripts).
var Replay = replay
