//go:build !race

package engine_test

// raceEnabled says whether the tests run under the race detector.
const raceEnabled = false
