package luaprogram

import (
	"strconv"
	"unicode/utf8"
)

// Lua 5.1's traceback shows the first levelsFirst levels of a stack and
// its last levelsLast (LEVELS1 and LEVELS2 of ldblib.c), so that a stack
// overflow's traceback is a few lines, not thousands.
const (
	levelsFirst = 12
	levelsLast  = 10
)

// elideLevels shortens the lines of a traceback, one a level, as Lua 5.1
// does: past levelsFirst + levelsLast levels, those between the first and
// the last are replaced by one line that says how many were left out.
func elideLevels(lines []string) []string {
	if len(lines) <= levelsFirst+levelsLast+1 {
		return lines
	}
	skipped := len(lines) - levelsFirst - levelsLast
	out := append(lines[:levelsFirst:levelsFirst], "\t...\t(skipping "+strconv.Itoa(skipped)+" levels)")
	return append(out, lines[len(lines)-levelsLast:]...)
}

// callstackOverflow is gopher-lua's error of a full call stack.
const callstackOverflow = "lua callstack overflow"

// maxMessage bounds the bytes of a program's message (an error, a
// retirement, a check's verdict) that a run keeps: a campaign keeps one
// for each failed trial.
const maxMessage = 4096

// truncateMessage is msg cut to at most maxMessage bytes (at the start of
// a character), saying so and how long it was.
func truncateMessage(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + " ... (a message of " + strconv.Itoa(len(msg)) + " bytes, cut to its first " + strconv.Itoa(cut) + ")"
}
