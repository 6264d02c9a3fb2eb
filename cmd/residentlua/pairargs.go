package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/residentlua/residentlua/luaapi"
)

// argName is what a program argument given on the command line may be
// called: a Lua name.
var argName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseArgValues reads program arguments given as "k=v,k=v" (--args) into
// dst: a value is a number when it reads as one, true or false a boolean,
// anything else a string. The error says which item is wrong.
func parseArgValues(option, list string, dst map[string]any) error {
	for item := range strings.SplitSeq(list, ",") {
		if err := parseArgValue(option, item, dst); err != nil {
			return err
		}
	}
	return nil
}

// parseArgValue reads one "k=v" into dst.
func parseArgValue(option, item string, dst map[string]any) error {
	k, v, ok := strings.Cut(item, "=")
	if !ok || !argName.MatchString(k) {
		return &usageError{fmt.Sprintf("%s %q: give name=value, a name of letters, digits and _ (such as chunks=2)", option, item)}
	}
	if _, dup := dst[k]; dup {
		return &usageError{fmt.Sprintf("%s: %s given twice; give each argument once", option, k)}
	}
	switch f, err := strconv.ParseFloat(v, 64); {
	case err == nil && !math.IsInf(f, 0) && !math.IsNaN(f):
		dst[k] = f
	case v == "true" || v == "false":
		dst[k] = v == "true"
	default:
		dst[k] = v
	}
	return nil
}

// addScriptArg reads one argument of a trial or scenario script, "k=v"
// given by its own --arg (option), into a: its word as given, and its value
// as --args reads one.
func addScriptArg(a *luaapi.ScriptArgs, option, item string) error {
	if a.Values == nil {
		a.Values = map[string]any{}
	}
	if err := parseArgValue(option, item, a.Values); err != nil {
		return err
	}
	a.Words = append(a.Words, item)
	return nil
}
