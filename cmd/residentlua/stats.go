package main

import (
	"encoding/json"
	"os"

	"residentlua/luaapi"
)

// writeStats writes every session's stats, as the module reports them, to
// path as a JSON array (an empty array when no session was made).
func writeStats(path string, stats []luaapi.SessionStats) error {
	if stats == nil {
		stats = []luaapi.SessionStats{}
	}
	data, err := json.MarshalIndent(stats, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
