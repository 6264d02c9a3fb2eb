// Command residentlua runs Lua with the resident-session module loaded: an
// interactive REPL, .lua experiment scripts, and one-line chunks, following
// the conventions of the Lua standalone interpreter (lua.c).
//
//	residentlua [options] [script [args]]
//	residentlua campaign [SCRIPT] [--trials N] [--workers W] [--seed S] ...
//	residentlua check [SCENARIO.lua] [--rounds R] [--credits C] [--faults F] ...
//	residentlua validate TRACE...
//
// Run residentlua --help for the options, and see docs/cli.md and
// docs/campaigns.md and docs/checking.md.
package main

import (
	"os"

	_ "github.com/residentlua/residentlua/backends/cuda"         // registers the "cuda" GPU backend that --gpu cuda names
	_ "github.com/residentlua/residentlua/internal/mallocarenas" // one malloc arena, whatever the threads (see the package)
)

func main() {
	// "campaign", "check" or "validate" as the first word is that command, whose
	// options are its own; anything else is lua.c's command line.
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "campaign":
			reportBrokenPipes()
			os.Exit(runCampaign(os.Args[2:]))
		case "check":
			reportBrokenPipes()
			os.Exit(runCheck(os.Args[2:]))
		case "validate":
			reportBrokenPipes()
			os.Exit(runValidate(os.Args[2:]))
		}
	}
	os.Exit(run(os.Args))
}
