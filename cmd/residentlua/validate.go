package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/residentlua/residentlua/trace"
)

// validateUsage is what residentlua validate --help prints.
const validateUsage = `usage: residentlua validate TRACE...
Checks recorded runs of any implementation of the resident session (traces:
JSON Lines, docs/traces.md) against the oracle's invariants. Several traces
are merged by time; "-" reads standard input. Prints, for each invariant
broken, the line and event where it first broke, the invariant, and the
session's events up to it; then each invariant that held, and each that the
traces' recorders cannot see, as not checked.
Exit status: 0 when every invariant checked held, 1 when one broke, 2 when a
trace is malformed (the line, the field and what was expected) or its last
line is truncated (everything before it checked).
`

// runValidate is residentlua validate: it returns the exit status.
func runValidate(args []string) int {
	return validateTo(args, os.Stdin, os.Stdout, os.Stderr)
}

// validateTo is runValidate with its standard files given.
func validateTo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var inputs []trace.Input
	for _, a := range args {
		switch {
		case a == "--help" || a == "-h":
			fmt.Fprint(stdout, validateUsage)
			return 0
		case a == "-":
			inputs = append(inputs, trace.Input{Name: "stdin", R: stdin})
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "%s validate: unrecognized option '%s'\n%s", progName, a, validateUsage)
			return 2
		default:
			f, err := os.Open(a)
			if err != nil {
				fmt.Fprintf(stderr, "%s validate: %v\n", progName, err)
				return 2
			}
			defer f.Close()
			inputs = append(inputs, trace.Input{Name: a, R: f})
		}
	}
	if len(inputs) == 0 {
		fmt.Fprintf(stderr, "%s validate: name one trace at least\n%s", progName, validateUsage)
		return 2
	}
	r, err := trace.Validate(inputs...)
	if err != nil {
		fmt.Fprintf(stderr, "%s validate: %v\n", progName, err)
		if r != nil && r.Events > 0 {
			fmt.Fprintf(stderr, "(%d events before it were checked)\n", r.Events)
		}
		return trace.ExitCode(r, err)
	}
	fmt.Fprint(stdout, r)
	return trace.ExitCode(r, nil)
}
