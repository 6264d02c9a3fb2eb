package main

import (
	"runtime/debug"

	lua "github.com/yuin/gopher-lua"
)

// gopherLuaPath is the module path of the Lua interpreter.
const gopherLuaPath = "github.com/yuin/gopher-lua"

// versionLine is what -v, --version and the REPL's banner print: the
// project's version as the build recorded it (a tag, or a pseudo-version of
// the commit, "+dirty" when built from a modified tree), and the version of
// the gopher-lua module linked in (its own constant, lua.PackageVersion, is
// stale), with the Lua version it implements.
func versionLine() string {
	project, interp := "(unknown)", "(unknown)"
	if info, ok := debug.ReadBuildInfo(); ok {
		project = info.Main.Version
		for _, dep := range info.Deps {
			if dep.Path == gopherLuaPath {
				interp = dep.Version
				if dep.Replace != nil {
					interp = dep.Replace.Version
				}
			}
		}
	}
	return progName + " " + project + " (gopher-lua " + interp + ", " + lua.LuaVersion + ")"
}
