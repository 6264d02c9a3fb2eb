// Package gctune sets the garbage collector's target a campaign runs with.
// residentlua campaign runs its trials under it, and so do residentbench's
// campaign figures, so that they measure what the command does; one
// package keeps the two from drifting apart. It lives in the commands'
// reach rather than in package campaign because it changes a setting of
// the whole process, which a library must leave to the program.
package gctune

import (
	"os"
	"runtime/debug"
)

// Percent is the collector's target (GOGC) a campaign runs with unless the
// environment sets GOGC: trials allocate briefly and keep little, so with
// Go's default of 100 collection is most of a campaign's CPU on many
// cores, while the heap of a campaign is small (tens of MB) and letting it
// grow four times before a collection costs little memory.
const Percent = 400

// ForCampaign sets the collector's target to Percent, unless the
// environment sets GOGC, and returns what puts the previous target back.
func ForCampaign() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	previous := debug.SetGCPercent(Percent)
	return func() { debug.SetGCPercent(previous) }
}
