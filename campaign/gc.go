package campaign

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target (GOGC) a campaign runs with
// unless the environment sets GOGC: trials allocate briefly and keep
// little, so with Go's default of 100 collection is most of a campaign's
// CPU on many cores, while the heap of a campaign is small (tens of MB) and
// letting it grow four times before a collection costs little memory.
const GCPercent = 400

// TuneGC sets the collector's target to GCPercent, unless the environment
// sets GOGC, and returns what puts the previous target back. residentlua
// campaign runs its trials under it, and so do residentbench's campaign
// figures, so that they measure what the command does.
func TuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	previous := debug.SetGCPercent(GCPercent)
	return func() { debug.SetGCPercent(previous) }
}
