//go:build race

package trial

// raceEnabled says whether the tests run under the race detector.
const raceEnabled = true
