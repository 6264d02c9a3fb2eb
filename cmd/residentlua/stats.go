package main

import (
	"encoding/json"
	"io"

	"github.com/residentlua/residentlua/internal/resultfile"
	"github.com/residentlua/residentlua/luaapi"
)

// writeStats writes every session's stats, as the module reports them, to
// path as a JSON array (an empty array when no session was made).
func writeStats(path string, stats []luaapi.SessionStats) error {
	if stats == nil {
		stats = []luaapi.SessionStats{}
	}
	return resultfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(stats)
	})
}
