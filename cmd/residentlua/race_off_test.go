//go:build !race

package main

// raceEnabled builds the command under test with -race too.
const raceEnabled = false
