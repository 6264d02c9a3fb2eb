// Command embed is a Go program that embeds residentlua: it opens the Lua
// module "resident" in its own Lua state, on a simulated fabric of its own,
// in a sandbox without os, io and dofile, runs a session's whole lifecycle
// from Lua, reads the result back in Go, and closes.
//
//	go run ./examples/embed
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
)

// lifecycle is the experiment, in Lua: one session from startup to close.
const lifecycle = `
local resident = require "resident"
local s = resident.startup{gpu = "aql", rounds = 16, credits = 4, slot_bytes = "256"}
s:submit_gpu()
s:submit_npu()
s:start()
local retired = s:wait(1.0)
print("lua: " .. tostring(s) .. ", retired: " .. tostring(retired))
return s:close(), s:stats()
`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

func run() error {
	// A fabric of our own: simulated time and a fixed seed, so every run
	// gives the same events.
	fabric, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
	if err != nil {
		return err
	}
	defer fabric.Close() // the module never closes a fabric it was given

	// A state that behaves like Lua 5.1 (luaapi.Open would install the same
	// fixes in a lua.NewState, but only NewState sets Lua 5.1's limits).
	L := lua51.NewState(lua51.Options{})
	defer L.Close()
	m, err := luaapi.Open(L, luaapi.Options{
		Fabric:  fabric,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Sandbox: true, // no os, io, dofile, loadfile, nor require of files
	})
	if err != nil {
		return err
	}
	defer m.Close() // closes what the script left open, and says how each ended

	// Ctrl-C interrupts a running wait with a Lua error.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	L.SetContext(ctx)

	if err := lua51.DoString(L, lifecycle); err != nil {
		return errors.New(luaapi.ErrorString(err))
	}
	outcome, stats := L.Get(-2), L.Get(-1).(*lua.LTable)
	L.Pop(2)
	fmt.Printf("go: the session ended %s after %v rounds\n", outcome, stats.RawGetString("rounds"))

	// The same, from Go: every session's stats, ready for JSON.
	for _, st := range m.Stats() {
		fmt.Printf("go: session %d: %s, %d bytes verified, verification ok: %v\n",
			st.ID, st.State, st.Bytes, st.Verification != nil && st.Verification.OK)
	}

	// A protocol error raised in Lua comes back to Go as a value that
	// errors.Is understands.
	err = lua51.DoString(L, `local s = require("resident").startup{}; s:start()`)
	if e, ok := luaapi.ErrorOf(err); ok && errors.Is(e, failure.Busy) {
		fmt.Printf("go: caught %s error from %s: %s\n", e.Kind, e.Op, e.Message)
	}

	// The sandbox holds.
	if err := lua51.DoString(L, `assert(os == nil and io == nil and dofile == nil)`); err != nil {
		return err
	}

	// Close the sessions still open (the one above), in creation order.
	for _, r := range m.Close() {
		fmt.Printf("go: session %d was still open; closing it: %s\n", r.Session, r.Outcome)
	}
	if v := m.Violations(); len(v) > 0 {
		return fmt.Errorf("the oracle found %d violations, first: %v", len(v), v[0])
	}
	return nil
}
