//go:build race

package memory

// raceEnabled: under the race detector sync.Pool drops some of what it is
// given on purpose, so tests cannot count on it keeping a chunk.
const raceEnabled = true
