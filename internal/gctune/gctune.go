// Package gctune sets the garbage collector's target of a batch: a
// campaign's trials or a check's schedules. residentlua campaign and
// residentlua check run under it, and so do residentbench's campaign and
// checker figures, so that they measure what the command does; one
// package keeps the two from drifting apart. It lives in the commands'
// reach rather than in package campaign because it changes a setting of
// the whole process, which a library must leave to the program.
package gctune

import (
	"os"
	"runtime/debug"
)

// Percent is the collector's target (GOGC) a batch runs with unless the
// environment sets GOGC: trials and schedules allocate briefly and keep
// little, so with Go's default of 100 collection is most of a campaign's
// CPU on many cores, and much of a check of Lua programs, while the heap
// of a batch is small (tens of MB) and letting it grow four times before a
// collection costs little memory.
const Percent = 400

// ForBatch sets the collector's target to Percent, unless the environment
// sets GOGC, and its soft memory limit to limit bytes (0: none), and
// returns what puts the previous target and limit back. A target this
// high lets the heap grow four times past what it keeps; the limit (the
// memory budget: less than the address space left under ulimit -v) makes
// the collector run before that growth reaches it.
func ForBatch(limit int64) (restore func()) {
	previousLimit := debug.SetMemoryLimit(-1)
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	if os.Getenv("GOGC") != "" {
		return func() { debug.SetMemoryLimit(previousLimit) }
	}
	previous := debug.SetGCPercent(Percent)
	return func() {
		debug.SetGCPercent(previous)
		debug.SetMemoryLimit(previousLimit)
	}
}
