// Command residentlua runs Lua with the resident-session module loaded: an
// interactive REPL, .lua experiment scripts, and one-line chunks, following
// the conventions of the Lua standalone interpreter (lua.c).
//
//	residentlua [options] [script [args]]
//
// Run residentlua --help for the options, and see docs/cli.md.
package main

import (
	"os"

	_ "github.com/residentlua/residentlua/devices/cuda" // registers the "cuda" GPU backend that --gpu cuda names
)

func main() {
	os.Exit(run(os.Args))
}
